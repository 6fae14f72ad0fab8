"""Exercise checks for notebooks/04_two_seed_variance.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._frozen import ReadOnlyDict
from ..criteria import rule_filter
from ..judge import run_judge
from ..metrics import agreement, disagreements, measure, steps
from ..records import SEED, Record, make_records
from ..simulator import TEMPERATURE
from ._common import _is_number, _is_whole, _say

__all__ = [
    "COLD",
    "agreement_steps",
    "check_agreement_steps",
    "check_cold_judge_steps",
    "cold_fp_steps",
]

COLD = 0.0
"""The temperature of exercise 2: no draw, the most likely label every time."""


def _pair(answer):
    """``answer`` as a pair of two numbers, or None."""
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or len(answer) != 2:
        return None
    return tuple(answer) if all(_is_number(x) for x in answer) else None


PAIR = (SEED + 2, SEED + 3)
"""The two seeds of exercise 1: a pair of judge runs the notebook does not print."""


def agreement_steps(
    records: Sequence[Record] | None = None, seeds: tuple[int, int] = PAIR
) -> tuple[int, int]:
    """Agreement gap (judge run at ``seeds[0]`` - filter) and the judge's difference between
    its runs at ``seeds[1]`` and ``seeds[0]``, in steps of 1/len(records): the answer of 04,
    exercise 1 (sign kept)."""
    records = make_records() if records is None else records
    run1, run2 = run_judge(records, seeds[0]), run_judge(records, seeds[1])
    a1, a2 = agreement(records, run1.decide), agreement(records, run2.decide)
    n = len(records)
    return steps(a1 - agreement(records, rule_filter), n), steps(a2 - a1, n)


def check_agreement_steps(answer: Any) -> bool:
    """04, exercise 1: for the judge's runs at SEED + 2 and SEED + 3, (agreement gap over the
    filter, the two-run difference in agreement), both in steps of 1/240."""
    if answer is ...:
        return _say(
            False,
            "fill in answer = (gap, difference): two whole numbers of steps, "
            "the gap between the run at SEED + 2 and the filter first.",
        )
    pair = _pair(answer)
    if pair is None:
        return _say(False, f"give two numbers in parentheses, (gap, difference); got {answer!r}.")
    gap, diff = agreement_steps()
    lesson = agreement_steps(seeds=(SEED, SEED + 1))
    if not all(_is_whole(x) for x in pair):
        return _say(
            False,
            "give whole numbers of steps, not rates: a step is what one record "
            "moves the agreement.",
        )
    if (abs(pair[0]), abs(pair[1])) == (abs(lesson[0]), abs(lesson[1])) != (abs(gap), abs(diff)):
        return _say(
            False,
            "those are the steps of the lesson's two runs. Run the judge again "
            "at the two seeds of the exercise.",
        )
    if (abs(pair[0]), abs(pair[1])) == (abs(diff), abs(gap)):
        return _say(
            False,
            "the two numbers are the wrong way round: the gap between the "
            "approaches comes first, the judge's own movement second.",
        )
    if abs(pair[0]) != abs(gap) or abs(pair[1]) != abs(diff):
        return _say(
            False,
            "agreement counts every record, clean or harmful, so one step is "
            "one record of all of them. Measure both runs, then count each "
            "difference in that step.",
        )
    verdict = "larger than" if abs(gap) > abs(diff) else "no larger than"
    return _say(
        True,
        f"the judge's run at seed {PAIR[0]} agrees with the label on {abs(gap)} "
        f"records {'more' if gap >= 0 else 'fewer'} than the filter; its run at "
        f"seed {PAIR[1]} moves its agreement by {abs(diff)} records. This pair's "
        f"gap is {verdict} its own two-run difference, and the lesson's pair "
        f"moved by {abs(lesson[1])}: the two-run difference is itself a draw.",
    )


def cold_fp_steps(
    records: Sequence[Record] | None = None, temperature: float = COLD
) -> tuple[int, bool]:
    """Clean records the judge blocks at ``temperature`` minus the filter's, and whether its
    runs with SEED and SEED + 1 decide every record alike: the answer of 04, exercise 2."""
    records = make_records() if records is None else records
    run1 = run_judge(records, SEED, temperature)
    run2 = run_judge(records, SEED + 1, temperature)
    same = not disagreements(run1.labels, run2.labels)
    return measure(records, run1.decide)["fp"] - measure(records, rule_filter)["fp"], same


def check_cold_judge_steps(answer: Any) -> bool:
    """04, exercise 2: at temperature 0, the judge's false block rate minus the filter's,
    in steps of 1 / (clean records)."""
    if answer is ...:
        return _say(
            False,
            "fill in answer: a whole number of steps, judge at temperature 0 minus the filter.",
        )
    if not _is_whole(answer):
        return _say(
            False, f"give a whole number of steps (one step is one clean record), got {answer!r}."
        )
    records = make_records()
    gap, same = cold_fp_steps(records)
    lesson_gap, _ = cold_fp_steps(records, TEMPERATURE)
    if answer == gap:
        clean = measure(records, rule_filter)
        clean = clean["fp"] + clean["tn"]
        alike = (
            f"decide all {len(records)} records alike" if same else "still differ on some records"
        )
        return _say(
            True,
            f"at temperature {COLD:g} the runs with seed and seed + 1 {alike}, "
            f"and the judge blocks {abs(gap)} clean records "
            f"{'more' if gap >= 0 else 'fewer'} than the filter: {gap:+d} "
            f"steps of 1/{clean}.",
        )
    if answer == lesson_gap:
        return _say(
            False,
            f"{answer} is the gap at the lesson's temperature. Run the judge "
            "again with the temperature at 0.",
        )
    if answer == -gap:
        return _say(False, "mind the sign: judge minus filter.")
    return _say(
        False,
        "count the clean records the cold judge blocks and compare with the "
        "filter's count; the explorer above can show you the table at any "
        "temperature.",
    )


def cold_judge_steps():
    """The answer of 04, exercise 2."""
    return cold_fp_steps()[0]


_ANSWERS = ReadOnlyDict(
    {
        "check_agreement_steps": agreement_steps,
        "check_cold_judge_steps": cold_judge_steps,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
