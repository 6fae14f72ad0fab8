"""Exercise checks for notebooks/12_probing_the_judge.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .._frozen import ReadOnlyDict
from ..probing import probe, twin, with_length
from ..records import SEED, Record, make_records
from ._common import _grade_numbers, _say

TEXT_SEEDS = range(SEED, SEED + 200)
"""The judge seeds of 12's exercise 1: the lesson's seed and the 199 after it."""
KEYS = ("text", "new seed")


def _text_against_seed(seeds: Iterable[int] = TEXT_SEEDS) -> dict[str, float]:
    """Mean decisions moved over ``seeds`` at the lesson's settings: by the text probe (records
    against their text twins, same seed) and by a new seed (seed against seed + 1)."""
    import numpy as np

    from ..many import run_judge_many

    records = make_records()
    seeds = np.asarray(list(seeds), dtype=np.int64)
    base = run_judge_many(records, seeds).harmful
    text = run_judge_many([twin(r, "text") for r in records], seeds).harmful
    nxt = run_judge_many(records, seeds + 1).harmful
    return {
        "text": float((base != text).sum(axis=1).mean()),
        "new seed": float((base != nxt).sum(axis=1).mean()),
    }


def check_text_against_seed(moved: Any) -> bool:
    """12, exercise 1: the text probe against the judge's own two-run difference."""
    how = {
        "text": "judge the records and their text twins with the same seed and count "
        "the records whose label differs",
        "new seed": "judge the records at seed s and at s + 1 and count the records "
        "whose label differs",
    }

    def hint(off):
        which = (
            f"the figures for {off[0]!r} and {off[1]!r} are"
            if len(off) == 2
            else f"the figure for {off[0]!r} is"
        )
        return (
            f"{which} not it. For each of the {len(TEXT_SEEDS)} seeds s: "
            + "; ".join(f"for {k!r}, {how[k]}" for k in off)
            + "; then average the counts over the seeds."
        )

    def passed(truth):
        ratio = truth["text"] / truth["new seed"]
        return (
            f"over {len(TEXT_SEEDS)} seeds the text twins move {truth['text']:.2f} "
            f"decisions on average and a new seed {truth['new seed']:.2f} (ratio "
            f"{ratio:.2f}): a text the judge gives no weight moves about as much as "
            "drawing its dice again."
        )

    return _grade_numbers(
        moved,
        _text_against_seed,
        keys=KEYS,
        places=2,
        fill="fill in moved: a dict with two numbers, {'text': ..., 'new seed': ...}.",
        kind=f"a dict with exactly the keys {', '.join(map(repr, KEYS))}",
        passed=passed,
        hint=hint,
    )


def _expected_long(record: Record) -> Record:
    return with_length(record, True)


def _long_twin() -> Callable[[Record], Record]:
    """12, exercise 2's answer: the change that switches the length flag on."""
    return _expected_long


def check_long_twin(change: Any) -> bool:
    """12, exercise 2: a change that switches the length flag on (not a toggle)."""
    if change is ...:
        return _say(
            False,
            "fill in long_twin: a function that takes a Record and returns "
            "its twin with excessive_length switched on.",
        )
    if not callable(change):
        return _say(
            False, f"long_twin must be a function Record -> Record, got {type(change).__name__}."
        )
    records = make_records()
    for r in records:
        try:
            t = change(r)
        except Exception as err:  # a student's function: report, never raise
            return _say(False, f"long_twin raised {type(err).__name__} on record {r.no}: {err}.")
        if not isinstance(t, Record):
            return _say(
                False,
                f"long_twin must return a Record, it returned "
                f"{type(t).__name__} for record {r.no}. Build the twin from "
                "the record with dataclasses.replace.",
            )
        want = _expected_long(r)
        if t != want:
            fields = [
                f
                for f in ("no", "cls", "source", "text", "length")
                if getattr(t, f) != getattr(want, f)
            ]
            flags = [f for f in r.features if t.features[f] != want.features[f]]
            what = ", ".join(fields + flags)
            return _say(
                False,
                f"the twin of record {r.no} is not the record with the length "
                f"flag on and nothing else changed: look at {what}.",
            )
    result = probe(records, change, temperature=0)
    clean = sum(r.cls == "clean" for r in records if r.no in result.changed)
    return _say(
        True,
        f"at temperature 0 switching the flag on moves {len(result.changed)} "
        f"decisions, {clean} of them clean records now blocked, and raises the "
        f"mean P(zararli) by {result.shift:.4f}: the flag alone outweighs the "
        "prior for a record with no other sign.",
    )


_ANSWERS = ReadOnlyDict(
    {
        "check_text_against_seed": _text_against_seed,
        "check_long_twin": _long_twin,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""

__all__ = ["TEXT_SEEDS", "check_text_against_seed", "check_long_twin"]
