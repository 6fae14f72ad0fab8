"""Assignments from the step notebooks, and their grading (``make assignments``, ``make grade``).

``build``  writes
  build/assignments/student/   what a student downloads: the step notebooks with their
                               exercises (no outputs, no link to the solutions), a copy of
                               lessonlib whose exercise checks only look at the form of an
                               answer and record it (no answer, no answer function), the
                               package files, README.txt and MANIFEST.txt (every file listed);
  build/assignments/grader/    the grader's version: manifest.json (each assignment's
                               exercises and cells), the worked solutions, and solved/ (each
                               student notebook with the solutions' cells filled in: an
                               honest submission, for a self-check of the grading).
``grade DIR`` grades every ``*.ipynb`` in DIR: each runs in its own kernel (KERNELS of them at
once) whose lessonlib is the student's copy (so the answers cannot be imported from it), under
a time limit for the whole notebook; what its checks recorded is graded here, in this
process, by the course's own checks.  Writes DIR/grades.csv and DIR/feedback/NAME.txt.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import csv
import io
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "assignments"
STUDENT, GRADER = OUT / "student", OUT / "grader"
HANDIN = Path(__file__).with_name("assignment_handin.py")
CHECK_CALL = re.compile(r"\bex\.(check_\w+)\s*\(")
RECORD_BYTES = 20_000_000
"""Bytes of a notebook's grading record read at most (one answer is 2 MB at most)."""
DEFAULT_TIMEOUT = 300
"""Seconds a submission's whole notebook may run (GRADE_TIMEOUT); notebook 13 takes ~30 s."""
KERNELS = 2
"""Submissions run at once, each in its own kernel under its own time limit: a run mostly
waits (on its kernel's start, on its cells), so two side by side nearly halve a folder's time.
What they recorded is graded one at a time (the checks print; see _PRINTING)."""
_PRINTING = threading.Lock()
"""Held while a check's message is captured from sys.stdout, and while grade() prints."""

sys.path.insert(0, str(Path(__file__).parent))


def step_notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def exercise_cells(nb: Any) -> list[tuple[int, str]]:
    """(cell index, check name) of each exercise cell, in order."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            names = CHECK_CALL.findall(cell.source)
            if names:
                found.append((index, names[0]))
    return found


# ------------------------------------------------------------------------------- build


def _fill_message(check: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(...)
    return out.getvalue().rstrip("\n")


def _literal(where: str, value: Any) -> str:
    """Python text for a question's input constant: a plain value, a range, a ReadOnlyDict."""
    from lessonlib._frozen import ReadOnlyDict

    if isinstance(value, range):
        text = repr(value)
    elif isinstance(value, ReadOnlyDict):
        text = f"ReadOnlyDict({dict(value)!r})"
    else:
        text = repr(value)
        if ast.literal_eval(text) != value:
            raise SystemExit(f"assignments: {where} is no plain value")
    return text


def _stub_module(step: str, module: Any, checks: list[str]) -> str:
    """The student's lessonlib/exercises/stepNN.py: same public names, no answer."""
    public = list(module.__all__)
    missing = [c for c in checks if c not in public]
    if missing:
        raise SystemExit(f"assignments: {module.__name__} does not export {missing}")
    lines = [
        f'"""Notebook {step}, the assignment version of its exercise checks.',
        "",
        "A check here looks only at the form of an answer and records it; the grade is given",
        'after hand-in, by the course\'s own checks (lessonlib/exercises/_handin.py)."""',
        "",
        "from .._frozen import ReadOnlyDict  # noqa: F401 - a constant may be one",
        "from ._handin import make_check",
        "",
        f"__all__ = {public!r}",
        "",
    ]
    for name in public:
        value = getattr(module, name)
        if name in checks:
            number = checks.index(name) + 1
            fill = _fill_message(value)
            lines.append(f"{name} = make_check({step!r}, {name!r}, {number}, {fill!r})")
        elif callable(value):
            raise SystemExit(
                f"assignments: {module.__name__}.{name} is a public function "
                "no exercise cell calls; the student build cannot copy it"
            )
        else:
            lines.append(f"{name} = {_literal(module.__name__ + '.' + name, value)}")
    return "\n".join(lines) + "\n"


def _student_lessonlib(dest: Path, stubs: dict[str, str]) -> None:
    shutil.copytree(
        ROOT / "lessonlib", dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    exercises = dest / "exercises"
    for path in exercises.glob("*.py"):
        path.unlink()
    (exercises / "__init__.py").write_text(
        '"""The assignment version of the exercise checks, one module per step notebook:\n'
        "``from lessonlib.exercises import step02 as ex``.  A check records the answer; the\n"
        'grade comes after hand-in."""\n',
        encoding="utf-8",
    )
    shutil.copy(HANDIN, exercises / "_handin.py")
    for name, text in stubs.items():
        (exercises / f"{name}.py").write_text(text, encoding="utf-8")


def _student_notebook(nb: Any, stem: str, checks: list[str]) -> Any:
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.cells = [
        c for c in nb.cells if not (c.cell_type == "markdown" and "solutions/" in c.source)
    ]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    nb.metadata["lessonlib_assignment"] = {"name": stem, "exercises": checks}
    return nb


def _solved_notebook(student: Any, solutions: Any) -> Any:
    """``student`` with each exercise cell replaced by the solutions' cells for it."""
    code = [c.source for c in solutions.cells if c.cell_type == "code"]
    imports, rest = code[0], code[1:]
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for source in rest:
        current.append(source)
        names = CHECK_CALL.findall(source)
        if names:
            sections[names[0]] = current
            current = []
    nb = nbformat.from_dict(json.loads(json.dumps(student)))
    for k, (index, check) in enumerate(exercise_cells(nb)):
        head = [imports] if k == 0 else []
        nb.cells[index].source = "\n\n".join(head + sections[check])
    return nb


def _answer_function_names(module: Any) -> list[str]:
    names = []
    for fn in getattr(module, "_ANSWERS", {}).values():
        name = getattr(fn, "__name__", "")
        if name.startswith("_") and name != "<lambda>":
            names.append(name)
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is not None and wrapped.__name__.startswith("_"):
            names.append(wrapped.__name__)
    return sorted(set(names))


def build(out: Path = OUT) -> None:
    """Write ``out``/student/ and ``out``/grader/ from the step notebooks."""
    STUDENT, GRADER = out / "student", out / "grader"  # noqa: N806 - the folders' names
    if out.exists():
        shutil.rmtree(out)
    (STUDENT).mkdir(parents=True)
    (GRADER / "solutions").mkdir(parents=True)
    (GRADER / "solved").mkdir()
    manifest: dict[str, Any] = {"assignments": {}}
    stubs = {}
    for path in step_notebooks():
        stem, step = path.stem, path.stem[:2]
        nb = nbformat.read(path, as_version=4)
        checks = [name for _, name in exercise_cells(nb)]
        if not checks:
            continue
        module = import_module(f"lessonlib.exercises.step{step}")
        stubs[f"step{step}"] = _stub_module(step, module, checks)
        student = _student_notebook(nb, stem, checks)
        nbformat.write(student, STUDENT / path.name)
        solution = ROOT / "notebooks" / "solutions" / f"{stem}_solutions.ipynb"
        shutil.copy(solution, GRADER / "solutions" / solution.name)
        solved = _solved_notebook(student, nbformat.read(solution, as_version=4))
        nbformat.write(solved, GRADER / "solved" / path.name)
        manifest["assignments"][stem] = {
            "step": step,
            "module": module.__name__,
            "cells": [c.id for c in student.cells],
            "exercises": [
                {"number": k + 1, "check": name, "cell": student.cells[index].id, "points": 1}
                for k, (index, name) in enumerate(exercise_cells(student))
            ],
            "answer_functions": _answer_function_names(module),
        }
    _student_lessonlib(STUDENT / "lessonlib", stubs)
    shutil.copy(ROOT / "requirements.txt", STUDENT / "requirements.txt")
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if 'readme = "README.md"' not in project:
        raise SystemExit("assignments: pyproject.toml no longer names README.md as its readme")
    project = project.replace('readme = "README.md"', 'readme = "README.txt"')
    # a wheel of the student's folder (pip install ., not -e) needs the checks' package too
    project = project.replace(
        'packages = ["lessonlib"]', 'packages = ["lessonlib", "lessonlib.exercises"]'
    )
    (STUDENT / "pyproject.toml").write_text(project, encoding="utf-8")
    (STUDENT / "README.txt").write_text(
        "The course's exercises as an assignment.\n\n"
        "  python3 -m venv .venv && .venv/bin/pip install -r requirements.txt -e .\n"
        "  .venv/bin/jupyter lab\n\n"
        "Run each notebook top to bottom and replace every ... in its exercise cells with\n"
        "your answer.  A check here only says that your answer was filled in; the grade is\n"
        "given after you hand in the .ipynb file (keep its cells and their order).\n",
        encoding="utf-8",
    )
    files = sorted(p.relative_to(STUDENT).as_posix() for p in STUDENT.rglob("*") if p.is_file())
    (STUDENT / "MANIFEST.txt").write_text(
        "Every file of the student's assignment folder:\n"
        + "".join(f"{f}\n" for f in files + ["MANIFEST.txt"]),
        encoding="utf-8",
    )
    (GRADER / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (GRADER / "README.txt").write_text(
        "The grader's version of the assignments.  Never hand this folder out.\n"
        "  manifest.json  each assignment's cells and exercises (one point each)\n"
        "  solutions/     the worked solutions\n"
        "  solved/        the student notebooks with the solutions filled in\n"
        "Grade a folder of submitted notebooks: make grade SUBMISSIONS=dir\n",
        encoding="utf-8",
    )
    count = sum(len(a["exercises"]) for a in manifest["assignments"].values())
    print(
        f"assignments: {len(manifest['assignments'])} notebooks, {count} exercises -> "
        f"{STUDENT}/ ({len(files) + 1} files), {GRADER}/"
    )


# ------------------------------------------------------------------------------- grade


@dataclass
class Run:
    """What running one submission left: errors by cell, where time ran out, the records."""

    errors: dict[int, str] = field(default_factory=dict)
    timed_out: int | None = None
    died: int | None = None
    printed_pass: bool = False
    records: dict[str, Any] = field(default_factory=dict)
    broken_records: int = 0
    seconds: float = 0.0


def _kill_group(client: Any) -> None:
    provisioner = getattr(getattr(client, "km", None), "provisioner", None)
    pgid = getattr(provisioner, "pgid", None)
    if pgid:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _can_hide() -> bool:
    """Whether this machine lets an unprivileged process cover folders in its own view of the
    files (a user and mount namespace: util-linux's unshare)."""
    if not shutil.which("unshare"):
        return False
    empty = tempfile.mkdtemp(prefix="grade-probe-")
    try:
        probe = [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            f"mount --bind {shlex.quote(empty)} {shlex.quote(empty)}",
        ]
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.rmdir(empty)


def _kernel_manager(hidden: list[Path], empty: Path) -> Any:
    """An AsyncKernelManager (nbclient's own kind: its time limits need it) whose kernel
    starts with the ``hidden`` folders covered by ``empty``."""
    from jupyter_client.manager import AsyncKernelManager

    class HidingKernelManager(AsyncKernelManager):  # type: ignore[misc]
        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            cmd = super().format_kernel_cmd(extra_arguments)
            mounts = " && ".join(
                f"mount --bind {shlex.quote(str(empty))} {shlex.quote(str(h))}" for h in hidden
            )
            script = f'{mounts} && exec "$@"' if mounts else 'exec "$@"'
            return [
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "sh",
                "-c",
                script,
                "kernel",
                *cmd,
            ]

    return HidingKernelManager


HIDE = None
"""Whether kernels run with the answer folders covered (decided once, by _can_hide)."""


def hidden_folders(student: Path, submissions: Path | None) -> list[Path]:
    """What a submission's kernel must not read: the course's checks and answer functions,
    the worked solutions, the grader's folder and the other submissions."""
    grader = student.parent / "grader"
    found = [
        ROOT / "lessonlib" / "exercises",
        ROOT / "notebooks" / "solutions",
        grader,
        OUT / "grader",
    ]
    if submissions is not None:
        found.append(submissions)
    unique = []
    for path in found:
        if path.is_dir() and path.resolve() not in [u.resolve() for u in unique]:
            unique.append(path)
    return unique


def execute(
    nb: Any, timeout: float, student: Path = STUDENT, submissions: Path | None = None
) -> Run:
    """Run ``nb`` in a fresh kernel that imports the student's lessonlib; ``timeout`` s in all.
    Where the machine allows it, the kernel sees the answer folders empty (hidden_folders)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    global HIDE
    if HIDE is None:
        HIDE = _can_hide()

    run = Run()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        handin = Path(tmp) / "handin.jsonl"
        env = dict(os.environ)
        env.pop("LESSONLIB_HANDIN", None)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(student)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        )
        env["LESSONLIB_HANDIN"] = str(handin)
        env["MPLBACKEND"] = "Agg"
        extra = {}
        if HIDE:
            empty = Path(tmp) / "hidden"
            empty.mkdir()
            extra["kernel_manager_class"] = _kernel_manager(
                hidden_folders(student, submissions), empty
            )
        client = NotebookClient(
            nb,
            timeout=int(math.ceil(timeout)),
            allow_errors=True,
            kernel_name="python3",
            record_timing=False,
            startup_timeout=120,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": tmp}},
            **extra,
        )
        deadline = start + timeout
        try:
            with client.setup_kernel(
                env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            ):
                for index, cell in enumerate(nb.cells):
                    if cell.cell_type != "code":
                        continue
                    left = deadline - time.monotonic()
                    if left <= 0:
                        run.timed_out = index
                        break
                    client.timeout = max(1, int(math.ceil(left)))
                    try:
                        client.execute_cell(cell, index)
                    except CellTimeoutError:
                        run.timed_out = index
                        break
                    except DeadKernelError:
                        run.died = index
                        break
        finally:
            _kill_group(client)
        for index, cell in enumerate(nb.cells):
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                if output.output_type == "error":
                    run.errors[index] = f"{output.ename}: {output.evalue}"[:200]
                text = output.get("text", "") or output.get("data", {}).get("text/plain", "")
                if re.search(r"^\s*PASS\b", str(text), re.M):
                    run.printed_pass = True
        if handin.exists():
            with open(handin, "rb") as record:  # at most RECORD_BYTES: a notebook may write it
                text = record.read(RECORD_BYTES).decode("utf-8", errors="replace")
            for line in text.splitlines():
                try:
                    item = json.loads(line)
                    run.records[str(item["check"])] = item["answer"]
                except Exception:  # not JSON, too deep, no check: not an answer
                    run.broken_records += 1
    run.seconds = time.monotonic() - start
    return run


def decode(data: Any) -> Any:
    """An answer recorded by the student's check, made again as a Python value."""
    from assignment_handin import encode
    from lessonlib.records import Flags, Record

    kind, value = data.get("t"), data.get("v")
    if kind == "ellipsis":
        return ...
    if kind == "none":
        return None
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "str":
        return str(value)
    if kind in ("tuple", "list", "set", "frozenset"):
        items = [decode(v) for v in value]
        return {"tuple": tuple, "list": list, "set": set, "frozenset": frozenset}[kind](items)
    if kind == "dict":
        return {decode(k): decode(v) for k, v in value}
    if kind == "record":
        features = decode(value["features"])
        if value.get("flags_kind") == "Flags":
            features = Flags(features)
        return Record(
            no=decode(value["no"]),
            cls=decode(value["cls"]),
            source=decode(value["source"]),
            features=features,
            text=decode(value["text"]),
            length=decode(value["length"]),
        )
    if kind == "function":
        table = {json.dumps(args, sort_keys=True): reply for args, reply in value}

        def replay(*args: Any) -> Any:
            key = json.dumps(encode(list(args)), sort_keys=True)
            if key not in table:
                raise LookupError("the function was not called this way when the notebook ran")
            reply = table[key]
            if reply.get("t") == "raises":
                raise RuntimeError(reply.get("v"))
            return decode(reply)

        return replay
    return type(str(data.get("type", "object")), (), {})()


def _scan(nb: Any, answer_functions: list[str]) -> tuple[list[str], set[str]]:
    """Markers of reaching for the answer key, and the checks the code redefines."""
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    key = [
        m
        for m in ["_ANSWERS", "LESSONLIB_HANDIN", *answer_functions]
        if re.search(rf"(?<![\w]){re.escape(m)}(?![\w])", source)
    ]
    redefined: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(
                "\n".join(
                    line
                    for line in cell.source.splitlines()
                    if not line.lstrip().startswith(("%", "!"))
                )
            )
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("check_"):
                    redefined.add(node.name)
            targets = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                for t in bound:
                    if isinstance(t, ast.Attribute) and t.attr.startswith("check_"):
                        redefined.add(t.attr)
                    if isinstance(t, ast.Name) and (t.id.startswith("check_") or t.id == "ex"):
                        redefined.add(t.id)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
            ):
                redefined.add("setattr")
    return key, redefined


def _read_submission(path: Path) -> tuple[Any, str]:
    raw = path.read_bytes()
    if raw.startswith(b"\x89PNG"):
        return None, "not a notebook: the file is a PNG image, not notebook JSON"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not a notebook: the file is not text (not UTF-8), so not notebook JSON"
    try:
        data = json.loads(text)
    except ValueError as error:
        return None, f"not a notebook: the file is not valid JSON ({error})"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
        nbformat.validate(nb)
    except Exception as error:  # nbformat raises several kinds for a bad notebook
        first = str(error).strip().splitlines()[0][:160] if str(error).strip() else ""
        return None, f"not a notebook: JSON, but not a valid notebook ({first})"
    return nb, ""


@dataclass
class Grade:
    name: str
    assignment: str | None
    points: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _assignment_of(nb: Any, path: Path, manifest: dict[str, Any], forced: str | None) -> str:
    names = manifest["assignments"]
    if forced:
        return forced
    meta = nb.metadata.get("lessonlib_assignment", {}) if nb is not None else {}
    name = meta.get("name") if isinstance(meta, dict) else None
    if name in names:
        return str(name)
    for stem in names:
        if path.name.startswith(stem[:3]) or stem in path.name:
            return stem
    return ""


def grade_one(
    path: Path,
    manifest: dict[str, Any],
    timeout: float,
    forced: str | None = None,
    student: Path = STUDENT,
) -> Grade:
    grade = Grade(path.name, None)
    nb, problem = _read_submission(path)
    if nb is None:
        grade.notes.append(problem + "; nothing was run and no exercise earns a point.")
        name = forced or _assignment_of(None, path, manifest, None)
        if name:
            grade.assignment = name
            for ex in manifest["assignments"][name]["exercises"]:
                grade.points[ex["check"]] = 0
                grade.lines.append(
                    f"Exercise {ex['number']} ({ex['check']}): 0 of "
                    f"{ex['points']} - the file is not a notebook."
                )
        return grade
    name = _assignment_of(nb, path, manifest, forced)
    if not name:
        grade.notes.append(
            "cannot tell which assignment this notebook is (no assignment "
            "metadata, no NN_ file name); nothing was graded."
        )
        return grade
    grade.assignment = name
    spec = manifest["assignments"][name]
    module = import_module(spec["module"])
    ids = [c.get("id") for c in nb.cells]
    missing = [i for i in spec["cells"] if i not in ids]
    if missing:
        grade.notes.append(
            f"{len(missing)} of the assignment's {len(spec['cells'])} cells are "
            "missing (deleted or replaced)."
        )
    present = [i for i in ids if i in spec["cells"]]
    if present != [i for i in spec["cells"] if i in present]:
        grade.notes.append(
            "the assignment's cells are not in their order: the notebook was "
            "run in the order handed in."
        )
    key, redefined = _scan(nb, spec["answer_functions"])
    if key:
        grade.notes.append(
            f"the code names the answer key or the grading record "
            f"({', '.join(key)}): no exercise earns a point."
        )
    run = execute(nb, timeout, student, path.parent)
    if run.timed_out is not None:
        grade.notes.append(
            f"stopped after the time limit of {timeout:g} s (GRADE_TIMEOUT) while "
            f"cell {run.timed_out + 1} ran; cells after it were not run."
        )
    if run.died is not None:
        grade.notes.append(f"the kernel died in cell {run.died + 1}; cells after it were not run.")
    for index, error in sorted(run.errors.items()):
        grade.notes.append(f"cell {index + 1} raised {error}")
    if run.printed_pass:
        grade.notes.append(
            "the notebook printed a PASS line itself: printed text is never "
            "graded; only the grader's checks give points."
        )
    if "ex" in redefined or "setattr" in redefined:
        grade.notes.append(
            "the code rebinds ex or sets attributes with setattr: checks it "
            "replaced record nothing."
        )
    cell_index = {c.get("id"): k for k, c in enumerate(nb.cells)}
    for ex in spec["exercises"]:
        check, number = ex["check"], ex["number"]
        head = f"Exercise {number} ({check})"
        grade.points[check] = 0
        if key:
            grade.lines.append(f"{head}: 0 of {ex['points']} - the code names the answer key.")
            continue
        if check in redefined:
            grade.lines.append(
                f"{head}: 0 of {ex['points']} - the notebook redefines this "
                "check, so its answer is not graded."
            )
            continue
        if check not in run.records:
            where = cell_index.get(ex["cell"])
            if where is None:
                why = "its exercise cell is missing"
            elif where in run.errors:
                why = f"its cell raised {run.errors[where]}"
            elif run.timed_out is not None and where >= run.timed_out:
                why = "the time limit ran out before its cell"
            elif run.died is not None and where >= run.died:
                why = "the kernel died before its cell"
            else:
                why = "its check was not called (replaced or the call removed)"
            grade.lines.append(f"{head}: 0 of {ex['points']} - no answer was recorded: {why}.")
            continue
        out = io.StringIO()
        try:
            answer = decode(run.records[check])
            with _PRINTING, contextlib.redirect_stdout(out):
                passed = getattr(module, check)(answer) is True
        except Exception as error:  # a recorded answer the check cannot take
            passed = False
            out.write(f"Not yet: the answer could not be graded ({type(error).__name__}).")
        message = " ".join(out.getvalue().split())
        grade.points[check] = ex["points"] if passed else 0
        grade.lines.append(f"{head}: {grade.points[check]} of {ex['points']} - {message}")
    if run.broken_records:
        grade.notes.append(f"{run.broken_records} lines of the grading record were not answers.")
    return grade


def _close_loop() -> None:
    """Cancel what a stopped kernel's client left pending in this thread's event loop (nbclient
    runs one a thread), then close it, so none is reported destroyed when the thread ends."""
    from jupyter_core.utils import ensure_event_loop

    loop = ensure_event_loop()
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()


def _column(spec_name: str, ex: dict[str, Any]) -> str:
    return f"{spec_name[:2]}.{ex['number']} {ex['check'].removeprefix('check_')}"


def grade(folder: Path, timeout: float, forced: str | None = None, out: Path = OUT) -> list[Grade]:
    """Grade every ``*.ipynb`` of ``folder``: grades.csv and feedback/NAME.txt there."""
    manifest_path = out / "grader" / "manifest.json"
    if not manifest_path.exists():
        raise SystemExit("make grade: run make assignments first (no grader manifest)")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if forced and forced not in manifest["assignments"]:
        raise SystemExit(
            f"make grade: ASSIGNMENT={forced!r} is none of: " + ", ".join(manifest["assignments"])
        )
    if not folder.is_dir():
        raise SystemExit(f"make grade: SUBMISSIONS={str(folder)!r} is not a folder")
    paths = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    grades = []
    if paths and not _can_hide():
        print(
            "make grade: WARNING this machine cannot give a kernel its own view of the files "
            "(unshare), so a submission could read the course's answer files and the other "
            "submissions; grade hostile work as a user who cannot read them"
        )
    student = out / "student"

    def one(path: Path) -> tuple[Grade, float]:
        started = time.monotonic()
        try:
            g = grade_one(path, manifest, timeout, forced, student)
        finally:
            _close_loop()
        return g, time.monotonic() - started

    with ThreadPoolExecutor(max_workers=KERNELS) as pool:
        for path, (g, seconds) in zip(paths, pool.map(one, paths)):
            grades.append(g)
            with _PRINTING:
                print(
                    f"graded {path.name}: {sum(g.points.values())} of {len(g.points)} "
                    f"({seconds:.1f} s)"
                )
    columns: list[tuple[str, str]] = []  # (header, check) in assignment order
    for name, spec in manifest["assignments"].items():
        if any(g.assignment == name for g in grades):
            columns += [(_column(name, ex), ex["check"]) for ex in spec["exercises"]]
    with open(folder / "grades.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["notebook"] + [h for h, _ in columns] + ["total"])
        for g in grades:
            writer.writerow(
                [g.name] + [g.points.get(c, "") for _, c in columns] + [sum(g.points.values())]
            )
    feedback = folder / "feedback"
    feedback.mkdir(exist_ok=True)
    for g in grades:
        earned = sum(g.points.values())
        text = [
            f"Feedback on {g.name}" + (f" (assignment {g.assignment})" if g.assignment else ""),
            f"Score: {earned} of {len(g.points)}",
            "",
        ] + g.lines
        if g.notes:
            text += ["", "Notes:"] + [f"- {n}" for n in g.notes]
        (feedback / f"{Path(g.name).stem}.txt").write_text(
            "\n".join(text) + "\n", encoding="utf-8"
        )
    print(f"wrote {folder / 'grades.csv'} and {len(grades)} feedback files in {feedback}")
    return grades


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise SystemExit(
            f"make grade: GRADE_TIMEOUT must be a number of seconds > 0, got {text!r}"
        )
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="write build/assignments/student/ and grader/")
    g = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    g.add_argument("folder", type=Path)
    g.add_argument("--timeout", default=os.environ.get("GRADE_TIMEOUT") or str(DEFAULT_TIMEOUT))
    g.add_argument("--assignment", default=os.environ.get("ASSIGNMENT") or None)
    g.add_argument("--out", type=Path, default=OUT, help="the folder make assignments wrote")
    args = parser.parse_args(argv)
    if args.command == "build":
        build()
    else:
        grade(args.folder, _seconds(args.timeout), args.assignment, args.out)


if __name__ == "__main__":
    main()
