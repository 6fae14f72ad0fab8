"""Exercise checks for notebooks/14_label_raters.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..criteria import DEFAULT_RULES as _DEFAULT_RULES
from ..criteria import make_rule_filter as _make_rule_filter
from ..judge import run_judge as _run_judge
from ..metrics import agreement as _agreement
from ..raters import RATERS as _RATERS
from ..raters import cohen_kappa as _cohen_kappa
from ..raters import human_labels as _human_labels
from ..raters import rate as _rate
from ..raters import with_rates as _with_rates
from ..records import SEED as _SEED
from ..records import make_records as _make_records
from ._common import _grade_number

__all__ = ["GRID", "SUBSTANTIAL", "check_judge_kappa", "check_substantial_miss"]

SUBSTANTIAL = 0.61
"""Landis & Koch (1977) call a kappa from 0.61 to 0.80 'substantial'."""
GRID = 0.01
"""Exercise 2's step: the miss probability to two decimals."""


def _two_point(records, decide):
    return ["harmful" if decide(r) else "clean" for r in records]


def check_judge_kappa(answer: Any) -> bool:
    """14, exercise 1: Cohen's kappa of the judge's run 1 against the human label."""
    records = _make_records()
    human = _human_labels(records)

    def passed(kappa):
        decide = _run_judge(records, _SEED).decide
        raw = _agreement(records, decide)
        blocked = sum(1 for r in records if decide(r)) / len(records)
        harmful = sum(1 for h in human if h != "clean") / len(records)
        chance = (raw - kappa) / (1 - kappa)
        return (
            f"kappa {kappa:.4f} against an agreement of {raw:.4f}. Chance alone "
            f"would give {chance:.4f}: the judge blocks {blocked:.4f} of the "
            f"records and the label calls {harmful:.4f} harmful, so "
            f"{blocked:.4f} x {harmful:.4f} + {1 - blocked:.4f} x "
            f"{1 - harmful:.4f} = {chance:.4f} of the records match by luck."
        )

    return _grade_number(
        answer,
        _judge_kappa,
        places=3,
        fill="fill in my_kappa: a number, the observed agreement p_o less the "
        "chance agreement p_e, divided by one less p_e.",
        kind="kappa as a number",
        passed=passed,
        slips=[
            (
                lambda: _agreement(records, _run_judge(records, _SEED).decide),
                "that is the raw agreement p_o. Subtract the agreement chance "
                "alone would give, p_e, and divide by 1 - p_e.",
            ),
            (
                lambda: _cohen_kappa(
                    _two_point(records, _make_rule_filter(_DEFAULT_RULES)), human
                ),
                "that is the criteria filter's kappa; use the judge's first run (run_judge at "
                "SEED).",
            ),
        ],
        hint="not yet kappa. p_e is P(judge harmful) x P(label harmful) + "
        "P(judge clean) x P(label clean), each share taken over all "
        "240 records.",
    )


def _lenient_kappa(records, human, miss):
    return _cohen_kappa(_rate(records, _with_rates(miss=miss)[0]), human)


def _substantial_miss():
    """The answer of 14, exercise 2: the largest miss on the 0.01 grid with kappa >= 0.61."""
    records = _make_records()
    human = _human_labels(records)
    steps = [
        k
        for k in range(round(1 / GRID) + 1)
        if _lenient_kappa(records, human, k * GRID) >= SUBSTANTIAL
    ]
    return round(max(steps) * GRID, 2)


def _judge_kappa():
    """The answer of 14, exercise 1."""
    records = _make_records()
    return _cohen_kappa(
        _two_point(records, _run_judge(records, _SEED).decide), _human_labels(records)
    )


def check_substantial_miss(answer: Any) -> bool:
    """14, exercise 2: the largest miss probability (two decimals) at which the
    lenient rater's kappa with the human label is still 0.61 or more (short guideline).

    The hint never gives the kappa at the value tried, nor whether to go higher or lower:
    the kappas along the grid are what the student computes."""

    def passed(truth):
        records = _make_records()
        human = _human_labels(records)
        here = _lenient_kappa(records, human, truth)
        above = _lenient_kappa(records, human, truth + GRID)
        lesson = _rate(records, _RATERS[0])
        harmful = [x for x, h in zip(lesson, human) if h == "harmful"]
        return (
            f"at miss {truth:.2f} kappa is {here:.4f}; one step more gives "
            f"{above:.4f}. The lesson's lenient rater (miss {_RATERS[0].miss:.2f}, "
            f"kappa {_cohen_kappa(lesson, human):.4f}) is inside 'substantial', yet "
            f"it calls {harmful.count('clean')} of the {len(harmful)} harmful "
            "records clean."
        )

    return _grade_number(
        answer,
        _substantial_miss,
        places=2,
        fill="fill in my_miss: a probability between 0 and 1, to two decimals.",
        kind="the miss probability as a number",
        bounds=(0, 1),
        outside="is not a probability: give a number between 0 and 1.",
        grid=GRID,
        off_grid="has more than two decimals; the grid is 0.00, 0.01, ..., 1.00.",
        passed=passed,
        hint="not that miss. Compute the lenient rater's kappa with the human "
        "label as a function of the miss probability, along the grid, and "
        "take the largest miss at which it is still 0.61 or more.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_judge_kappa": _judge_kappa,
        "check_substantial_miss": _substantial_miss,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
