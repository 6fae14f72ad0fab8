"""No module-level mutable state: every public table of lessonlib is read-only."""

import importlib
import pkgutil

import pytest

import lessonlib
from lessonlib._frozen import ReadOnlyDict

MUTABLE = (dict, list, set, bytearray)
READ_ONLY = (ReadOnlyDict,)
MODULES = sorted(m.name for m in pkgutil.iter_modules(lessonlib.__path__) if m.name != "__main__")
MODULES += sorted(f"exercises.{m.name}" for m in
                  pkgutil.iter_modules(importlib.import_module("lessonlib.exercises").__path__))


@pytest.mark.parametrize("name", MODULES)
def test_no_module_level_mutable_containers(name):
    module = importlib.import_module(f"lessonlib.{name}")
    found = [key for key, value in vars(module).items()
             if not key.startswith("__") and isinstance(value, MUTABLE)
             and not isinstance(value, READ_ONLY)]
    assert not found, f"lessonlib.{name} holds mutable module-level values: {found}"


@pytest.mark.parametrize("table", ["PROFILE", "SOURCE_SHARE", "PRIOR", "CUE_TABLE", "SPURIOUS",
                                   "FLAG_WORD", "SOURCE_WORD"])
def test_lesson_tables_cannot_be_changed_in_place(table):
    value = getattr(lessonlib, table)
    key = next(iter(value))
    with pytest.raises(TypeError):
        value[key] = value[key]
    with pytest.raises(TypeError):
        value["new key"] = "zararli"


def test_a_model_keeps_its_own_copy_of_the_tables():
    cues = {"yoner": "zararli"}
    model = lessonlib.SimulatedModel(cues=cues)
    cues["yok"] = "temiz"
    assert model.cues == {"yoner": "zararli"}


def test_read_only_tables_behave_like_dicts_otherwise():
    import copy
    import pickle

    table = lessonlib.CUE_TABLE
    assert isinstance(table, dict) and repr(table) == repr(dict(table))
    assert copy.deepcopy(table) is table and pickle.loads(pickle.dumps(table)) == table
    for change in (lambda t: t.update(a=1), lambda t: t.pop("yok"), lambda t: t.clear(),
                   lambda t: t.setdefault("a", 1), lambda t: t.popitem()):
        with pytest.raises(TypeError, match="read-only"):
            change(table)
    assert "yok" in table and len(table) == 7



def _imports(path, package):
    """The lessonlib modules ``path`` imports, at any depth of its code (lazy imports too)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            names = [node.module] if node.module else [a.name for a in node.names]
            found.update(".".join(base + [n]) for n in names)
    return found


def test_no_import_cycle_between_lessonlib_modules():
    import pathlib

    root = pathlib.Path(lessonlib.__file__).parent
    graph = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = ".".join(parts[:-1])
        graph[name] = {m for m in _imports(path, package) if m != name}

    def walk(name, trail):
        if name in trail:
            cycle = trail[trail.index(name):] + [name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        for dep in sorted(graph.get(name, ())):
            walk(dep, trail + [name])

    for name in sorted(graph):
        walk(name, [])
