"""Exercise checks for notebooks/04_two_seed_variance.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import rule_filter as _rule_filter
from ..judge import run_judge as _run_judge
from ..metrics import agreement as _agreement
from ..metrics import disagreements as _disagreements
from ..metrics import measure as _measure
from ..metrics import steps as _steps
from ..records import SEED as _SEED
from ..records import Record as _Record
from ..records import make_records as _make_records
from ..simulator import TEMPERATURE as _TEMPERATURE
from ._common import _grade_number, _grade_numbers

__all__ = ["BIG_DRAW", "COLD", "PAIR", "check_agreement_steps", "check_cold_judge_steps"]

COLD = 0.0
"""The temperature of exercise 2: no draw, the most likely label every time."""
# On the lesson's 240 records the cold judge's lead in blocked clean records is a count a
# student could walk in a few tries; exercise 2 counts it on a larger draw.
BIG_DRAW = 2400
"""Exercise 2 runs on the first ``BIG_DRAW`` records: ``make_records(BIG_DRAW)``."""


PAIR = (_SEED + 2, _SEED + 3)
"""The two seeds of exercise 1: a pair of judge runs the notebook does not print."""


def _agreement_steps(
    records: Sequence[_Record] | None = None, seeds: tuple[int, int] = PAIR
) -> tuple[int, int]:
    """Agreement gap (judge run at ``seeds[0]`` - filter) and the judge's difference between
    its runs at ``seeds[1]`` and ``seeds[0]``, in steps of 1/len(records): the answer of 04,
    exercise 1 (sign kept)."""
    records = _make_records() if records is None else records
    run1, run2 = _run_judge(records, seeds[0]), _run_judge(records, seeds[1])
    a1, a2 = _agreement(records, run1.decide), _agreement(records, run2.decide)
    n = len(records)
    return _steps(a1 - _agreement(records, _rule_filter), n), _steps(a2 - a1, n)


@functools.lru_cache(maxsize=2)  # the exercise's pair and the lesson's: once a session
def _lesson_agreement_steps(seeds: tuple[int, int] = PAIR) -> tuple[int, int]:
    return _agreement_steps(seeds=seeds)


def check_agreement_steps(answer: Any) -> bool:
    """04, exercise 1: for the judge's runs at SEED + 2 and SEED + 3, (agreement gap over the
    filter, the two-run difference in agreement), both in steps of 1/240."""
    steps_of = _lesson_agreement_steps

    def passed(truth):
        gap, diff = truth
        lesson = steps_of((_SEED, _SEED + 1))
        verdict = "larger than" if abs(gap) > abs(diff) else "no larger than"
        return (
            f"the judge's run at seed {PAIR[0]} agrees with the label on {abs(gap)} "
            f"records {'more' if gap >= 0 else 'fewer'} than the filter; its run at "
            f"seed {PAIR[1]} moves its agreement by {abs(diff)} records. This pair's "
            f"gap is {verdict} its own two-run difference, and the lesson's pair "
            f"moved by {abs(lesson[1])}: the two-run difference is itself a draw."
        )

    return _grade_numbers(
        answer,
        steps_of,
        places=None,
        either_sign=True,
        fill="fill in answer = (gap, difference): two whole numbers of steps, "
        "the gap between the run at SEED + 2 and the filter first.",
        kind="two numbers in parentheses, (gap, difference)",
        element="give whole numbers of steps, not rates: a step is what one record "
        "moves the agreement.",
        passed=passed,
        slips=[
            (
                lambda: steps_of((_SEED, _SEED + 1)),
                "those are the steps of the lesson's two runs. Run the judge again "
                "at the two seeds of the exercise.",
            ),
            (
                lambda: steps_of()[::-1],
                "the two numbers are the wrong way round: the gap between the "
                "approaches comes first, the judge's own movement second.",
            ),
        ],
        hint="not those steps. Agreement counts every record, clean or harmful, so one "
        "step is one record of all of them; set the agreement of the filter and of "
        "each run side by side in that step.",
    )


def _cold_fp_steps(records: Sequence[_Record] | None = None, temperature: float = COLD) -> int:
    """Clean records the judge (run at SEED) blocks at ``temperature`` minus the filter's:
    the answer of exercise 2 on ``records`` (default: the first ``BIG_DRAW``)."""
    records = _make_records(BIG_DRAW) if records is None else records
    run = _run_judge(records, _SEED, temperature=temperature)
    return _measure(records, run.decide)["fp"] - _measure(records, _rule_filter)["fp"]


@functools.lru_cache(maxsize=4)  # the answer and its slips: once a session
def _lesson_cold_fp_steps(temperature: float = COLD, lesson: bool = False) -> int:
    """:func:`_cold_fp_steps` on the first ``BIG_DRAW`` records (``lesson``: the lesson's
    240)."""
    return _cold_fp_steps(_make_records() if lesson else None, temperature)


def check_cold_judge_steps(answer: Any) -> bool:
    """04, exercise 2: on the first ``BIG_DRAW`` records, the judge's false block rate at
    temperature 0 minus the filter's, in steps of 1 / (clean records)."""
    records = _make_records(BIG_DRAW)
    cold = _lesson_cold_fp_steps

    def passed(gap):
        clean = _measure(records, _rule_filter)
        clean = clean["fp"] + clean["tn"]
        runs = [_run_judge(records, seed, temperature=COLD).labels for seed in (_SEED, _SEED + 1)]
        alike = (
            f"decide all {len(records):,} records alike"
            if not _disagreements(*runs)
            else "still differ on some records"
        )
        return (
            f"at temperature {COLD:g} the runs with seed and seed + 1 {alike}, "
            f"and the judge blocks {abs(gap)} clean records "
            f"{'more' if gap >= 0 else 'fewer'} than the filter: {gap:+d} "
            f"steps of 1/{clean:,}."
        )

    return _grade_number(
        answer,
        cold,
        places=None,
        fill="fill in answer: a whole number of steps, judge at temperature 0 minus the filter.",
        kind="a whole number of steps (one step is one clean record)",
        passed=passed,
        slips=[
            (
                lambda: cold(_TEMPERATURE),
                "that is the gap at the lesson's temperature. Run the judge "
                "again with the temperature at 0.",
            ),
            (
                lambda: cold(lesson=True),
                "that is the gap on the lesson's 240 records; the question asks about "
                f"the first {BIG_DRAW:,}, make_records({BIG_DRAW}).",
            ),
            (lambda: -cold(), "mind the sign: judge minus filter."),
        ],
        hint="not that count. A step is one clean record: compare the clean records "
        "the cold judge blocks with those the filter blocks.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_agreement_steps": _lesson_agreement_steps,
        "check_cold_judge_steps": _lesson_cold_fp_steps,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
