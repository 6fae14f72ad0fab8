"""What every exercise check shares: the PASS / Not yet message, answer-kind tests and the
one grader of numeric answers: :func:`_grade_number` for a number, :func:`_grade_numbers`
for a pair or a dict of numbers (element by element, with the same tests).  A step module
grades no number by hand (tests/test_grader.py checks)."""

from __future__ import annotations

import math
import numbers
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
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


def _near(answer, truth, places, slack=0):
    """``answer`` is ``truth`` given to ``places`` decimals (within half a unit of the last
    place, float noise allowed); ``places=None``: equal (whole numbers), or within
    ``slack``."""
    if places is None:
        return abs(answer - truth) <= slack
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
    slack: int = 0,
    share: bool = False,
    bounds: tuple[float, float] | None = None,
    outside: str = "",
    grid: float | None = None,
    off_grid: str = "",
    slips: Sequence[tuple[Value, str]] = (),
    below: tuple[Value, str] | None = None,
    within: Value | None = None,
) -> bool:
    """Grade a numeric answer the way every numeric exercise check does, print its one
    message and return True (PASS) or False (Not yet).

    In order: ``...`` (the placeholder) gets ``fill``; an answer that is not a number (with
    ``places=None``: not a whole number) gets "give ``kind`` (got ...)"; a number outside the
    question's ``bounds`` (low, high: both allowed) gets "<answer> ``outside``" (no
    ``outside``: "give ``kind``"), and one off
    the question's ``grid`` (its multiples) "<answer> ``off_grid``", before the truth is
    computed; an answer within half a unit of the ``places``-th decimal of ``truth``
    (``places=None``: equal, or within ``slack``) passes with ``passed`` (a string, or a
    function of the truth that makes it); an answer that is one of the known ``slips``
    (value, hint), tried in order at the same precision, gets that slip's hint; an answer
    ``below`` a value (value, hint) gets that hint; with ``share=True`` a percentage (100
    times the truth) and any number outside [0, 1] get their own hints; an answer that
    reads as one decimal fewer than asked and lies within one unit of that decimal of the
    truth (a truth of 0.01 or more: a smaller one could be walked digit by digit; never on a
    ``grid``, where 0.3 is 0.30) is told that, given to ``places`` decimals, it is not the
    answer, and to give ``places`` if it was rounded to fewer (0.6 and 0.60 are one number,
    so the message never claims a decimal is missing); anything else gets ``hint``, which
    names the method, never the steps or the direction to move in.

    ``within``: an answer that a simulation gives (an expectation the student may estimate
    by simulating, not only compute exactly) also passes when it lies within ``within`` of
    ``truth``, the simulation's error (say two standard errors of its mean), whatever its
    decimals.

    ``truth`` and a slip's, ``below``'s or ``within``'s value may be functions, called only
    when an answer of the right kind needs them (a wrong type costs no computation).
    """
    if answer is ...:
        return _say(False, fill)
    if not _of_kind(answer, places):
        return _say(False, f"give {kind} (got {_shown(answer)}).")
    if bounds is not None and not bounds[0] <= answer <= bounds[1]:
        message = f"{answer!r} {outside}" if outside else f"give {kind} (got {answer!r})."
        return _say(False, message)
    if grid is not None and abs(answer / grid - round(answer / grid)) > 1e-6:
        return _say(False, f"{answer!r} {off_grid}")
    right = _value(truth)
    if _near(answer, right, places, slack) or (
        within is not None and abs(answer - right) <= _value(within) + 1e-12
    ):
        return _say(True, passed(right) if callable(passed) else passed)
    for value, slip in slips:
        if _near(answer, _value(value), places, slack):
            return _say(False, slip)
    if below is not None and answer < _value(below[0]):
        return _say(False, below[1])
    if share and _near(answer / 100, right, places):
        return _say(False, "that looks like a percentage; give a number between 0 and 1.")
    if share and not 0 <= answer <= 1:
        return _say(False, f"{answer!r} is outside 0 to 1: give {kind}.")
    if (
        places is not None
        and grid is None
        and abs(right) >= 0.01
        and abs(answer - round(answer, places - 1)) < 1e-12
        and abs(answer - right) < 10.0 ** (1 - places)
    ):
        # 0.6 and 0.60 are one number: the answer may be one decimal short, or given to
        # every decimal asked and wrong; the message is true either way
        return _say(
            False,
            f"{answer:.{places}f} is not it to {places} decimal places; if you rounded "
            f"to {places - 1}, give {places}.",
        )
    return _say(False, hint)


def _grade_numbers(
    answer: Any,
    truth: Callable[[], Any],
    *,
    fill: str,
    kind: str,
    passed: str | Callable[[Any], str],
    hint: str | Callable[[list], str],
    keys: int | Sequence[str] = 2,
    keys_hint: Callable[[tuple], str | None] | None = None,
    places: int | None = 4,
    element: str | Callable[[Any, Any], str] | None = None,
    unordered: str | None = None,
    either_sign: bool = False,
    slips: Sequence[tuple[Callable[[], Any] | Any, str]] = (),
    sign: str | None = None,
    close: tuple[float, str] | None = None,
) -> bool:
    """Grade an answer of several numbers (a pair, a dict of numbers) element by element
    with the same tests as :func:`_grade_number`, print its one message and return True
    (PASS) or False (Not yet).

    ``keys``: a whole number n asks for n numbers in a row (a tuple or a list: ``(low,
    high)``); a sequence of names asks for a dict with those keys. ``truth`` (a function,
    called only when the answer has the right shape) returns the right numbers the same way.

    In order: ``...`` gets ``fill``; an answer of another shape (n numbers in a row, a
    mapping) gets "give ``kind``; got ..."; a dict's keys get ``keys_hint(keys)`` (a hint,
    or None when they are fine; by default any other set of keys is told ``kind``); a number
    not of the kind (with ``places=None`` a whole number, a float with a whole value
    allowed) gets ``element`` (a string, or a function of the key and the value; None: the
    element counts as wrong); with ``unordered`` a pair whose first number is above its
    second gets that message; then the truth is computed. Each number is right when it is
    within half a unit of the ``places``-th decimal (``places=None``: equal), with
    ``either_sign`` up to its sign. All right: ``passed`` (a function of the truth, or a
    string). Otherwise: an answer that is one of the ``slips`` (value, hint), every number at
    the same precision, gets that hint; with ``sign``, an answer whose wrong numbers are all
    the right ones negated gets ``sign``; with ``close`` (tolerance, hint), every number
    within the tolerance of its truth gets that hint; anything else gets ``hint`` (a string,
    or a function of the wrong keys or places).
    """
    if answer is ...:
        return _say(False, fill)
    names = tuple(range(keys)) if isinstance(keys, int) else tuple(keys)
    if isinstance(keys, int):
        row = _row(answer, keys)
        if row is None:
            return _say(False, f"give {kind}; got {_shown(answer)}.")
        given: Any = row
    else:
        if not isinstance(answer, Mapping):
            return _say(False, f"give {kind}; got {_shown(answer)}.")
        problem = (keys_hint or (lambda got: None))(tuple(answer))
        if problem is None and set(answer) != set(names):
            problem = f"give {kind}; got the keys {', '.join(map(repr, answer))}."
        if problem is not None:
            return _say(False, problem)
        given = answer
    if element is not None:
        for key in names:
            if not _of_kind(given[key], places, whole_float=True):
                return _say(False, element(key, given[key]) if callable(element) else element)
    if unordered is not None and given[0] > given[1]:
        return _say(False, unordered)
    right = _value(truth)

    def wrong(against, negated=False):
        """The keys whose number is not ``against``'s (negated), at the precision asked."""
        return [
            key
            for key in names
            if not (
                _of_kind(given[key], places, whole_float=True)
                and _near(
                    _signed(given[key], either_sign),
                    _signed(-against[key] if negated else against[key], either_sign),
                    places,
                )
            )
        ]

    off = wrong(right)
    if not off:
        return _say(True, passed(right) if callable(passed) else passed)
    for value, slip in slips:
        if not wrong(_value(value)):
            return _say(False, slip)
    if sign is not None and not [k for k in wrong(right, negated=True) if k in off]:
        return _say(False, sign)
    if close is not None and all(
        _of_kind(given[k], places, whole_float=True) and abs(given[k] - right[k]) < close[0]
        for k in names
    ):
        return _say(False, close[1])
    return _say(False, hint(off) if callable(hint) else hint)


def _value(value):
    """A number (or numbers) given as itself or as a function that computes it."""
    return value() if callable(value) else value


def _signed(value, either_sign):
    return abs(value) if either_sign else value


def _shown(answer):
    """An answer as a message quotes it: a string or a number itself, anything else by type."""
    plain = isinstance(answer, (str, numbers.Number))
    return repr(answer) if plain else type(answer).__name__


def _of_kind(value, places, whole_float=False):
    """``value`` is a number of the kind asked: with ``places=None`` a whole number (with
    ``whole_float``, a float with a whole value too), else any finite real number."""
    if places is not None:
        return _is_number(value)
    return _is_whole(value) or (whole_float and _is_number(value) and float(value).is_integer())


def _row(answer, n):
    """``answer`` as a tuple of ``n`` numbers, or None."""
    if isinstance(answer, (str, bytes, type, Mapping)) or not hasattr(answer, "__len__"):
        return None  # a class (such as Sequence) has __len__ but no length
    if len(answer) != n:
        return None
    return tuple(answer) if all(_is_number(x) for x in answer) else None


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
