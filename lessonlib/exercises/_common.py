"""What every exercise check shares: the PASS / Not yet message, answer-kind tests and the
one grader of numeric answers (:func:`_grade_number`)."""

from __future__ import annotations

import math
import numbers
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["WIDTH"]

WIDTH = 80

Value = float | Callable[[], Any]
"""A number, or a function that computes it when the grader first needs it."""


def _say(passed, message):
    """Print 'PASS: message' or 'Not yet: message' (wrapped) and return ``passed``."""
    head = "PASS: " if passed else "Not yet: "
    # one write, so the kernel never stores the message and its newline as two outputs
    sys.stdout.write(textwrap.fill(head + message, width=WIDTH, subsequent_indent="  ") + "\n")
    return passed


def _is_whole(value):
    """A whole number of any kind (int, numpy integer), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value):
    """A finite real number of any kind (int, float, numpy number), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _near(answer, truth, places):
    """``answer`` is ``truth`` given to ``places`` decimals (within half a unit of the last
    place, float noise allowed); ``places=None``: exactly equal (whole numbers)."""
    if places is None:
        return answer == truth
    return abs(answer - truth) <= 0.5 * 10.0**-places + 1e-9


def _grade_number(
    answer: Any,
    truth: Value,
    *,
    fill: str,
    kind: str,
    passed: str | Callable[[float], str],
    hint: str,
    places: int | None = 4,
    share: bool = False,
    slips: Sequence[tuple[Value, str]] = (),
) -> bool:
    """Grade a numeric answer the way every numeric exercise check does, print its one
    message and return True (PASS) or False (Not yet).

    In order: ``...`` (the placeholder) gets ``fill``; an answer that is not a number (with
    ``places=None``: not a whole number) gets "give ``kind`` (got ...)"; an answer within
    half a unit of the ``places``-th decimal of ``truth`` (``places=None``: equal) passes with
    ``passed`` (a string, or a function of the truth that makes it); an answer that is one of
    the known ``slips`` (value, hint), tried in order at the same precision, gets that slip's
    hint; with ``share=True`` a percentage (100 times the truth) and any number outside
    [0, 1] get their own hints; an answer given to one decimal fewer than asked and within one
    unit of that decimal of the truth (a truth of 0.01 or more: a smaller one could be walked
    digit by digit) is told to give ``places`` decimals; anything else gets
    ``hint``, which names the method, never the steps or the direction to move in.

    ``truth`` and a slip's value may be functions, called only when an answer of the right
    kind needs them (a wrong type costs no computation).
    """
    if answer is ...:
        return _say(False, fill)
    if not (_is_whole(answer) if places is None else _is_number(answer)):
        plain = isinstance(answer, (str, numbers.Number))
        shown = repr(answer) if plain else type(answer).__name__
        return _say(False, f"give {kind} (got {shown}).")
    right = truth() if callable(truth) else truth
    if _near(answer, right, places):
        return _say(True, passed(right) if callable(passed) else passed)
    for value, slip in slips:
        if _near(answer, value() if callable(value) else value, places):
            return _say(False, slip)
    if share and _near(answer / 100, right, places):
        return _say(False, "that looks like a percentage; give a number between 0 and 1.")
    if share and not 0 <= answer <= 1:
        return _say(False, f"{answer!r} is outside 0 to 1: give {kind}.")
    if (
        places is not None
        and abs(right) >= 0.01
        and abs(answer - round(answer, places - 1)) < 1e-12
        and abs(answer - right) < 10.0 ** (1 - places)
    ):
        return _say(False, f"give it to {places} decimal places, not {places - 1}.")
    return _say(False, hint)


def _names(value):
    """A collection of names as a tuple, or None when ``value`` is not one."""
    if isinstance(value, (str, type)) or not hasattr(value, "__iter__"):
        return None  # a class (such as Sequence) has __iter__ but is no collection
    try:
        value = tuple(value)
    except TypeError:
        return None
    return value if all(isinstance(v, str) for v in value) else None


def _names_hint(names, allowed, unknown, required=(), missing=""):
    """The hint for an answer's names, or None when they are fine.

    Names not in ``allowed`` come first: ``unknown`` with ``{}`` replaced by
    them (quoted).  Then the ``required`` names the answer left out:
    ``missing`` with ``{}`` replaced by them.
    """
    bad = [n for n in names if n not in allowed]
    if bad:
        return unknown.format(", ".join(map(repr, bad)))
    left = [n for n in required if n not in names]
    if left:
        return missing.format(", ".join(left))
    return None


def _pair(answer):
    """``answer`` as a pair of two numbers, or None."""
    if isinstance(answer, (str, bytes, type)) or not hasattr(answer, "__len__"):
        return None  # a class (such as Sequence) has __len__ but no length
    if len(answer) != 2:
        return None
    return tuple(answer) if all(_is_number(x) for x in answer) else None
