"""Notebook 11 - panel design: what a setup costs and buys, the length cue, unreadable replies.

A :class:`Setup` names a panel: which fictional judges (see
:data:`lessonlib.panel.JUDGES`), how many samples each, how the votes are
combined and what an unreadable reply counts as.  :func:`study` runs each
setup once at the lesson's seed (the figures a reader would get from one run)
and over many panel seeds, and returns one :class:`SetupResult` per setup.

The words are the course's (notebooks/GLOSSARY.md): the **95% run band** of a
figure is :func:`lessonlib.variance.run_band` over the panel seeds, and the
**expected changed records** are :func:`lessonlib.variance.expected_changed`
of the runs' decisions - the one definition of each, shared with notebook 06.
**Agreement** is agreement with the human label only.

Checks sit at the door: the functions and the class a notebook calls check
their arguments; the helpers behind them trust their callers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ._checks import (
    check_choice,
    check_items,
    check_seed,
    check_str,
)
from .figures import FIGURE_WIDTH, slide_figure
from .judge import GUIDELINE
from .metrics import RATES, _measured, four_counts, rates
from .panel import DIVERSE, Panel, PanelMany, judge_models
from .records import SEED, Record, check_records, is_harmful
from .variance import expected_changed, run_band

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure

__all__ = [
    "BAND_SEEDS",
    "COMPARISON",
    "CUE",
    "DIVERSE_PANEL",
    "FREE_FORM_GUIDELINE",
    "GREEDY",
    "METRICS",
    "RULE_NAMES",
    "SINGLE",
    "UNREADABLE",
    "Setup",
    "SetupResult",
    "plot_band_against_cost",
    "rates_many",
    "study",
]

FREE_FORM_GUIDELINE = (
    "Su kaydin ozniteliklerine bak ve etiket yaz : temiz ya da zararli . Oznitelikler : "
)
"""The lesson's guideline without 'tek' (single): the model then answers in a sentence,
and one reply form ('degerlendirme tamamlandi', 'assessment done') carries no label."""

BAND_SEEDS = 1000
"""How many panel seeds :func:`study` runs by default (from the lesson's seed on)."""
METRICS = ("agreement", *RATES)
"""The figures of :data:`lessonlib.metrics.FIGURES` a setup is scored on, agreement first."""


@dataclass(frozen=True)
class Setup:
    """A named panel configuration built from the fictional judges (notebook 11)."""

    name: str
    judges: tuple = ("lesson",)
    quorum: int = 1
    aggregate: str = "median"
    min_agreement: float = 0.5
    on_unreadable: str = "harmful"

    def panel(self) -> Panel:
        """A :class:`Panel` of fresh judge models with this configuration."""
        return Panel(
            judge_models(*self.judges),
            self.quorum,
            self.aggregate,
            self.min_agreement,
            self.on_unreadable,
        )


SINGLE = Setup("lesson's judge")
DIVERSE_PANEL = Setup("diverse panel", DIVERSE)
COMPARISON = (
    SINGLE,
    Setup("lesson's judge q3", quorum=3),
    Setup("lesson's judge q5", quorum=5),
    DIVERSE_PANEL,
    Setup("diverse panel q3", DIVERSE, 3),
)
"""The lesson's judge sampled 1, 3 and 5 times; the diverse panel sampled 1 and 3 times."""
GREEDY = (
    Setup("greedy judge", ("greedy",)),
    Setup("greedy judge q3", ("greedy",), 3),
    Setup("greedy judge q5", ("greedy",), 5),
)
"""One judge at temperature 0, sampled 1, 3 and 5 times."""
CUE = (
    SINGLE,
    Setup("plain judge", ("plain",)),
    DIVERSE_PANEL,
    Setup("diverse, unanimous", DIVERSE, min_agreement=1.0),
)
"""Setups whose treatment of the spurious length cue is compared."""
RULE_NAMES = MappingProxyType(
    {"clean": "fail-open", "harmful": "fail-closed", "abstain": "abstain"}
)
UNREADABLE = tuple(
    Setup(f"{base}, {RULE_NAMES[rule]}", judges, quorum, on_unreadable=rule)
    for base, judges, quorum in (("judge alone", ("lesson",), 1), ("panel q3", DIVERSE, 3))
    for rule in ("clean", "harmful", "abstain")
)
"""Fail-open ('clean'), fail-closed ('harmful') and 'abstain', for one judge and the
diverse panel with quorum 3."""


def rates_many(harmful: np.ndarray, actual: np.ndarray) -> dict[str, np.ndarray]:
    """Per run (row of ``harmful``): agreement, precision, recall and false block rate.

    Not rounded; 0.0 where a rate has no denominator, as ``measure`` does.
    """
    import numpy as np

    figures = rates(*four_counts(actual, np.asarray(harmful, dtype=bool)), rounded=False)
    return {name: figures[name] for name in METRICS}


@dataclass(frozen=True)
class SetupResult:
    """One setup: its figures at the lesson's seed and over many panel seeds."""

    setup: Setup
    scores: dict  # measure() at the lesson's seed, plus 'agreement'
    calls: int  # at the lesson's seed
    input_tokens: int
    unreadable: int
    bands: dict  # metric -> 95% run band (low, high) over the panel seeds
    means: dict  # metric -> mean over the panel seeds
    mean_calls: float  # over the panel seeds
    changed: float  # expected changed records (variance.expected_changed)
    many: PanelMany = field(repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.setup.name

    def width(self, metric: str) -> float:
        """The width (high - low) of the 95% run band of ``metric``."""
        low, high = self.bands[metric]
        return high - low


def study(
    records: Sequence[Record],
    setups: Iterable[Setup],
    seeds: Iterable[int] | None = None,
    seed: int = SEED,
    guideline: str = GUIDELINE,
) -> tuple[SetupResult, ...]:
    """One :class:`SetupResult` per setup: a run at ``seed`` and the runs over ``seeds``.

    ``seeds`` (at least two) defaults to ``BAND_SEEDS`` consecutive panel seeds
    from ``seed``.  Notebook 11 defined it.
    """
    import numpy as np

    from .many import check_seeds

    records = check_records(records)
    setups = check_items("setups", setups, Setup)
    seed = check_seed(seed)
    check_str("guideline", guideline)
    seeds = range(seed, seed + BAND_SEEDS) if seeds is None else check_seeds(seeds)
    if len(seeds) < 2:
        raise ValueError(f"seeds must hold at least two panel seeds (a band), got {len(seeds)}")
    actual = np.array([is_harmful(r) for r in records])
    panels = [setup.panel() for setup in setups]  # every setup checked before any run
    rows = []
    for setup, panel in zip(setups, panels):
        many = panel.run_many(records, seeds, guideline)
        # the run at ``seed`` is a row of the many-seed runs when ``seed`` is among ``seeds``
        # (the default): PanelMany.run(i) is what Panel.run returns, so it is not run again
        run = (
            many.run(tuple(seeds).index(seed))
            if seed in seeds
            else panel.run(records, seed, guideline)
        )
        scores, agree = _measured(records, run.decider(records))
        scores["agreement"] = agree
        per_seed = rates_many(many.harmful, actual)
        rows.append(
            SetupResult(
                setup,
                scores,
                run.calls,
                run.input_tokens,
                run.unreadable,
                {m: run_band(per_seed[m]) for m in METRICS},
                {m: float(per_seed[m].mean()) for m in METRICS},
                float(np.mean(many.calls)),
                expected_changed(many.harmful),
                many,
            )
        )
    return tuple(rows)


# --- the picture ------------------------------------------------------------------


def _series_name(setup):
    """A setup's name without its quorum part ("lesson's judge q3" -> "lesson's judge")."""
    return re.sub(r" q\d+$", "", setup.name)


@slide_figure
def plot_band_against_cost(
    rows: Sequence[SetupResult], metric: str = "agreement", beside: str = "agreement"
) -> Figure:
    """Two panels against the mean calls per run: the width of the 95% run band of
    ``metric`` (left) and what the runs score on ``beside`` (right: the mean over the
    panel seeds, with the 95% run band as a bar).

    Setups that differ only in quorum are joined into one line, each point marked
    with its quorum (q1, q3, ...); each line has its own marker and dash, so lines that
    fall on one another both show.  Returns the figure.  Notebook 11 defined it.
    """
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, SetupResult)
    check_choice("metric", metric, METRICS)
    check_choice("beside", beside, METRICS)
    fig, (left, right) = plt.subplots(1, 2, figsize=(FIGURE_WIDTH, 4.6))
    series: dict[str, list[SetupResult]] = {}
    for r in rows:
        series.setdefault(_series_name(r.setup), []).append(r)
    # lines that fall on one another (the greedy judge and the diverse panel score the same
    # mean) stay apart by their marker and dash: filled circles solid, hollow squares dashed
    styles: list[dict[str, Any]] = [
        dict(marker="o", linestyle="-"),
        dict(marker="s", linestyle="--", markersize=10, markerfacecolor="none", markeredgewidth=2),
        dict(marker="^", linestyle=":", markersize=9),
    ]
    for k, (name, members) in enumerate(series.items()):
        members = sorted(members, key=lambda r: r.setup.quorum)
        xs = [r.mean_calls for r in members]
        style = styles[k % len(styles)]
        (line,) = left.plot(xs, [r.width(metric) for r in members], label=name, **style)
        means = [r.means[beside] for r in members]
        errors = [
            [max(m - r.bands[beside][0], 0.0) for m, r in zip(means, members)],
            [max(r.bands[beside][1] - m, 0.0) for m, r in zip(means, members)],
        ]
        right.errorbar(
            xs, means, yerr=errors, capsize=4, color=line.get_color(), label=name, **style
        )
        for r, x, y in zip(members, xs, [r.width(metric) for r in members]):
            left.annotate(f"q{r.setup.quorum}", (x, y), textcoords="offset points", xytext=(5, 5))
    seeds = len(rows[0].many)
    left.set_title(f"width of the 95% run band ({seeds:,} seeds)")
    left.set_ylabel(f"{metric.replace('_', ' ')}: band width")
    left.set_ylim(-0.002, max(r.width(metric) for r in rows) * 1.15 + 0.002)
    right.set_title("the runs' mean and 95% run band")
    right.set_ylabel(beside.replace("_", " "))
    for ax in (left, right):
        ax.set_xlabel("model calls per run (mean)")
        ax.set_xlim(0, max(r.mean_calls for r in rows) * 1.1)
        ax.grid(alpha=0.3)
    left.legend()
    fig.tight_layout()
    return fig
