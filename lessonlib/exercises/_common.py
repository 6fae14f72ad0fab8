"""What every exercise check shares: the PASS / Not yet message and answer-kind tests."""

from __future__ import annotations

import math
import numbers
import sys
import textwrap

__all__ = ["WIDTH"]

WIDTH = 80


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


def _names(value):
    """A collection of names as a tuple, or None when ``value`` is not one."""
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        return None
    value = tuple(value)
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
