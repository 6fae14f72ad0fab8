"""Notebook 06 - the judge over 1,000 runs: the 95% run band and the changed records.

The course's one definition of each: the run band (:func:`run_band`), the expected changed
records (:func:`expected_changed`) and a run's percentile among runs (:func:`percentile`,
the mid-rank; 06, 07, 08 and 14), and the figures of notebooks 04 and 06.  The doors check
their arguments and name the parameter at fault; the helpers behind them trust their callers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import check_instance, check_int, check_items, check_number
from .criteria import rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .many import ManyRuns
from .metrics import FIGURES, confusion, rates
from .records import Record, check_records
from .simulator import TEMPERATURE

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "LEVEL",
    "expected_changed",
    "percentile",
    "plot_changes",
    "plot_figures",
    "plot_gap_steps",
    "plot_sweep",
    "run_band",
]

LEVEL = 0.95
"""The share of runs a run band holds: the course's 95% run band."""


def _level(level):
    """A band's level checked: a share strictly between 0 and 1 (every band door's check)."""
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be a share strictly between 0 and 1, got {level!r}")
    return level


def _z(level):
    """The normal quantile that leaves (1 - level) / 2 in each tail (1.96 for 0.95)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1 - (1 - _level(level)) / 2)


def _matrix(harmful):
    """``harmful`` checked: a (runs, records) array of bools with at least two runs."""
    array = np.asarray(harmful) if hasattr(harmful, "__len__") else None
    if array is None or array.dtype != bool or array.ndim != 2:
        raise TypeError(
            "harmful must be a (runs, records) array of bools, one row a run (e.g. "
            f"ManyRuns.harmful), got {type(harmful).__name__}"
            + ("" if array is None else f" of {array.dtype} with shape {array.shape}")
        )
    if array.shape[0] < 2 or array.shape[1] < 1:
        raise ValueError(
            f"harmful must hold at least two runs (rows) of at least one record, got shape "
            f"{array.shape}"
        )
    return array


def percentile(values: Sequence[float] | np.ndarray, x: float) -> float:
    """The percentile of ``x`` among ``values`` (one figure per run), the mid-rank: the % of
    values strictly below ``x`` plus half the % equal to it (GLOSSARY.md#percentile)."""
    array = _check_runs(values)
    x = check_number("x", x)
    return _position(array, x)


def _check_runs(values):
    """``values`` checked as one figure per run, a 1-d float array (the door of
    :func:`percentile` and ``score.first_run_percentile``)."""
    array = np.asarray(values) if hasattr(values, "__len__") else None
    if array is None or isinstance(values, (str, bytes)) or array.ndim != 1:
        raise TypeError(
            "values must be one figure per run (a sequence of numbers, e.g. "
            f"ManyRuns.agreement()), got {type(values).__name__}"
        )
    if array.size == 0 or array.dtype.kind not in "iuf":
        raise ValueError(
            f"values must hold at least one number, got {array.size} of {array.dtype}"
        )
    return array.astype(float)


def _position(values, x):
    """:func:`percentile` for checked arguments."""
    below, equal = float(np.mean(values < x)), float(np.mean(values == x))
    return 100.0 * (below + equal / 2)


def run_band(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The 95% run band (notebook 06): ``(low, high)``, the ceil(S * tail)-th and the
    ceil(S * (1 - tail))-th of the S sorted ``values``, tail = (1 - level) / 2 (for 1,000
    runs the 25th and the 975th).  Refuses an empty sequence, NaN and a level outside (0, 1).
    """
    level = _level(level)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(
            f"values must be a sequence of numbers (one a run), got {type(values).__name__}"
        )
    try:
        values = np.sort(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise TypeError("values must be a sequence of numbers (one a run)") from None
    if values.ndim != 1 or not len(values):
        raise ValueError(
            f"values must be a flat sequence of at least one number, got shape {values.shape}"
        )
    if np.isnan(values[-1]):  # NaN sorts last
        raise ValueError("values must be numbers; it holds NaN")
    n, tail = len(values), (1 - level) / 2
    # round away the last-bit noise of (1 - level) / 2 before taking the ceiling
    lo = max(math.ceil(round(n * tail, 9)) - 1, 0)
    hi = max(math.ceil(round(n * (1 - tail), 9)) - 1, 0)
    return float(values[lo]), float(values[hi])


def expected_changed(harmful: np.ndarray) -> float:
    """Expected changed records (notebook 06): the mean, over pairs of different runs, of the
    records they decide differently; ``harmful`` is a (runs, records) bool matrix.  With k of
    S runs blocking a record, its flip probability is 2 k (S - k) / (S (S - 1)); this is their
    sum."""
    x = _matrix(harmful)
    s, k = x.shape[0], np.count_nonzero(x, axis=0).astype(np.float64)
    return float((2 * k * (s - k) / (s * (s - 1))).sum())


def _filter_figures(records):
    """The rule filter's four figures on checked ``records`` (the plots' reference lines)."""
    return rates(*confusion(records, rule_filter))


@slide_figure
def plot_gap_steps(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """Notebook 04: bars of each gap and the two-run difference, in steps; a row a figure,
    ``{"figure", "count", "gap", "two-run difference"}``."""
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, Mapping)  # type: ignore[type-abstract]
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 3.6))
    y = np.arange(len(rows))
    gaps = [abs(r["gap"]) for r in rows]
    diffs = [abs(r["two-run difference"]) for r in rows]
    ax.barh(y - 0.2, gaps, height=0.4, color="C3")
    ax.barh(y + 0.2, diffs, height=0.4, color="0.6", hatch="//", edgecolor="white")
    # each bar says what it is: no legend to match colours against
    for k, (g, d) in enumerate(zip(gaps, diffs)):
        ax.text(
            g + 0.2,
            k - 0.2,
            f"{g} gap (judge run 1 - filter)" if k == 0 else f"{g} gap",
            va="center",
        )
        ax.text(d + 0.2, k + 0.2, f"{d} two-run difference", va="center")
    ax.xaxis.get_major_locator().set_params(integer=True)  # type: ignore[call-arg]
    ax.set_yticks(y, [f"{FIGURES[r['figure']].title}\n(1 step = 1/{r['count']})" for r in rows])
    ax.invert_yaxis()
    ax.set(xlabel="steps (records)", title="each gap against the judge's two-run difference")
    ax.set_xlim(0, max(gaps + diffs) * 1.5 + 1)
    fig.tight_layout()
    return fig


@slide_figure
def plot_figures(records: Sequence[Record], runs: ManyRuns) -> Figure:
    """Histograms of the four figures over the runs (at least two), with the lesson's two runs
    (runs 0 and 1) and the criteria filter marked."""
    import matplotlib.pyplot as plt

    records = check_records(records)
    check_instance("runs", runs, ManyRuns)
    if tuple(r.no for r in records) != runs.record_nos:
        raise ValueError("records must be the records the runs judged, in the same order")
    if len(runs) < 2:
        raise ValueError(f"runs must hold at least two runs (two are marked), got {len(runs)}")
    marks = (0, 1)
    values, crit = runs.figures(), _filter_figures(records)
    fig, axes = plt.subplots(2, 2, figsize=(FIGURE_WIDTH, 5.8))
    for ax, name in zip(axes.ravel(), FIGURES):
        v = values[name]
        edges = np.unique(v)
        step = np.min(np.diff(edges)) if len(edges) > 1 else 0.01
        if len(edges) > 40:  # precision: ratios on no regular grid
            bins: int | np.ndarray = 25
        else:  # one bar per reachable value (a step of 1/count)
            bins = np.append(edges, edges[-1] + step) - step / 2
        ax.hist(v, bins=bins, color="0.7")
        for k, i in enumerate(marks, 1):
            ax.axvline(
                v[i],
                color=f"C{k}",
                linestyle=_RUN_STYLES[(k - 1) % 3],
                linewidth=2,
                label=f"lesson run {k}",
            )
        ax.axvline(crit[name], color="C3", linewidth=2, label="criteria filter")
        ax.set(title=FIGURES[name].title, ylabel="runs")
    # one key for the four panels, above them, told apart by line style as well as colour
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.suptitle(f"{len(runs)} judge runs on {len(runs.record_nos)} records")
    fig.legend(
        handles,
        labels,
        loc="upper center",
        ncol=len(labels),
        frameon=False,
        bbox_to_anchor=(0.5, 0.95),
    )
    fig.tight_layout(rect=(0, 0, 1, 0.87))
    return fig


_RUN_STYLES = ("--", ":", "-.")  # the marked runs (the filter is solid): no colour needed


@slide_figure
def plot_changes(changes: Sequence[int] | np.ndarray, mark: int | None = None) -> Figure:
    """Histogram of changed records between two runs (counts, one a pair); ``mark`` draws the
    lesson's count."""
    import matplotlib.pyplot as plt

    array = np.asarray(changes) if hasattr(changes, "__len__") else None
    if array is not None and array.ndim == 1 and array.size == 0:
        raise ValueError("changes must hold at least one count, got none")
    if array is None or array.ndim != 1 or array.dtype.kind not in "iu":
        raise TypeError(
            "changes must be a sequence of counts of changed records (whole numbers, e.g. "
            f"one a pair of runs), got {type(changes).__name__}"
        )
    if (array < 0).any():
        raise ValueError("changes must hold counts >= 0, found a negative one")
    if mark is not None:
        check_int("mark", mark, minimum=0)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 3.8))
    counts = np.bincount(changes)
    ax.bar(np.arange(len(counts)), counts / counts.sum(), color="0.6", width=0.9)
    if mark is not None:
        ax.axvline(mark, color="C1", linestyle="--", label=f"the lesson's pair: {mark}")
        ax.legend()
    ax.set(
        title="changed records between two runs (every pair of runs)",
        xlabel="changed records",
        ylabel="share of pairs",
    )
    fig.tight_layout()
    return fig


@slide_figure
def plot_sweep(rows: Sequence[Mapping[str, float]], records: Sequence[Record]) -> Figure:
    """Notebook 06: the run bands of recall and FBR (left) and the expected changed records
    (right) against temperature; a row a temperature, ``{"temperature", "recall low",
    "recall high", "false_block_rate low", "false_block_rate high", "mean changes"}``."""
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, Mapping)  # type: ignore[type-abstract]
    crit = _filter_figures(check_records(records))
    t = [r["temperature"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(FIGURE_WIDTH * 1.1, 5.0))
    for name, colour in (("recall", "C3"), ("false_block_rate", "C0")):
        low, high = [r[f"{name} low"] for r in rows], [r[f"{name} high"] for r in rows]
        left.fill_between(t, low, high, color=colour, alpha=0.3)
        # labelled where they are drawn (inside the band, by the filter's line), not in a
        # legend that needs the colours
        short = FIGURES[name].short
        k = int(len(t) * 0.72)
        left.text(
            t[k],
            (low[k] + high[k]) / 2,
            f"judge {short}: run band",
            color=colour,
            ha="center",
            va="center",
            fontweight="bold",
        )
        left.axhline(crit[name], color=colour, linestyle="--")
        above = name == "recall"
        left.text(
            t[0],
            crit[name] + (0.015 if above else -0.015),
            f"criteria {short}",
            color=colour,
            ha="left",
            va="bottom" if above else "top",
        )
    for ax in (left, right):
        ax.axvline(TEMPERATURE, color="0.4", linestyle=":", linewidth=1)
    left.text(
        TEMPERATURE,
        1.0,
        f" lesson {TEMPERATURE:.2f}",
        color="0.3",
        va="top",
        transform=left.get_xaxis_transform(),
    )
    left.set(title="95% run bands against temperature", xlabel="temperature", ylabel="rate")
    left.set_ylim(0, 1.08)
    left.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    right.plot(t, [r["mean changes"] for r in rows], marker="o", color="0.3")
    right.set(title="expected changed records", xlabel="temperature", ylabel="records")
    fig.tight_layout()
    return fig
