"""Exercise checks for notebooks/11_panel_design.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..panel import DIVERSE as _DIVERSE
from ..panel import ON_UNREADABLE as _ON_UNREADABLE
from ..panel import Panel as _Panel
from ..panel import judge_models as _judge_models
from ..panel_study import FREE_FORM_GUIDELINE as _FREE_FORM_GUIDELINE
from ..records import SEED as _SEED
from ..records import is_harmful as _is_harmful
from ..records import make_records as _make_records
from ._common import _grade_number, _grade_numbers

__all__ = [
    "MOVED_SEEDS",
    "RULE_NAMES",
    "SHARE_SEEDS",
    "check_moved_by_rule",
    "check_share_above_greedy",
]

MOVED_SEEDS = range(_SEED, _SEED + 200)
"""The panel seeds of 11's exercise 1: the lesson's seed and the 199 after it."""
SHARE_SEEDS = range(_SEED, _SEED + 1000)
"""The panel seeds of 11's exercise 2: notebook 11's 1,000 seeds."""


RULE_NAMES = _ReadOnlyDict({"fail-closed": "harmful", "fail-open": "clean", "abstain": "abstain"})
"""The prose's name of each ``on_unreadable`` rule: fail-closed counts an unreadable reply
harmful, fail-open counts it clean, abstain leaves the vote out."""


def _moved_by_name(seeds=MOVED_SEEDS):
    """The answer of 11, exercise 1: :func:`_moved_by_rule` keyed by the prose's names."""
    moved = _moved_by_rule(seeds)
    return {name: moved[rule] for name, rule in RULE_NAMES.items()}


def _moved_by_rule(seeds: Iterable[int] = MOVED_SEEDS) -> dict[str, float]:
    """Per ``on_unreadable`` rule: the mean number of records the diverse quorum-3 panel
    decides differently with the free-form guideline than with the lesson's, seed by seed."""
    import numpy as np

    records = _make_records()
    readable = _Panel(_judge_models(*_DIVERSE), quorum=3).run_many(records, seeds).harmful
    moved = {}
    for rule in _ON_UNREADABLE:
        panel = _Panel(_judge_models(*_DIVERSE), quorum=3, on_unreadable=rule)
        free = panel.run_many(records, seeds, _FREE_FORM_GUIDELINE).harmful
        moved[rule] = float(np.mean((free != readable).sum(axis=1)))
    return moved


def check_moved_by_rule(moved: Any) -> bool:
    """11, exercise 1: how many decisions each unreadable rule moves, on average."""
    names = ", ".join(map(repr, RULE_NAMES))

    def keys_hint(keys):
        if set(keys) == set(RULE_NAMES):
            return None
        inner = set(keys) & set(_ON_UNREADABLE) - {"abstain"}
        also = (
            " ('harmful' and 'clean' are what the rules count a reply as; name the rules "
            "by the words of the notebook)"
            if inner
            else ""
        )
        return (
            f"moved must have exactly the three keys {names} (got "
            f"{', '.join(map(repr, keys))}){also}."
        )

    def hint(off):
        which = (
            f"the figure for {off[0]!r} is"
            if len(off) == 1
            else f"the figures for {', '.join(map(repr, off))} are"
        )
        return (
            f"{which} not it. Each figure is a mean over the {len(MOVED_SEEDS)} seeds "
            "of the records a free-form run decides unlike the run of the same seed "
            "under the lesson's guideline."
        )

    def passed(truth):
        best = min(truth, key=truth.get)
        table = ", ".join(f"{name} {truth[name]:.2f}" for name in RULE_NAMES)
        return (
            f"over {len(MOVED_SEEDS)} panel seeds the free-form panel decides on "
            f"average {table} records unlike the same panel reading every reply; "
            f"'{best}' moves the fewest."
        )

    return _grade_numbers(
        moved,
        _moved_by_name,
        keys=tuple(RULE_NAMES),
        keys_hint=keys_hint,
        places=2,  # two decimals are enough
        fill="fill in moved: a dict with one number per rule, "
        "{'fail-open': ..., 'fail-closed': ..., 'abstain': ...}.",
        kind=f"a dict whose keys are the three rules {names}",
        passed=passed,
        hint=hint,
    )


def _share_above_greedy(seeds: Iterable[int] = SHARE_SEEDS) -> tuple[float, float]:
    """Share of the lesson's judge's runs (one ask, quorum 1) whose agreement is strictly
    above the greedy judge's, and the greedy judge's agreement (the same on every seed)."""
    import numpy as np

    records = _make_records()
    actual = np.array([_is_harmful(r) for r in records])
    agree = {}
    for name in ("lesson", "greedy"):
        harmful = _Panel(_judge_models(name)).run_many(records, seeds).harmful
        agree[name] = (harmful == actual).mean(axis=1)
    greedy = float(agree["greedy"][0])
    return float((agree["lesson"] > greedy).mean()), greedy


def check_share_above_greedy(share: Any) -> bool:
    """11, exercise 2: in what share of the runs the noisy judge beats the stable one."""
    return _grade_number(
        share,
        lambda: _share_above_greedy()[0],
        places=3,
        share=True,
        fill="fill in share: a number between 0 and 1, the share of the "
        f"{len(SHARE_SEEDS):,} runs of the lesson's judge whose agreement is "
        "above the greedy judge's.",
        kind="the share as a number between 0 and 1",
        passed=lambda truth: (
            f"in a share of {truth:.3f} of the {len(SHARE_SEEDS):,} runs the "
            "lesson's judge agrees with the label more often than the greedy "
            f"judge, which scores {_share_above_greedy()[1]:.4f} on every seed."
        ),
        hint="not that share. The greedy judge gives one agreement on every seed; the "
        f"share is of the {len(SHARE_SEEDS):,} runs of the lesson's judge whose "
        "agreement is strictly above it.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_moved_by_rule": _moved_by_name,
        "check_share_above_greedy": lambda: _share_above_greedy()[0],
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
