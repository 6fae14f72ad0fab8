"""Type hints on every public function and class of lessonlib (issue 18), so a student's
editor shows them on hover: every function or class a module lists in ``__all__`` has an
annotation on each parameter and on its return, and so has every public method and
property of those classes (an ``__init__`` a dataclass or NamedTuple writes from its
annotated fields is skipped)."""

import dataclasses
import importlib
import inspect
import pathlib

import pytest

import lessonlib as L

ROOT = pathlib.Path(L.__file__).parent
MODULES = (["lessonlib"]
           + [f"lessonlib.{p.stem}" for p in sorted(ROOT.glob("*.py"))
              if p.stem not in ("__init__",)]
           + [f"lessonlib.exercises.{p.stem}" for p in sorted((ROOT / "exercises").glob("*.py"))
              if p.stem != "__init__"])
EMPTY = inspect.Parameter.empty


def missing_hints(func, where, skip_first=False):
    """The parameters of ``func`` (and 'return') that have no annotation, named by ``where``."""
    params = list(inspect.signature(func).parameters.values())
    if skip_first and params:
        params = params[1:]
    missing = [f"{where}({p.name})" for p in params if p.annotation is EMPTY]
    if inspect.signature(func).return_annotation is EMPTY:
        missing.append(f"{where} -> return")
    return missing


def written_by_python(cls, func):
    """True for a method (``__init__``, ``__repr__``, ...) that a dataclass or NamedTuple
    generated from its annotated fields: its code is in no file of lessonlib."""
    code = getattr(inspect.unwrap(func), "__code__", None)
    generated = code is not None and not code.co_filename.startswith(str(ROOT))
    fields_annotated = dataclasses.is_dataclass(cls) or hasattr(cls, "_fields")
    return generated and fields_annotated


def methods(cls):
    """(name, function, takes self/cls) for the public methods, properties and the dunder
    methods a lessonlib class defines itself (not what it inherits)."""
    for name, attr in vars(cls).items():
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(attr, property):
            if attr.fget is not None:
                yield f"{name} (property)", attr.fget, True
        elif isinstance(attr, staticmethod):
            yield name, attr.__func__, False
        elif isinstance(attr, classmethod):
            yield name, attr.__func__, True
        elif inspect.isfunction(attr):
            yield name, attr, True


def ours(obj):
    return getattr(obj, "__module__", "").startswith("lessonlib")


def module_problems(module_name):
    module = importlib.import_module(module_name)
    problems = []
    for name in getattr(module, "__all__", ()):   # a missing __all__ is test_map's to find
        obj = getattr(module, name)
        if not ours(obj):
            continue
        if inspect.isfunction(obj):
            problems += missing_hints(obj, f"{module_name}.{name}")
        elif inspect.isclass(obj):
            for meth_name, func, bound in methods(obj):
                if written_by_python(obj, func):
                    continue
                problems += missing_hints(func, f"{module_name}.{name}.{meth_name}", bound)
    return problems


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_function_and_class_has_type_hints(module_name):
    problems = module_problems(module_name)
    assert not problems, "no type hint on: " + ", ".join(problems)


def test_the_check_finds_a_missing_hint():
    def bare(records, seed: int = 0):
        return records

    def hinted(records: list, seed: int = 0) -> list:
        return records

    assert missing_hints(bare, "bare") == ["bare(records)", "bare -> return"]
    assert missing_hints(hinted, "hinted") == []


def test_the_check_reads_methods_and_properties():
    class Bare:
        def __init__(self, n):
            self.n = n

        @property
        def size(self):
            return self.n

        def _private(self):
            return 0

    found = [p for n, f, b in methods(Bare) for p in missing_hints(f, n, b)]
    assert found == ["__init__(n)", "__init__ -> return", "size (property) -> return"]
