"""Exercise checks for notebooks/13_label_raters.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from ..criteria import DEFAULT_RULES, make_rule_filter
from ..judge import run_judge
from ..metrics import agreement
from ..raters import RATERS, cohen_kappa, human_labels, rate, with_rates
from ..records import SEED, make_records
from ._common import _is_number, _say

__all__ = ["GRID", "SUBSTANTIAL", "check_judge_kappa", "check_substantial_miss"]

SUBSTANTIAL = 0.61
"""Landis & Koch (1977) call a kappa from 0.61 to 0.80 'substantial'."""
GRID = 0.05


def _two_point(records, decide):
    return ["harmful" if decide(r) else "clean" for r in records]


def check_judge_kappa(answer):
    """13, exercise 1: Cohen's kappa of the judge's run 1 against the human label."""
    records = make_records()
    decide = run_judge(records, SEED).decide
    human = human_labels(records)
    kappa = cohen_kappa(_two_point(records, decide), human)
    raw = agreement(records, decide)
    if not _is_number(answer):
        return _say(False, "give kappa as a number: the observed agreement p_o less the "
                           "chance agreement p_e, divided by one less p_e.")
    if abs(answer - raw) < 5e-4:
        return _say(False, "that is the raw agreement p_o. Subtract the agreement chance "
                           "alone would give, p_e, and divide by 1 - p_e.")
    criteria = _two_point(records, make_rule_filter(DEFAULT_RULES))
    if abs(answer - cohen_kappa(criteria, human)) < 5e-4:
        return _say(False, "that is the criteria filter's kappa; use the judge's first run "
                           "(run_judge at SEED).")
    if abs(answer - kappa) > 5e-4:
        return _say(False, "not yet kappa. p_e is P(judge harmful) x P(label harmful) + "
                           "P(judge clean) x P(label clean), each share taken over all "
                           "240 records.")
    return _say(True, f"kappa {kappa:.4f} against an agreement of {raw:.4f}: chance alone "
                      "would give {:.4f} of it, because both lean to clean.".format(
                          (raw - kappa) / (1 - kappa)))


def _lenient_kappa(records, human, miss):
    return cohen_kappa(rate(records, with_rates(miss=miss)[0]), human)


def check_substantial_miss(answer):
    """13, exercise 2: the largest miss probability (a multiple of 0.05) at which the
    lenient rater's kappa with the human label is still 0.61 or more (short guideline)."""
    if not _is_number(answer) or not 0 <= answer <= 1:
        return _say(False, "give a probability between 0 and 1, a multiple of 0.05 "
                           "(0.05, 0.10, ...).")
    steps = round(answer / GRID)
    if abs(answer - steps * GRID) > 1e-9:
        return _say(False, f"{answer!r} is not a multiple of 0.05; try the grid 0.00, 0.05, "
                           "..., 1.00.")
    records = make_records()
    human = human_labels(records)
    here = _lenient_kappa(records, human, steps * GRID)
    if here < SUBSTANTIAL:
        return _say(False, f"at miss {steps * GRID:.2f} the lenient rater's kappa is "
                           f"{here:.4f}, below 0.61: go lower.")
    if steps < round(1 / GRID):
        above = _lenient_kappa(records, human, (steps + 1) * GRID)
        if above >= SUBSTANTIAL:
            return _say(False, f"at miss {steps * GRID:.2f} kappa is still {here:.4f}; a "
                               "larger miss probability keeps it at 0.61 or more too.")
        return _say(True, f"at miss {steps * GRID:.2f} kappa is {here:.4f}; one step more "
                          f"gives {above:.4f}. The lesson's lenient rater (miss "
                          f"{RATERS[0].miss:.2f}) is well inside 'substantial', yet it "
                          "lets many harmful records through.")
    return _say(False, "a rater who misses every harmful record agrees only by chance.")
