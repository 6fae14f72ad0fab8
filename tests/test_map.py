"""The library's map (lessonlib/__init__.py): every module named with its notebook, in
layers that import only upward, each with an ``__all__`` of names it has (issue 18)."""

import ast
import importlib
import pathlib
import re

import pytest

import lessonlib as L

ROOT = pathlib.Path(L.__file__).parent
MODULES = sorted(p.stem for p in ROOT.glob("*.py") if p.stem not in ("__init__", "__main__"))
PLANNED: tuple = ()  # modules named on the map before they exist


def map_order():
    """Module names in the order the map's table lists them (lowest layer first)."""
    return re.findall(r"^``([a-z_]+)``\s", L.__doc__, flags=re.M)


def test_the_map_names_every_module_with_its_notebook():
    order = map_order()
    for name in MODULES + list(PLANNED):
        assert name in order, f"lessonlib/{name}.py is not on the map in lessonlib/__init__.py"
    for contract in ("an ask", "a run's decide", "the (seeds x records) matrix"):
        assert contract in L.__doc__
    for part in ("code", "a table", "a plot", "an explorer", "exercise checks"):
        assert f"**{part}**" in L.__doc__


def relative_imports(name):
    """Every module of lessonlib that ``name`` imports, at the top or inside a function."""
    tree = ast.parse((ROOT / f"{name}.py").read_text(encoding="utf-8"))
    return {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    }


@pytest.mark.parametrize("name", MODULES)
def test_a_module_imports_only_modules_above_it_on_the_map(name):
    order = map_order()
    for used in relative_imports(name):
        assert order.index(used) < order.index(name), f"{name} imports {used}, listed below it"


@pytest.mark.parametrize(
    "name",
    ["lessonlib"]
    + [f"lessonlib.{m}" for m in MODULES]
    + [f"lessonlib.exercises.{p.stem}" for p in sorted((ROOT / "exercises").glob("step*.py"))],
)
def test_every_module_lists_names_it_has_in_all(name):
    module = importlib.import_module(name)
    assert isinstance(module.__all__, list) and module.__all__
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, missing
    assert len(set(module.__all__)) == len(module.__all__)
