"""Checkers for the course notebooks, used by the reliability tests.

Static checks (no kernel): :func:`hygiene_problems` runs them all and returns
a list of problems (empty = clean).  Execution helpers, used by the pytest
plugin tests/nbsession.py that runs them in nbval's kernel: :func:`run_code`
runs one cell and returns its outputs, noticing a dead kernel within a second
(:class:`KernelDied`); :func:`compare_runs` lists the cells whose output
changed between two runs; :func:`figures_without_png` the figures stored
without a picture.

Every checker is tested on small synthetic notebooks (tests/test_nb_hygiene.py,
tests/test_nb_idempotence.py), so each is shown able to fail.
"""

from __future__ import annotations

import copy
import difflib
import json
import pathlib
import queue
import re
import sys
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from execute_notebooks import notebooks  # noqa: E402,F401  (used by tests)

MAX_BYTES = 1_000_000
SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}
IGNORE_OUTPUT = "NBVAL_IGNORE_OUTPUT"
RAISES = "NBVAL_RAISES_EXCEPTION"
WIDGET = "application/vnd.jupyter.widget-view+json"
PNG = "image/png"
OUTPUT_WAIT = 10  # seconds to wait for a finished cell's outputs

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
TIMING = re.compile(
    "|".join(
        [
            r"\bWall time\b",
            r"\bCPU times\b",
            r"\bper loop\b",
            r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms)\b",
            r"\b\d+(?:\.\d+)?\s?(?:s|sec|secs|seconds)\b(?![-'])",
            r"\b\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}",  # time stamps
            r"\b\d{1,2}:\d{2}:\d{2}\b",
        ]
    )
)
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
    except Exception as exc:  # invalid JSON or not a notebook
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
        problems.append(
            f"execution counts {counts}: expected 1..{len(counts)} in order (one fresh Run All)"
        )
    return problems


def _ignored_with_reason(cell):
    """Whether a cell is marked NBVAL_IGNORE_OUTPUT with a comment saying why."""
    return IGNORE_OUTPUT in source(cell) and any(
        ln.strip().startswith("#") and IGNORE_OUTPUT not in ln for ln in source(cell).splitlines()
    )


def check_outputs(nb):
    """No error (unless marked), no stderr, no memory address, no timing in any output."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        raises = RAISES in source(cell)
        timed = _ignored_with_reason(cell)  # a measured time, marked as such, may be shown
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error" and not raises:
                problems.append(
                    f"cell {i}: error output {output.get('ename')}: {output.get('evalue')}"
                )
            if kind == "stream" and output.get("name") == "stderr":
                err = "".join(output.get("text"))
                problems.append(f"cell {i}: writes to stderr: {err[:80]!r}")
            for text in output_texts(output):
                hit = ADDRESS.search(text)
                if hit:
                    problems.append(f"cell {i}: memory address {hit.group()} in output")
            for text in output_texts(output, {"text/plain", "text/markdown"}):
                hit = None if timed else TIMING.search(text)
                if hit:
                    problems.append(f"cell {i}: timing or time stamp {hit.group()!r} in output")
        if raises and not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            problems.append(f"cell {i}: marked {RAISES} but shows no error")
        if IGNORE_OUTPUT in source(cell):
            comments = [
                ln
                for ln in source(cell).splitlines()
                if ln.strip().startswith("#") and IGNORE_OUTPUT not in ln
            ]
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
            problems.append(
                f"cell {i} ({cell.cell_type}): slide_type {kind!r}, expected one "
                f"of {sorted(SLIDE_TYPES)}"
            )
    return problems


def check_prose_figures(nb):
    """Every four-place figure quoted in markdown appears in some code cell's output."""
    printed = "\n".join(
        text
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        for text in output_texts(output)
    )
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for figure in sorted(set(FIGURE.findall(source(cell)))):
            if not re.search(r"(?<![\d])" + re.escape(figure) + r"(?![\d])", printed):
                problems.append(f"cell {i}: figure {figure} is quoted but no cell prints it")
    return problems


def check_figures(nb):
    """Every stored figure carries its picture (image/png), not only ``<Figure size ...>``."""
    outputs = {
        i: normalize(c.get("outputs", [])) for i, c in enumerate(nb.cells) if c.cell_type == "code"
    }
    return figures_without_png(nb, outputs)


def figures_without_png(nb, outputs):
    """Cells (dict cell -> normalized outputs) showing a matplotlib figure with no image/png.

    nbval compares text only, so a kernel that renders no picture (matplotlib
    older than 3.9 with this ipykernel: the first figure of a fresh kernel) would
    pass it; this check does not."""
    problems = []
    for i, outs in sorted(outputs.items()):
        for o in outs:
            text = "".join(o.get("data", {}).get("text/plain", ""))
            if text.startswith("<Figure size") and PNG not in o["data"]:
                problems.append(
                    f"cell {i} ({source(nb.cells[i]).splitlines()[0][:60]!r}): "
                    f"a figure with no {PNG} output, only {text.strip()!r}"
                )
    return problems


def hygiene_problems(path):
    """All static checks of one notebook file; an empty list means clean."""
    nb, problems = check_format(path)
    problems += check_size(path)
    if nb is None:
        return problems
    for check in (
        check_kernelspec,
        check_execution,
        check_outputs,
        check_slides,
        check_prose_figures,
        check_figures,
    ):
        problems += check(nb)
    return problems


# ------------------------------------------------------------------------- execution


def guard_cell_source():
    """A first cell that installs the network guard in the kernel (own namespace)."""
    code = (ROOT / "tests" / "netguard.py").read_text(encoding="utf-8")
    code += "\nimport builtins\nbuiltins.__course_netguard__ = install()\n"
    return f"exec(compile({code!r}, 'netguard', 'exec'), {{'__name__': 'netguard'}})"


class KernelDied(RuntimeError):
    """The kernel process ended while a cell was running."""


def kernel_death(km):
    """'the kernel died ...' with how its process ended (signal or exit status)."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    code = process.poll() if process is not None else None
    how = (
        f"killed by signal {-code}"
        if code is not None and code < 0
        else f"exit status {code}"
        if code is not None
        else "exit status unknown"
    )
    return f"the kernel died while running this cell ({how})"


def await_reply(km, kc, msg_id, timeout):
    """The shell reply to ``msg_id``; raises queue.Empty after ``timeout`` seconds, and
    :class:`KernelDied` within about a second of the kernel's process ending."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
        if wait <= 0:
            raise queue.Empty
        try:
            msg = kc.get_shell_msg(timeout=wait)
        except queue.Empty:
            if not km.is_alive():
                raise KernelDied(kernel_death(km)) from None
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            if msg["content"]["status"] == "aborted":
                raise RuntimeError("the kernel aborted the execution request")
            return msg


def run_code(km, kc, code, timeout):
    """Run ``code`` in the kernel as a notebook cell; its outputs as nbformat-like dicts."""
    msg_id = kc.execute(code, store_history=False, allow_stdin=False, stop_on_error=False)
    try:
        await_reply(km, kc, msg_id, timeout)
    except queue.Empty:
        km.interrupt_kernel()
        raise TimeoutError(f"the cell ran longer than {timeout:g} s") from None
    outputs = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=OUTPUT_WAIT)
        except queue.Empty:
            raise RuntimeError(
                f"the kernel sent no end of output within {OUTPUT_WAIT} s of finishing the cell"
            ) from None
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            return outputs
        if kind == "stream":
            outputs.append(
                nbformat.NotebookNode(output_type=kind, name=content["name"], text=content["text"])
            )
        elif kind in ("display_data", "execute_result"):
            outputs.append(
                nbformat.NotebookNode(
                    output_type=kind, data=content["data"], metadata=content["metadata"]
                )
            )
        elif kind == "error":
            outputs.append(
                nbformat.NotebookNode(
                    output_type=kind, ename=content["ename"], evalue=content["evalue"]
                )
            )


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
            out.append(
                {"output_type": "error", "ename": o.get("ename"), "evalue": o.get("evalue")}
            )
        else:
            data = copy.deepcopy(dict(o.get("data", {})))
            if WIDGET in data:
                data[WIDGET] = {k: v for k, v in data[WIDGET].items() if k != "model_id"}
            out.append(
                {
                    "output_type": "display",
                    "data": data,
                    "metadata": copy.deepcopy(dict(o.get("metadata", {}))),
                }
            )
    return out


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
