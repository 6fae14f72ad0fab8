"""No answer one Tab away (issue 30): in every exercise module a student imports as ``ex``
(``lessonlib/exercises/stepNN.py``, every module found on disk), no public name holds or
returns an answer.

For each module the right answers come from its private registry ``_ANSWERS`` (check name ->
the function computing the answer).  Every public name (``ex.<Tab>``: no leading underscore,
imported names included) is read; every public function that can be called without
arguments is called, and a ``check_*`` function is called with the placeholder ``...``.  Each
value so found, and each public function itself (an answer may be a function, such as an
ask), must neither equal an answer nor pass that answer's check.

The convention (CONTRIBUTING.md): public are the ``check_*`` functions and the input
constants a question names; the answers are computed by private functions.
"""

import contextlib
import importlib
import inspect
import io
import math
import numbers
import types
import typing

import pytest

from conftest import ROOT

EXERCISES = ROOT / "lessonlib" / "exercises"
MODULES = sorted(p.stem for p in EXERCISES.glob("step[0-9][0-9].py"))


def load(name):
    return importlib.import_module(f"lessonlib.exercises.{name}")


def quiet(function, *args):
    """``function(*args)`` with its printed message swallowed."""
    with contextlib.redirect_stdout(io.StringIO()):
        return function(*args)


def plain(value):
    """``value`` in a form that compares by content: numbers as floats (bools stay bools),
    sequences as tuples, sets as frozensets, mappings as sorted item tuples."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, dict) or hasattr(value, "items") and hasattr(value, "keys"):
        try:
            return tuple(sorted((repr(k), plain(v)) for k, v in value.items()))
        except Exception:
            return value
    if isinstance(value, (set, frozenset)):
        return frozenset(plain(v) for v in value)
    if isinstance(value, (list, tuple, range)):
        return tuple(plain(v) for v in value)
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # a numpy array or scalar
        return plain(value.tolist())
    return value


def same(a, b):
    """``a`` and ``b`` hold the same answer (numbers to 1e-9)."""
    a, b = plain(a), plain(b)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if callable(a) or callable(b):
        return False  # a function answer is caught by its check, not by equality
    try:
        return bool(a == b)
    except Exception:
        return False


def callable_without_arguments(value):
    if isinstance(value, type) or not callable(value):
        return False
    try:
        inspect.signature(value).bind()
    except (TypeError, ValueError):
        return False
    return True


def public_values(module):
    """[(where, value)]: every public name's value, what each public function returns when
    called without arguments, and what each check returns on the placeholder."""
    found = []
    for name in sorted(n for n in dir(module) if not n.startswith("_")):
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            continue
        found.append((name, value))
        if name in module._ANSWERS:
            result = quiet(value, ...)
            assert isinstance(result, bool), f"{name}(...) returned {result!r}, not a bool"
        elif callable_without_arguments(value):
            try:
                found.append((f"{name}()", quiet(value)))
            except (TypeError, ValueError):
                pass  # it needs input it cannot default: it returns nothing here
    return found


def leaks(module):
    """[(where, check name, how)]: public values that are an answer or pass its check."""
    answers = module._ANSWERS
    truths = {check: compute() for check, compute in answers.items()}
    found = []
    for where, value in public_values(module):
        for check, truth in truths.items():
            if same(value, truth):
                found.append((where, check, "equals the answer"))
            elif quiet(getattr(module, check), value) is True:
                found.append((where, check, "passes the check"))
    return found


def stray_names(module):
    """Public names of ``module`` outside its ``__all__`` (the checks and the input constants
    a question names), such as a library function it grades with imported under its own name.
    The language's own are left: modules (``functools``), ``annotations`` (the __future__
    import) and typing's names (``Any``, ``Sequence``): none holds a course value."""
    listed = set(getattr(module, "__all__", ()))
    found = []
    for name in sorted(n for n in dir(module) if not n.startswith("_") and n not in listed):
        value = getattr(module, name)
        if isinstance(value, types.ModuleType) or name == "annotations":
            continue
        if getattr(value, "__module__", None) in ("typing", "collections.abc"):
            continue
        found.append(name)
    return found


def fake_module(**public):
    """A tiny exercise module: one check whose answer is 42, plus ``public`` names."""
    module = types.ModuleType("fake_step")

    def _answer():
        return 42

    def check_count(answer):  # also accepts an object whose .value is the answer
        passed = getattr(answer, "value", answer) == 42
        print("PASS" if passed else "Not yet")
        return passed

    module.check_count = check_count
    module._answer = _answer
    module._ANSWERS = {"check_count": _answer}
    for name, value in public.items():
        setattr(module, name, value)
    return module


def test_a_public_answer_helper_is_found():
    def count_helper():
        return 42.0

    assert leaks(fake_module(count_helper=count_helper)) == [
        ("count_helper()", "check_count", "equals the answer")
    ]


def test_a_public_constant_that_passes_the_check_is_found():
    trick = types.SimpleNamespace(value=42)  # not equal by content, yet the check accepts it
    hits = leaks(fake_module(TRICK=trick, GRID=0.05, ANSWER_TABLE={"x": 42}))
    assert [(w, how) for w, _, how in hits] == [("TRICK", "passes the check")]
    assert leaks(fake_module(ANSWERS={"check_count": lambda: 42})) == []  # holds a function
    assert leaks(fake_module(helper=lambda scale=1: 42 * scale)) == [
        ("helper()", "check_count", "equals the answer")
    ]


def test_a_clean_module_has_no_leak():
    def needs_input(records):
        return 42

    assert leaks(fake_module(GRID=0.05, needs_input=needs_input, SEEDS=range(3))) == []


def test_every_exercise_module_on_disk_is_enumerated():
    assert MODULES and MODULES[0] == "step01"
    assert all((EXERCISES / f"{m}.py").exists() for m in MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_own_public_functions_are_checks_only(name):
    """The convention: the only functions an exercise module defines in public are its
    ``check_*`` functions (answers are computed by private ones)."""
    module = load(name)
    own = [
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and inspect.isfunction(v)
        and v.__module__ == module.__name__
        and not n.startswith("check_")
    ]
    assert not own, f"{name}: public helpers {own}; make them private (leading underscore)"
    assert "ANSWERS" not in vars(module), f"{name}: the answer registry is public"


def test_a_public_library_import_is_a_stray_name():
    from lessonlib.records import SEED, make_records

    module = fake_module(make_records=make_records, SEED=SEED, Any=typing.Any, math=math)
    module.annotations = __import__("__future__").annotations
    module.__all__ = ["check_count"]
    assert stray_names(module) == ["SEED", "make_records"]
    module.__all__ = ["check_count", "SEED"]  # an input constant a question names
    assert stray_names(module) == ["make_records"]


@pytest.mark.parametrize("name", MODULES)
def test_public_names_are_the_checks_and_their_constants(name):
    """``dir(ex)`` lists ``__all__`` only: a library function or constant the module grades
    with is imported under a private name (``make_records as _make_records``)."""
    module = load(name)
    stray = stray_names(module)
    assert not stray, f"{name}: public names outside __all__ {stray}; import them privately"
    assert all(n.startswith("check_") or not callable(getattr(module, n)) for n in module.__all__)


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_no_public_name_holds_or_returns_an_answer(name):
    found = leaks(load(name))
    assert not found, f"{name}: " + "; ".join(f"{w} {how} of {c}" for w, c, how in found)
