"""Every notebook - argument checks at the doors: TypeError (wrong kind) or ValueError (value
not allowed), naming the parameter and what is allowed.  The helpers a door calls trust it."""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
C = TypeVar("C", bound=Callable[..., Any])

__all__ = [
    "check_between",
    "check_callable",
    "check_fewer",
    "check_choice",
    "check_collection",
    "check_instance",
    "check_int",
    "check_items",
    "check_iterable",
    "check_label_table",
    "check_names",
    "check_number",
    "check_seed",
    "check_str",
]


def check_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """``value`` as an int: a whole number (int or numpy integer, not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_seed(value: object) -> int:
    """A sampling seed: any whole number >= 0 (2**32 and above are fine)."""
    return check_int("seed", value, minimum=0)


def check_number(name: str, value: object, *, minimum: float | None = None) -> float:
    """Return ``value`` as a float if it is a finite real number >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return value


def check_str(name: str, value: object) -> str:
    return check_instance(name, value, str)


def check_choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value`` must be one of ``allowed`` (a sequence of strings)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def check_names(name: str, values: Iterable[str], allowed: Collection[str]) -> tuple[str, ...]:
    """A collection of names, each one of ``allowed``; returned as a tuple."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"{name} must be a collection of names (e.g. a tuple), got {type(values).__name__} "
            f"{values!r}; allowed names: {', '.join(allowed)}"
        )
    values = tuple(values)
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise ValueError(
            f"{name} has unknown name(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(allowed)}"
        )
    return values


def check_label_table(
    name: str, table: Mapping[str, str], labels: Collection[str]
) -> dict[str, str]:
    """A mapping token -> label, every label one of ``labels``; returned as a dict."""
    if not isinstance(table, Mapping):
        raise TypeError(f"{name} must be a mapping token -> label, got {type(table).__name__}")
    for token, label in table.items():
        if not isinstance(token, str):
            raise TypeError(f"{name} keys must be str tokens, got {token!r}")
        if label not in labels:
            raise ValueError(
                f"{name}[{token!r}] is {label!r}, an unknown label; allowed labels: "
                f"{', '.join(labels)}"
            )
    return dict(table)


def check_instance(name: str, value: object, kind: type[T]) -> T:
    """``value`` must be a ``kind`` (e.g. a Record, a JudgeRun)."""
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__name__}, got {type(value).__name__} {value!r}")
    return value


def check_iterable(name: str, values: Iterable[Any], what: str) -> tuple[Any, ...]:
    """Values to iterate over (not a str, bytes or mapping) as a tuple; ``what``: the kind."""
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"{name} must be {what}, got {type(values).__name__} {reprlib.repr(values)}"
        )
    return tuple(values)


def check_collection(name: str, values: Iterable[Any], what: str, item: str) -> tuple[Any, ...]:
    """:func:`check_iterable`, not empty (``item`` names one element)."""
    values = check_iterable(name, values, what)
    if not values:
        raise ValueError(f"{name} must hold at least one {item}, got an empty collection")
    return values


def check_items(name: str, values: Iterable[Any], kind: type[T]) -> tuple[T, ...]:
    """A collection of ``kind`` objects (not one of them, not a str), returned as a tuple."""
    if isinstance(values, kind):
        raise TypeError(
            f"{name} must be a collection of {kind.__name__} (e.g. a list), got "
            f"one {kind.__name__}"
        )
    values = check_collection(
        name, values, f"a collection of {kind.__name__} (e.g. a list)", kind.__name__
    )
    for value in values:
        if not isinstance(value, kind):
            raise TypeError(
                f"{name} must hold {kind.__name__} objects, found {type(value).__name__} {value!r}"
            )
    return values


def check_callable(name: str, value: C, what: str = "a function") -> C:
    """``value`` must be callable."""
    if not callable(value):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} {value!r}")
    return value


def check_between(name: str, value: object, low: float, high: float, example: str = "") -> float:
    """A finite real number strictly between ``low`` and ``high`` (a level, a half-width);
    ``example`` (e.g. "0.95") is named in the message."""
    value = check_number(name, value)
    if not low < value < high:
        hint = f" (e.g. {example})" if example else ""
        raise ValueError(f"{name} must be between {low:g} and {high:g}{hint}, got {value!r}")
    return value


def check_fewer(name: str, value: object, of: str, limit: int, *, minimum: int = 2) -> int:
    """A whole number >= ``minimum`` and below ``limit`` (``of`` names it: e.g. "size")."""
    value = check_int(name, value, minimum=minimum)
    if value >= limit:
        raise ValueError(f"{name} must be fewer than {of} ({limit}) records, got {value}")
    return value
