"""Checkers for the course notebooks, used by the reliability tests.

Static checks (no kernel): :func:`hygiene_problems` runs them all and returns
a list of problems (empty = clean).  Execution checks (one kernel each):
:func:`run_session` executes a notebook, with the network guard installed by
an injected first cell, Run All twice and then every cell once more on its
own, and :func:`compare_runs` lists the cells whose output changed.

Every checker is tested on small synthetic notebooks (tests/test_nb_hygiene.py,
tests/test_nb_idempotence.py), so each is shown able to fail.
"""

from __future__ import annotations

import copy
import difflib
import json
import pathlib
import re
import sys
from dataclasses import dataclass

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from execute_notebooks import client, notebooks  # noqa: E402,F401  (notebooks: used by tests)
MAX_BYTES = 1_000_000
SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}
IGNORE_OUTPUT = "NBVAL_IGNORE_OUTPUT"
RAISES = "NBVAL_RAISES_EXCEPTION"
WIDGET = "application/vnd.jupyter.widget-view+json"

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
TIMING = re.compile("|".join([
    r"\bWall time\b", r"\bCPU times\b", r"\bper loop\b",
    r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms)\b",
    r"\b\d+(?:\.\d+)?\s?(?:s|sec|secs|seconds)\b(?![-'])",
    r"\b\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}",              # time stamps
    r"\b\d{1,2}:\d{2}:\d{2}\b",
]))
FIGURE = re.compile(r"(?<![\d.])\d+\.\d{4}(?![\d])")


def source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def output_texts(output, mimes=None):
    """The text of one output: stream text or the text/* parts of its data."""
    if output.get("output_type") == "stream":
        text = output.get("text", "")
        yield "".join(text) if isinstance(text, list) else text
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") and (mimes is None or mime in mimes):
            yield "".join(value) if isinstance(value, list) else str(value)


# ------------------------------------------------------------------------- static checks


def check_format(path):
    try:
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    except Exception as exc:                       # invalid JSON or not a notebook
        return None, [f"not a readable notebook: {exc}"]
    if nb.get("nbformat") != 4:
        return nb, [f"nbformat {nb.get('nbformat')}, expected 4"]
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        return nb, [f"invalid nbformat: {exc.message}"]
    return nb, []


def check_kernelspec(nb):
    name = nb.metadata.get("kernelspec", {}).get("name")
    return [] if name == "python3" else [f"kernelspec {name!r}, expected 'python3'"]


def check_execution(nb):
    """Every code cell executed once, in order: execution counts 1, 2, 3, ..."""
    problems = []
    counts = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if not source(cell).strip():
            problems.append(f"cell {i}: empty code cell (it is never executed)")
        if cell.get("execution_count") is None:
            problems.append(f"cell {i}: not executed (execution_count null)")
        counts.append(cell.get("execution_count"))
    if not problems and counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts {counts}: expected 1..{len(counts)} in order "
                        f"(one fresh Run All)")
    return problems


def check_outputs(nb):
    """No error (unless marked), no stderr, no memory address, no timing in any output."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        raises = RAISES in source(cell)
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error" and not raises:
                problems.append(f"cell {i}: error output {output.get('ename')}: "
                                f"{output.get('evalue')}")
            if kind == "stream" and output.get("name") == "stderr":
                problems.append(f"cell {i}: writes to stderr: {''.join(output.get('text'))[:80]!r}")
            for text in output_texts(output):
                hit = ADDRESS.search(text)
                if hit:
                    problems.append(f"cell {i}: memory address {hit.group()} in output")
            for text in output_texts(output, {"text/plain", "text/markdown"}):
                hit = TIMING.search(text)
                if hit:
                    problems.append(f"cell {i}: timing or time stamp {hit.group()!r} in output")
        if raises and not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            problems.append(f"cell {i}: marked {RAISES} but shows no error")
        if IGNORE_OUTPUT in source(cell):
            comments = [ln for ln in source(cell).splitlines()
                        if ln.strip().startswith("#") and IGNORE_OUTPUT not in ln]
            if not comments:
                problems.append(f"cell {i}: {IGNORE_OUTPUT} without a comment saying why")
    return problems


def check_size(path):
    size = pathlib.Path(path).stat().st_size
    return [] if size < MAX_BYTES else [f"{size} bytes, limit {MAX_BYTES}"]


def check_slides(nb):
    """Every cell carries metadata.slideshow.slide_type with a known value."""
    problems = []
    for i, cell in enumerate(nb.cells):
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
        if kind not in SLIDE_TYPES:
            problems.append(f"cell {i} ({cell.cell_type}): slide_type {kind!r}, expected one "
                            f"of {sorted(SLIDE_TYPES)}")
    return problems


def check_prose_figures(nb):
    """Every four-place figure quoted in markdown appears in some code cell's output."""
    printed = "\n".join(text for cell in nb.cells if cell.cell_type == "code"
                        for output in cell.get("outputs", []) for text in output_texts(output))
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for figure in sorted(set(FIGURE.findall(source(cell)))):
            if not re.search(r"(?<![\d])" + re.escape(figure) + r"(?![\d])", printed):
                problems.append(f"cell {i}: figure {figure} is quoted but no cell prints it")
    return problems


def hygiene_problems(path):
    """All static checks of one notebook file; an empty list means clean."""
    nb, problems = check_format(path)
    problems += check_size(path)
    if nb is None:
        return problems
    for check in (check_kernelspec, check_execution, check_outputs, check_slides,
                  check_prose_figures):
        problems += check(nb)
    return problems


# ------------------------------------------------------------------------- execution


def guard_cell_source():
    """A first cell that installs the network guard in the kernel (own namespace)."""
    code = (ROOT / "tests" / "netguard.py").read_text(encoding="utf-8")
    code += "\nimport builtins\nbuiltins.__course_netguard__ = install()\n"
    return f"exec(compile({code!r}, 'netguard', 'exec'), {{'__name__': 'netguard'}})"


def normalize(outputs):
    """Outputs in a comparable form: streams merged, counts and widget ids dropped."""
    out = []
    for o in outputs:
        kind = o.get("output_type")
        if kind == "stream":
            text = "".join(o.get("text", ""))
            if out and out[-1]["output_type"] == "stream" and out[-1]["name"] == o["name"]:
                out[-1]["text"] += text
            else:
                out.append({"output_type": "stream", "name": o["name"], "text": text})
        elif kind == "error":
            out.append({"output_type": "error", "ename": o.get("ename"),
                        "evalue": o.get("evalue")})
        else:
            data = copy.deepcopy(dict(o.get("data", {})))
            if WIDGET in data:
                data[WIDGET] = {k: v for k, v in data[WIDGET].items() if k != "model_id"}
            out.append({"output_type": "display", "data": data,
                        "metadata": copy.deepcopy(dict(o.get("metadata", {})))})
    return out


@dataclass
class Session:
    """What one kernel session saw: dicts cell index -> normalized outputs."""

    nb: object
    first: dict          # Run All
    second: dict         # Run All again, same kernel
    again: dict          # then every code cell once more on its own, last to first
    guard: list          # outputs of the injected guard cell (must be empty)
    blocked: str         # how many network attempts the guard refused ("0")


def run_session(path, timeout=600, env=None):
    """Execute ``path`` in one fresh kernel with the network guard installed first.

    The kernel is started as scripts/execute_notebooks.py starts it (:func:`client`)."""
    path = pathlib.Path(path)
    nb = nbformat.read(path, as_version=4)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and source(c).strip()]
    # a working copy: the guard cell first, the notebook's cells, a probe cell last
    work = copy.deepcopy(nb)
    work.cells.insert(0, nbformat.v4.new_code_cell(guard_cell_source()))
    work.cells.append(nbformat.v4.new_code_cell(
        "import builtins; print(len(builtins.__course_netguard__.blocked))"))
    kernel = client(work, path, timeout=timeout, allow_errors=True)
    kernel.reset_execution_trackers()

    def run(i):
        kernel.execute_cell(work.cells[i], i)
        return normalize(work.cells[i].outputs)

    kwargs = {"env": env} if env is not None else {}
    with kernel.setup_kernel(**kwargs):
        guard = run(0)
        first = {i: run(i + 1) for i in code}
        second = {i: run(i + 1) for i in code}
        again = {i: run(i + 1) for i in reversed(code)}
        probe = run(len(work.cells) - 1)
    blocked = "".join(o.get("text", "") for o in probe if o["output_type"] == "stream").strip()
    return Session(nb, first, second, again, guard, blocked)


def compare_runs(nb, before, after):
    """Cells (not marked NBVAL_IGNORE_OUTPUT) whose outputs differ, with a short diff."""
    problems = []
    for i in sorted(after):
        if IGNORE_OUTPUT in source(nb.cells[i]):
            continue
        if before[i] != after[i]:
            a = json.dumps(before[i], indent=1, sort_keys=True).splitlines()
            b = json.dumps(after[i], indent=1, sort_keys=True).splitlines()
            diff = "\n".join(list(difflib.unified_diff(a, b, lineterm="", n=1))[2:14])
            problems.append(f"cell {i} ({source(nb.cells[i]).splitlines()[0][:60]!r}):\n{diff}")
    return problems


def errors(nb, outputs):
    """Cells that raised although not marked NBVAL_RAISES_EXCEPTION."""
    return [f"cell {i}: {o['ename']}: {o['evalue']}" for i, outs in outputs.items()
            for o in outs if o["output_type"] == "error" and RAISES not in source(nb.cells[i])]
