"""The assignment version of the exercise checks (``make assignments`` copies this file into
the student's ``lessonlib/exercises/_handin.py``).

It holds no answer and computes none.  A check of the assignment only looks at the form of
an answer (filled in or not, a function where a function is asked) and says that the
answer is recorded; the grade comes after hand-in, when the grader runs the notebook and
grades what was recorded with the course's own checks in another process.

While ``make grade`` runs the notebook, ``LESSONLIB_HANDIN`` names a file: each check then
appends one JSON line, ``{"check": name, "answer": ...}``, the answer encoded as plain data
(numbers, strings, tuples, lists, sets, dicts, records; a function as the table of its
replies to the calls its exercise makes).  Outside grading nothing is written.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Callable
from typing import Any

__all__ = ["encode", "make_check"]

_LIMIT = 2_000_000
"""Characters at most one encoded answer may take (a larger one is recorded as too large)."""


def encode(value: Any, _depth: int = 0) -> Any:
    """``value`` as JSON-ready plain data with its kind kept (tuple, set, record, ...)."""
    from lessonlib.records import Flags, Record

    if _depth > 20:
        return {"t": "other", "type": "deeply nested value"}
    if value is ...:
        return {"t": "ellipsis"}
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, numbers.Integral):
        return {"t": "int", "v": int(value)}
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return {"t": "float", "v": repr(number)}
        return {"t": "float", "v": number}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, Record):
        return {
            "t": "record",
            "v": {
                "no": encode(value.no, _depth + 1),
                "cls": encode(value.cls, _depth + 1),
                "source": encode(value.source, _depth + 1),
                "features": encode(dict(value.features), _depth + 1),
                "text": encode(value.text, _depth + 1),
                "length": encode(value.length, _depth + 1),
                "flags_kind": "Flags" if isinstance(value.features, Flags) else "other",
            },
        }
    if isinstance(value, dict):
        return {
            "t": "dict",
            "v": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()],
        }
    for kind in (tuple, list, set, frozenset):
        if isinstance(value, kind):
            items = sorted(value, key=repr) if kind in (set, frozenset) else value
            return {"t": kind.__name__, "v": [encode(v, _depth + 1) for v in items]}
    if hasattr(value, "item") and hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:
        return encode(value.item(), _depth + 1)  # a numpy scalar of another kind
    return {"t": "other", "type": type(value).__name__}


def _replies(function: Callable[..., Any], calls: Callable[[Callable[..., Any]], None]) -> Any:
    """The table of ``function``'s replies to the calls its exercise makes (``calls``)."""
    table: list[list[Any]] = []

    def recording(*args: Any) -> Any:
        try:
            reply = function(*args)
        except Exception as error:  # the student's function: recorded, never raised here
            table.append(
                [encode(list(args)), {"t": "raises", "v": f"{type(error).__name__}: {error}"}]
            )
            raise
        table.append([encode(list(args)), encode(reply)])
        return reply

    try:
        calls(recording)
    except Exception:  # the table so far is the answer; the grader reports the error
        pass
    return {"t": "function", "v": table}


def _panel_calls(ask: Callable[..., Any]) -> None:
    """The calls of notebook 10, exercise 1: the ask run as a one-judge panel."""
    from lessonlib.panel import Panel
    from lessonlib.records import SEED, make_records

    Panel([ask]).run(make_records(), SEED)


def _twin_calls(change: Callable[..., Any]) -> None:
    """The calls of notebook 12, exercise 2: the change on every record of the lesson."""
    from lessonlib.records import make_records

    for record in make_records():
        change(record)


_FUNCTIONS: dict[str, Callable[[Callable[..., Any]], None]] = {
    "check_rule_ask": _panel_calls,
    "check_long_twin": _twin_calls,
}
"""The checks whose answer is a function, and the calls that turn it into a table."""


def _record(name: str, answer: Any) -> str:
    path = os.environ.get("LESSONLIB_HANDIN")
    if not path:
        return ""
    if name in _FUNCTIONS and callable(answer):
        encoded = _replies(answer, _FUNCTIONS[name])
    else:
        encoded = encode(answer)
    line = json.dumps({"check": name, "answer": encoded})
    if len(line) > _LIMIT:
        line = json.dumps({"check": name, "answer": {"t": "other", "type": "answer too large"}})
    with open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")
    return " (recorded for grading)"


def make_check(step: str, name: str, number: int, fill: str) -> Callable[..., None]:
    """The assignment's ``name`` of ``step``: checks the form of an answer, records it.

    ``fill`` is the course check's own message for an answer not filled in."""

    def check(answer: Any, *args: Any, **kwargs: Any) -> None:
        if answer is ...:
            _record(name, answer)
            print(fill)
            return None
        if name in _FUNCTIONS and not callable(answer):
            print(f"Not yet: exercise {number} asks for a function, got {type(answer).__name__}.")
            return None
        note = _record(name, answer)
        print(
            f"Handed in: your answer to exercise {number} is kept as it is{note}; "
            "it is graded after you hand the notebook in."
        )
        return None

    check.__name__ = check.__qualname__ = name
    check.__doc__ = (
        f"Notebook {step}, exercise {number}: checks the form of your answer, records it."
    )
    return check
