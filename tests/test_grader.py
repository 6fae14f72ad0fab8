"""One grader of numeric answers: no exercise check grades a number by hand (issue 28).

Every check whose answer is a number, a pair or a dict of numbers hands it to
``lessonlib/exercises/_common.py`` (``_grade_number``, ``_grade_numbers``): the placeholder,
the wrong type, the precision, the slips and the hints live there once.  This test reads
the source of every ``stepNN.py`` (new ones included) and fails on the hand-grading steps
a check module would copy: a closeness test (``math.isclose``, ``abs(x - y) <= tol``, a
``round`` compared), a type test of a number (``isinstance(x, (int, float))``, ``numbers``,
``is_integer``, ``isfinite``), the grader's own parts imported (``_near``, ``_is_number``,
``_is_whole``), or a check comparing its answer parameter itself (``answer == truth``,
``answer[0] < 0``; a name answer made into a set is not a number).  It is shown able to
fail on a small hand-grading module first.
"""

import ast

import pytest

from conftest import ROOT

EXERCISES = ROOT / "lessonlib" / "exercises"
STEPS = sorted(EXERCISES.glob("step[0-9][0-9].py"))

GRADER_PARTS = {"_near", "_is_number", "_is_whole", "_of_kind", "_row", "_pair"}
"""The pieces of the shared grader: a step module that imports one is grading by hand."""
CLOSENESS = {"isclose", "allclose", "approx", "isfinite", "isnan", "isinf", "is_integer"}
NUMBER_TYPES = {"int", "float", "complex", "Number", "Real", "Integral", "Rational", "number"}
COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)


def _name(node):
    """The last name of a call's function or an attribute: ``math.isclose`` -> 'isclose'."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _calls(node, name):
    return any(isinstance(n, ast.Call) and _name(n.func) == name for n in ast.walk(node))


def _abs_of_difference(node):
    return any(
        isinstance(n, ast.Call)
        and _name(n.func) == "abs"
        and n.args
        and isinstance(n.args[0], ast.BinOp)
        and isinstance(n.args[0].op, (ast.Sub, ast.Add))
        for n in ast.walk(node)
    )


def _is_the_answer(node, answer):
    """``node`` is the answer itself, an item of it or arithmetic on it (``answer``,
    ``answer[k]``, ``answer / 100``), not something a call made of it (``set(answer)``)."""
    if isinstance(node, ast.Name):
        return node.id == answer
    if isinstance(node, ast.Subscript):
        return _is_the_answer(node.value, answer)
    if isinstance(node, ast.BinOp):
        return _is_the_answer(node.left, answer) or _is_the_answer(node.right, answer)
    if isinstance(node, ast.UnaryOp):
        return _is_the_answer(node.operand, answer)
    return False


def hand_grading(source):
    """(line, what) for every hand-grading step in a check module's ``source``."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_common"):
            for alias in node.names:
                if alias.name in GRADER_PARTS:
                    found.append((node.lineno, f"imports the grader's {alias.name}"))
        elif isinstance(node, ast.Call) and _name(node.func) in CLOSENESS:
            found.append((node.lineno, f"calls {_name(node.func)}"))
        elif isinstance(node, ast.Call) and _name(node.func) == "isinstance":
            kinds = {_name(n) for n in ast.walk(node.args[1])} if len(node.args) > 1 else set()
            if kinds & NUMBER_TYPES or any(
                isinstance(n, ast.Name) and n.id == "numbers" for n in ast.walk(node)
            ):
                found.append((node.lineno, "tests whether a value is a number"))
        elif isinstance(node, ast.Compare):
            if _abs_of_difference(node):
                found.append((node.lineno, "compares abs(x - y) with a tolerance"))
            elif _calls(node, "round"):
                found.append((node.lineno, "compares a rounded number"))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("check_")):
            continue
        if not node.args.args:
            continue
        answer = node.args.args[0].arg
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Compare)
                and any(isinstance(op, COMPARE) for op in sub.ops)
                and any(_is_the_answer(side, answer) for side in [sub.left, *sub.comparators])
            ):
                found.append((sub.lineno, f"{node.name} compares its answer {answer!r} itself"))
    return sorted(set(found))


HAND_GRADED = """
import math
from ._common import _is_number, _say

def check_share(answer):
    if not isinstance(answer, (int, float)):
        return _say(False, "give a number")
    if math.isclose(answer, 0.25, abs_tol=1e-4):
        return _say(True, "right")
    if abs(answer - 0.75) <= 5e-4:
        return _say(False, "the other side")
    if round(answer, 2) == 0.3:
        return _say(False, "two decimals")
    if -answer > 0 or answer[0] > 1:
        return _say(False, "a share is not negative")
    return _say(False, "not yet")

def check_count(n):
    if n == _count():
        return _say(True, "right")
    return _say(False, "not yet")
"""

GRADED = """
from ._common import _grade_number, _grade_numbers, _say

def check_share(answer):
    return _grade_number(answer, _share, fill="fill in", kind="a share", passed="right",
                         hint="not yet", places=3, share=True, slips=[(0.75, "other side")])

def check_band(answer):
    return _grade_numbers(answer, _band, fill="fill in", kind="(low, high)", passed="right",
                          hint="not yet", unordered="low first")

def check_rule(rules):
    if rules is ...:
        return _say(False, "fill in")
    return _say(set(rules) == {"a"}, "names")

def _share():
    return round(abs(0.25 - 0.0), 4)
"""


def test_a_check_that_grades_numbers_by_hand_is_found():
    found = hand_grading(HAND_GRADED)
    what = [w for _, w in found]
    assert "imports the grader's _is_number" in what
    assert "tests whether a value is a number" in what
    assert "calls isclose" in what
    assert "compares abs(x - y) with a tolerance" in what
    assert "compares a rounded number" in what
    assert "check_share compares its answer 'answer' itself" in what
    assert "check_count compares its answer 'n' itself" in what
    # the same questions handed to the shared grader: nothing found (names, a computed answer)
    assert hand_grading(GRADED) == []


def test_the_step_modules_are_found():
    assert [p.stem for p in STEPS][:3] == ["step01", "step02", "step03"]
    assert len(STEPS) >= 15


@pytest.mark.parametrize("path", STEPS, ids=lambda p: p.stem)
def test_no_check_module_grades_a_number_by_hand(path):
    found = hand_grading(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} grades by hand; use _common._grade_number(s):\n" + "\n".join(
        f"line {n}: {what}" for n, what in found
    )
