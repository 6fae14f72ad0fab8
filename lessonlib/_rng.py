"""Every notebook - the course's pseudo-random numbers and hash, their constants named (the
many-seed engine, lessonlib.many, repeats the arithmetic on numpy arrays with these)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "FNV_OFFSET",
    "FNV_PRIME",
    "LCG_INCREMENT",
    "LCG_MULTIPLIER",
    "M32",
    "MIX_FIRST",
    "MIX_SECOND",
    "generator",
    "mix32",
    "trace_id",
]

M32 = 0xFFFFFFFF
"""Keep the low 32 bits."""
MIX_FIRST, MIX_SECOND = 2246822507, 3266489909
"""mix32's two multipliers (after a shift of 16, then of 13)."""
LCG_MULTIPLIER, LCG_INCREMENT = 1664525, 1013904223
"""One step of the 32-bit linear congruential generator: state * a + c (mod 2**32)."""
FNV_OFFSET, FNV_PRIME = 2166136261, 16777619
"""FNV-1a's starting value and multiplier (32-bit)."""


def mix32(t: int) -> int:
    """Scramble a whole number into a 32-bit starting state (two multiply-xorshift rounds)."""
    x = ((t ^ (t >> 16)) * MIX_FIRST) & M32
    x = ((x ^ (x >> 13)) * MIX_SECOND) & M32
    return (x ^ (x >> 16)) & M32


def generator(t: int) -> Callable[[], float]:
    """Uniform numbers in [0, 1) from a 32-bit LCG started at ``mix32(t)`` (notebook 01)."""
    state = mix32(t)

    def next_uniform():
        nonlocal state
        state = (state * LCG_MULTIPLIER + LCG_INCREMENT) & M32
        return state / 4294967296

    return next_uniform


def trace_id(message: object) -> int:
    """32-bit FNV-1a style hash of ``str(message)`` (used to seed a model call per prompt)."""
    h = FNV_OFFSET
    for ch in str(message):
        h = ((h ^ ord(ch)) * FNV_PRIME) & M32
    return h
