"""make assignments and make grade (scripts/assignments.py): the student build holds no
answer, and hostile submissions earn nothing they did not earn, each with a note why.

The grading tests start kernels (one per submission), so the file is slow-marked.  They grade
notebook 03: two full runs (an honest and a partial submission) and short hostile ones made
here, in tmp_path, from the student notebook.
"""

from __future__ import annotations

import ast
import csv
import importlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import assignments as A  # noqa: E402

pytestmark = pytest.mark.slow

STEM = "03_judge_simulator"
CHECKS = ["check_flagless_probability", "check_output_cap_unreadable"]
TIMEOUT = 30
"""GRADE_TIMEOUT of the grading tests: a short notebook runs in a few seconds."""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("assignments")
    A.build(folder)
    return folder


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_manifest_lists_exactly_what_a_student_downloads(out: Path) -> None:
    student = out / "student"
    listed = (student / "MANIFEST.txt").read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(listed) == sorted(p.relative_to(student).as_posix() for p in _files(student))
    notebooks = [n for n in listed if n.endswith(".ipynb")]
    assert notebooks == [p.name for p in A.step_notebooks()]
    assert not any("solution" in n for n in listed)


def _answers() -> dict[str, object]:
    """Every graded answer, computed by the course's private answer functions."""
    found = {}
    for path in A.step_notebooks():
        module = importlib.import_module(f"lessonlib.exercises.step{path.stem[:2]}")
        for name, fn in module._ANSWERS.items():
            found[f"{module.__name__}.{name}"] = fn()
    return found


def _forms(value: object) -> tuple[list[str], list[str]]:
    """How an answer would be written down: (forms unlikely by chance: a figure to four
    places, a long float; short forms: a count of 10 or more, a short float like 0.55)."""
    if isinstance(value, bool) or callable(value) or isinstance(value, str):
        return [], []  # names and functions: scanned for by name
    if isinstance(value, int):
        return [], [str(value)] if abs(value) >= 10 else []
    if isinstance(value, float):
        long = [f"{value:.4f}"] + ([repr(value)] if len(repr(value).split(".")[-1]) > 4 else [])
        return long, [repr(value)] if len(repr(value).split(".")[-1]) <= 4 else []
    items = list(value.values()) if isinstance(value, dict) else value
    if isinstance(items, (tuple, list)):
        parts = [_forms(v) for v in items]
        return [f for p in parts for f in p[0]], [f for p in parts for f in p[1]]
    return [], []


KNOWN_LATER = {
    ("lessonlib.exercises.step02.check_no_rule_agreement", "0.6125", "04_two_seed_variance.ipynb"),
    ("lessonlib.exercises.step02.check_no_rule_agreement", "0.6125", "14_label_raters.ipynb"),
}
"""Answers a LATER notebook prints (an instructor hands that exercise in before it): the
always-clean labeller's agreement, the answer of 02's exercise 2, is the floor of 04 and 14."""


def _text(path: Path) -> str:
    if path.suffix == ".ipynb":  # what a student reads: the cells (ids and metadata aside)
        return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


def test_student_build_holds_no_graded_answer_and_no_answer_function(out: Path) -> None:
    """Every graded answer, computed here, is written nowhere in the student's folder: not its
    four-place figure or a long float anywhere (its own and earlier notebooks, the library,
    the checks), not a count or short float in its own notebook or check module; and no
    answer function or the answer table is named anywhere."""
    student = out / "student"
    texts = {p: _text(p) for p in _files(student)}
    manifest = json.loads((out / "grader" / "manifest.json").read_text(encoding="utf-8"))
    names = ["_ANSWERS", "_grade_number", "_grade_numbers"] + [
        n for a in manifest["assignments"].values() for n in a["answer_functions"]
    ]
    assert len(names) > 20
    for path, text in texts.items():
        for name in names:
            assert not re.search(rf"\b{re.escape(name)}\b", text), (path, name)
    answers = _answers()
    assert len(answers) == sum(len(a["exercises"]) for a in manifest["assignments"].values())
    scanned, later = 0, set()
    for where, value in answers.items():
        step = where.split(".")[2].removeprefix("step")
        own = [p for p in texts if p.name.startswith(step + "_") or p.name == f"step{step}.py"]
        long, short = _forms(value)
        for form in long:
            scanned += 1
            pattern = rf"(?<![\d.]){re.escape(form)}(?![\d])"
            for p, t in texts.items():
                if re.search(pattern, t):
                    if p.suffix == ".ipynb" and p.name[:2] > step:
                        later.add((where, form, p.name))
                    else:
                        raise AssertionError(f"{where}'s answer {form} is written in {p}")
        for form in short:
            scanned += 1
            pattern = rf"(?<![\w.]){re.escape(form)}(?![\w])"
            hits = [p.name for p in own if re.search(pattern, texts[p])]
            assert not hits, f"{where}'s answer {form} is written in {hits}"
    assert scanned >= 25
    assert later == KNOWN_LATER


def test_student_exercise_modules_compute_nothing(out: Path) -> None:
    exercises = out / "student" / "lessonlib" / "exercises"
    assert not (exercises / "_common.py").exists()
    for path in sorted(exercises.glob("step*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
        imports = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert imports <= {"_handin", "_frozen"}, (path, imports)


def test_student_checks_keep_the_public_names_and_record_only(out: Path, tmp_path: Path) -> None:
    """In the student's lessonlib each step module has the course module's public names,
    no _ANSWERS, and a check prints no PASS; with LESSONLIB_HANDIN set it records."""
    expected = {
        p.stem[:2]: importlib.import_module(f"lessonlib.exercises.step{p.stem[:2]}").__all__
        for p in A.step_notebooks()
    }
    record = tmp_path / "handin.jsonl"
    code = (
        "import importlib, json, lessonlib, os\n"
        "out = {'file': lessonlib.__file__}\n"
        f"for step in {sorted(expected)!r}:\n"
        "    m = importlib.import_module('lessonlib.exercises.step' + step)\n"
        "    out[step] = [list(m.__all__), hasattr(m, '_ANSWERS')]\n"
        "from lessonlib.exercises import step03 as ex\n"
        "out['returned'] = repr(ex.check_flagless_probability(0.5))\n"
        "print(json.dumps(out))\n"
    )
    env = {
        "PYTHONPATH": str(out / "student"),
        "LESSONLIB_HANDIN": str(record),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    *printed, last = done.stdout.strip().splitlines()
    result = json.loads(last)
    assert Path(result.pop("file")).is_relative_to(out / "student")
    assert result.pop("returned") == "None"
    assert result == {step: [names, False] for step, names in expected.items()}
    assert printed and printed[0].startswith("Handed in:") and "PASS" not in done.stdout
    assert json.loads(record.read_text())["answer"] == {"t": "float", "v": 0.5}


def test_encode_decode_round_trip() -> None:
    import lessonlib as L
    from assignment_handin import encode

    record = L.make_records()[0]
    for value in [..., None, True, 3, 0.25, "x", (1, 2.5), [1], {"a", "b"}, {"k": (1, 2)}, record]:
        back = A.decode(json.loads(json.dumps(encode(value))))
        assert back == value and type(back) is type(value)
    assert type(A.decode(encode(object()))).__name__ == "object"


# --------------------------------------------------------------------- grading, hostile


def _student(out: Path) -> nbformat.NotebookNode:
    return nbformat.read(out / "student" / f"{STEM}.ipynb", as_version=4)


def _solved(out: Path) -> nbformat.NotebookNode:
    return nbformat.read(out / "grader" / "solved" / f"{STEM}.ipynb", as_version=4)


def _exercise_index(nb: nbformat.NotebookNode, check: str, last: bool = False) -> int:
    found = [i for i, name in A.exercise_cells(nb) if name == check]
    return found[-1] if last else found[0]


def _short(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook's import cell and its exercise part only (a quick run)."""
    first = next(
        i for i, c in enumerate(nb.cells) if "import" in c.source and c.cell_type == "code"
    )
    start = next(i for i, c in enumerate(nb.cells) if c.source.startswith("## Exercises"))
    nb.cells = [nb.cells[first]] + nb.cells[start:]
    return nb


def _instead_of_check(source: str, check: str, code: str) -> str:
    """``source`` with its line calling ``check`` replaced by ``code``."""
    lines = source.splitlines()
    at = next(k for k, line in enumerate(lines) if f"ex.{check}(" in line)
    return "\n".join(lines[:at] + [code] + lines[at + 1 :])


def _hostile(out: Path) -> dict[str, nbformat.NotebookNode]:
    one, two = CHECKS
    subs = {}

    nb = _short(_solved(out))
    i = _exercise_index(nb, one)
    nb.cells.insert(
        i + 1,
        nbformat.v4.new_code_cell(
            f"ex.{one} = lambda answer: print('PASS: well done') or True\npassed = ex.{one}(0.5)"
        ),
    )
    subs["redefines"] = nb  # its exercise 1 cell records the right answer, then it cheats

    nb = _short(_solved(out))
    i = _exercise_index(nb, one)
    nb.cells[i].source = _instead_of_check(
        nb.cells[i].source, one, "print('PASS: for a record with no flag')"
    )
    subs["prints_pass"] = nb

    nb = _short(_solved(out))
    nb.cells.insert(
        _exercise_index(nb, one) + 1,
        nbformat.v4.new_code_cell(
            f"from lessonlib.exercises.step03 import _ANSWERS\n"
            f"answer = _ANSWERS['{two}']()\npassed = ex.{two}(answer)"
        ),
    )
    subs["imports_answers"] = nb

    nb = _short(_solved(out))
    nb.cells.insert(_exercise_index(nb, two), nbformat.v4.new_code_cell("while True:\n    pass"))
    subs["loops"] = nb

    nb = _short(_solved(out))
    i = _exercise_index(nb, one)
    nb.cells[i].source = _instead_of_check(
        nb.cells[i].source, one, "raise ValueError('my own error')"
    )
    subs["raises"] = nb

    nb = _short(_solved(out))
    del nb.cells[_exercise_index(nb, two)]
    subs["deletes"] = nb

    nb = _short(_solved(out))
    nb.cells.insert(_exercise_index(nb, two), nbformat.v4.new_code_cell("import os\nos._exit(3)"))
    subs["kills_kernel"] = nb

    nb = _short(_solved(out))
    nb.cells.insert(
        _exercise_index(nb, two),
        nbformat.v4.new_code_cell(
            "import sys\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "for name in [m for m in sys.modules if m.startswith('lessonlib')]:\n"
            "    del sys.modules[name]\n"
            "import lessonlib.exercises.step03 as real\n"
            f"answer = getattr(real, '_ANS' + 'WERS')['{two}']()\n"
            f"passed = ex.{two}(answer)"
        ),
    )
    del nb.cells[_exercise_index(nb, two, last=True)]
    subs["reaches_the_course"] = nb  # the course's own module, by its path, name unwritten

    nb = _solved(out)
    nb.cells.insert(0, nb.cells.pop(_exercise_index(nb, two)))
    subs["reorders"] = nb  # exercise 2 now runs before what it needs
    return subs


@pytest.fixture(scope="module")
def graded(out: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("submissions")
    nbformat.write(_solved(out), folder / "honest.ipynb")
    partial = _solved(out)
    partial.cells[_exercise_index(partial, CHECKS[1])] = _student(out).cells[
        _exercise_index(_student(out), CHECKS[1])
    ]
    nbformat.write(partial, folder / "partial.ipynb")
    for name, nb in _hostile(out).items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "bad_json.ipynb").write_text('{"cells": [', encoding="utf-8")
    (folder / "png.ipynb").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    started = time.monotonic()
    grades = A.grade(folder, TIMEOUT, STEM, out)
    seconds = time.monotonic() - started
    with open(folder / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    feedback = {p.stem: p.read_text(encoding="utf-8") for p in (folder / "feedback").glob("*.txt")}
    return {"rows": rows, "feedback": feedback, "seconds": seconds, "grades": grades}


def _row(graded: dict[str, object], name: str) -> list[str]:
    rows = graded["rows"]
    assert isinstance(rows, list)
    return next(r for r in rows if r[0] == f"{name}.ipynb")


def _note(graded: dict[str, object], name: str) -> str:
    feedback = graded["feedback"]
    assert isinstance(feedback, dict)
    return " ".join(feedback[name].split())


def test_grades_csv_has_a_header_then_one_row_per_notebook(graded: dict[str, object]) -> None:
    rows = graded["rows"]
    assert rows[0] == [
        "notebook",
        "03.1 flagless_probability",
        "03.2 output_cap_unreadable",
        "total",
    ]
    assert sorted(r[0] for r in rows[1:]) == sorted(
        f"{n}.ipynb"
        for n in [
            "honest",
            "partial",
            "redefines",
            "prints_pass",
            "imports_answers",
            "loops",
            "raises",
            "deletes",
            "kills_kernel",
            "reorders",
            "reaches_the_course",
            "bad_json",
            "png",
        ]
    )
    assert len(graded["feedback"]) == len(rows) - 1


def test_honest_gets_full_credit_and_partial_gets_part(graded: dict[str, object]) -> None:
    assert _row(graded, "honest")[1:] == ["1", "1", "2"]
    assert "PASS" in _note(graded, "honest") and "Notes" not in graded["feedback"]["honest"]
    assert _row(graded, "partial")[1:] == ["1", "0", "1"]
    assert "Not yet: fill in" in _note(graded, "partial")


@pytest.mark.parametrize(
    ("name", "points", "why"),
    [
        ("redefines", ["0", "1", "1"], "redefines this check"),
        ("prints_pass", ["0", "1", "1"], "printed a PASS line itself"),
        (
            "imports_answers",
            ["0", "0", "0"],
            "names the answer key or the grading record (_ANSWERS)",
        ),
        ("loops", ["1", "0", "1"], f"time limit of {TIMEOUT} s"),
        ("raises", ["0", "1", "1"], "raised ValueError: my own error"),
        ("deletes", ["1", "0", "1"], "its exercise cell is missing"),
        ("kills_kernel", ["1", "0", "1"], "the kernel died in cell"),
        ("reorders", ["1", "0", "1"], "not in their order"),
        ("reaches_the_course", ["1", "0", "1"], "raised ModuleNotFoundError"),
        ("bad_json", ["0", "0", "0"], "not valid JSON"),
        ("png", ["0", "0", "0"], "PNG image"),
    ],
)
def test_a_hostile_submission_earns_only_what_it_did_and_is_told_why(
    graded: dict[str, object], name: str, points: list[str], why: str
) -> None:
    if name == "reaches_the_course" and not A._can_hide():
        pytest.skip("this machine cannot cover folders in a kernel's view (unshare)")
    assert _row(graded, name)[1:] == points
    assert why in _note(graded, name)


def test_the_endless_loop_is_cut_at_the_time_limit(graded: dict[str, object]) -> None:
    """Eleven submissions, one of which never ends: the whole folder is graded within the
    limit of that one plus the others' own time (a generous bound for a loaded machine)."""
    assert "cells after it were not run" in _note(graded, "loops")
    assert graded["seconds"] < TIMEOUT + 240


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timeout", "0"], "GRADE_TIMEOUT must be a number of seconds > 0, got '0'"),
        (["--timeout", "soon"], "GRADE_TIMEOUT must be a number of seconds > 0, got 'soon'"),
        (["--assignment", "99_nothing"], "ASSIGNMENT='99_nothing' is none of: 01_records"),
        (["--missing-folder"], "SUBMISSIONS="),
    ],
)
def test_make_grade_says_what_is_wrong_with_its_arguments(
    out: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    folder = tmp_path / "nothing" if args == ["--missing-folder"] else tmp_path
    extra = [] if args == ["--missing-folder"] else args
    with pytest.raises(SystemExit) as stop:
        A.main(["grade", str(folder), "--out", str(out), *extra])
    assert message in str(stop.value)
    assert not (tmp_path / "grades.csv").exists()
