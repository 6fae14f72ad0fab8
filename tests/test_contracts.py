"""The contracts, derived from the notebooks (issue 28): every library name a notebook or a
solution calls is in its module's ``__all__``, type-hinted (each parameter and the return),
and, where it takes input, a door with rows in the bad-input table (tests/test_bad_input.py).

The names are collected with ``ast`` from every code cell of notebooks/*.ipynb and
notebooks/solutions/*.ipynb: ``L.name`` (``import lessonlib as L``), ``from lessonlib.x
import name``, ``lessonlib.x.name``, ``ex.name`` (``from lessonlib.exercises import stepNN
as ex``), ``V.name`` (``from lessonlib import variance as V``) and attribute chains on
modules (``L.variance.run_band``).  A name "takes input" when one of its parameters accepts
less than anything (an annotation other than ``Any`` or ``object``): an exercise check's
``answer: Any`` takes every answer and grades it, so it is no door to refuse at.

A problem the course has not yet fixed would be listed, one entry a problem, in :data:`ALLOWED`
(empty: none is left): a new problem fails, and so does an entry that is no longer one.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import pathlib
import types
import typing

import pytest

import test_bad_input
from test_types import methods, missing_hints, written_by_python

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "solutions").glob("*.ipynb")
)
ANYTHING = {"Any", "object", "typing.Any", typing.Any, object}

# problem -> why it is allowed.  A problem reads "<module>.<name>: <contract>", the contract
# one of "__all__", "hints", "bad-input".  Empty since issue 28: every name a notebook calls
# keeps all three.  The list is exact: a new problem fails, and so does an entry that is no
# longer one.
ALLOWED: dict[str, str] = {}


# ---------------------------------------------------------------- what the notebooks call


def code_cells(path: pathlib.Path) -> list[str]:
    """The code cells of a notebook, IPython magics and shell lines left out."""
    cells = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        source = "".join(source) if isinstance(source, list) else source
        lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
        cells.append("\n".join(lines))
    return cells


def submodule(module: str, name: str) -> str | None:
    """``module.name`` when that is a module of lessonlib, else None."""
    try:
        found = importlib.import_module(f"{module}.{name}")
    except ModuleNotFoundError:
        return None
    return found.__name__ if isinstance(found, types.ModuleType) else None


def called_names(sources: list[str]) -> set[tuple[str, str]]:
    """(module, name) for every library name the code reaches, ``module`` as reached."""
    aliases: dict[str, str] = {}  # a local name -> the lessonlib module it is
    found: set[tuple[str, str]] = set()
    trees = [ast.parse(src) for src in sources]
    for tree in trees:  # the imports first: a notebook imports in its first code cell
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "lessonlib":
                        local = alias.asname or "lessonlib"
                        aliases[local] = alias.name if alias.asname else "lessonlib"
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] != "lessonlib":
                    continue
                for alias in node.names:
                    module = submodule(node.module, alias.name)
                    if module:
                        aliases[alias.asname or alias.name] = module
                    else:
                        found.add((node.module, alias.name))
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain, base = [], node
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in aliases):
                continue
            module = aliases[base.id]
            for attr in reversed(chain):
                deeper = submodule(module, attr)
                if deeper is None:
                    found.add((module, attr))
                    break
                module = deeper
    return found


@functools.cache
def notebook_names() -> frozenset[tuple[str, str]]:
    names: set[tuple[str, str]] = set()
    for path in NOTEBOOKS:
        names |= called_names(code_cells(path))
    return frozenset(names)


# ---------------------------------------------------------------- the three contracts


def door_names() -> dict[int, set[str]]:
    """id(object) -> the door names the bad-input table gives it rows under."""
    doors: dict[int, set[str]] = {}
    for module_name, rows in test_bad_input.ROWS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        for row in rows:
            owner = row.api.partition(".")[0]
            if hasattr(module, owner):
                doors.setdefault(id(getattr(module, owner)), set()).add(owner)
    return doors


def takes_input(obj: object) -> bool:
    """True when a parameter of ``obj`` (a function or a class) accepts less than anything."""
    try:
        params = list(inspect.signature(obj).parameters.values())  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return any(p.annotation not in ANYTHING for p in params)


def hint_problems(module_name: str, name: str, obj: object) -> list[str]:
    if inspect.isfunction(obj):
        return missing_hints(obj, f"{module_name}.{name}")
    if inspect.isclass(obj):
        return [
            problem
            for meth_name, func, bound in methods(obj)
            if not written_by_python(obj, func)
            for problem in missing_hints(func, f"{module_name}.{name}.{meth_name}", bound)
        ]
    return []


def problems_of(module_name: str, name: str, doors: dict[int, set[str]]) -> dict[str, str]:
    """Problem -> detail for one library name a notebook calls."""
    module = importlib.import_module(module_name)
    out: dict[str, str] = {}
    if not hasattr(module, name):
        return {f"{module_name}.{name}: exists": "a notebook calls a name the module lacks"}
    obj = getattr(module, name)
    homes = [module_name]
    home = getattr(obj, "__module__", None) if callable(obj) else None
    if home and home != module_name and home.startswith("lessonlib"):
        homes.append(home)  # a re-export: listed where it is reached and where it lives
    for where in homes:
        if name not in getattr(importlib.import_module(where), "__all__", ()):
            out[f"{where}.{name}: __all__"] = f"{name} is not in {where}.__all__"
    if not callable(obj):
        return out
    missing = hint_problems(homes[-1], name, obj)
    if missing:
        out[f"{homes[-1]}.{name}: hints"] = "no type hint on " + ", ".join(missing)
    if takes_input(obj) and id(obj) not in doors:
        out[f"{homes[-1]}.{name}: bad-input"] = (
            f"{name} takes input but has no row in tests/test_bad_input.py's ROWS"
        )
    return out


def all_problems() -> dict[str, str]:
    doors = door_names()
    out: dict[str, str] = {}
    for module_name, name in sorted(notebook_names()):
        out.update(problems_of(module_name, name, doors))
    return out


# ---------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def problems() -> dict[str, str]:
    return all_problems()


def test_the_notebooks_call_library_names():
    names = notebook_names()
    assert ("lessonlib", "measure") in names  # L.measure (02)
    assert ("lessonlib.variance", "run_band") in names  # V.run_band (06)
    assert any(module.startswith("lessonlib.exercises.") for module, _ in names)  # ex.check_*
    assert len(names) > 100


def test_every_name_the_notebooks_call_keeps_the_contracts(problems):
    broken = {p: detail for p, detail in problems.items() if p not in ALLOWED}
    assert not broken, "\n".join(f"{p} ({detail})" for p, detail in sorted(broken.items()))


def test_the_allow_list_holds_only_problems_that_are_there(problems):
    stale = sorted(set(ALLOWED) - set(problems))
    assert not stale, f"fixed, so take them off ALLOWED: {stale}"


# ---------------------------------------------------------------- the collector can fail


def test_the_collector_reads_every_way_a_notebook_reaches_a_name():
    sources = [
        "import lessonlib as L\nfrom lessonlib import variance as V\n"
        "from lessonlib.exercises import step02 as ex\nimport lessonlib\n"
        "from lessonlib.metrics import steps",
        "L.measure(r, d)\nV.run_band(x)\nex.check_corrupted_rule(f)\n"
        "lessonlib.variance.expected_changed(h)\nL.metrics.resolution",
    ]
    assert called_names(sources) == {
        ("lessonlib", "measure"),
        ("lessonlib.variance", "run_band"),
        ("lessonlib.exercises.step02", "check_corrupted_rule"),
        ("lessonlib.variance", "expected_changed"),
        ("lessonlib.metrics", "resolution"),
        ("lessonlib.metrics", "steps"),
    }


def test_a_missing_contract_is_found(monkeypatch):
    from lessonlib import variance

    def bare(harmful, level=0.95):
        return harmful

    monkeypatch.setattr(variance, "bare", bare, raising=False)
    found = problems_of("lessonlib.variance", "bare", door_names())
    assert set(found) == {
        "lessonlib.variance.bare: __all__",
        "lessonlib.variance.bare: hints",
        "lessonlib.variance.bare: bad-input",
    }


def test_an_answer_that_takes_anything_is_no_door():
    def check(answer: typing.Any) -> bool:
        return bool(answer)

    def door(records: list, seed: int = 0) -> list:
        return records

    assert not takes_input(check)
    assert takes_input(door)
