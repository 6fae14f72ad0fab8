"""Notebook 06 - the judge over 1,000 runs: the 95% run band and the changed records.

Everything here works on a :class:`~lessonlib.many.ManyRuns` (one row a judge
run) or on plain arrays of per-run figures:

* the **95% run band**, the range of observed values that holds the middle 95% of the runs
  (:func:`run_band`, the one definition the course uses);
* how many records two runs decide differently: for every pair of runs
  (:func:`pair_changes`), per record (:func:`flip_probability`) and as the
  **expected changed records** (:func:`expected_changed`, the one definition);
* a run's **percentile** among the runs, the mid-rank (:func:`percentile`, the one
  definition: 06, 07, 08 and 14 print it);
* the lesson's two claims re-read over the runs (:func:`recall_gap`,
  :func:`fbr_comparison`) and the band at other temperatures
  (:func:`temperature_sweep`);
* for notebook 04, the bars of each gap between the approaches against the judge's
  two-run difference, counted in steps (:func:`plot_gap_steps`; the notebook counts them).

The names the notebooks call are doors: each checks its arguments first and names the
parameter at fault (tests/test_bad_input.py); the helpers behind them trust their callers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import (
    check_callable,
    check_collection,
    check_instance,
    check_int,
    check_items,
    check_number,
)
from ._frozen import ReadOnlyDict
from .criteria import rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import JudgeSettings, SettingsChanges, resolve_settings
from .many import ManyRuns, check_seeds, run_judge_many
from .metrics import FIGURES, RATES, _measured, trusted
from .records import Record, check_records
from .simulator import TEMPERATURE

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

__all__ = [
    "LEVEL",
    "MAX_PAIR_RUNS",
    "TITLES",
    "criteria_figures",
    "expected_changed",
    "fbr_comparison",
    "figures",
    "flip_probability",
    "key_figures",
    "pair_changes",
    "percentile",
    "plot_changes",
    "plot_figures",
    "plot_gap_steps",
    "plot_sweep",
    "recall_gap",
    "run_band",
    "temperature_sweep",
]

LEVEL = 0.95
"""The share of runs a run band holds: the course's 95% run band."""
TITLES = ReadOnlyDict({name: figure.title for name, figure in FIGURES.items()})
"""Figure name -> title, read off :data:`lessonlib.metrics.FIGURES` (notebook 04 prints it)."""


def _matched(records, runs):
    if tuple(r.no for r in records) != runs.record_nos:
        raise ValueError("records must be the records the runs judged, in the same order")


# The doors' checks: each names the parameter and what is allowed; the helpers trust them.


def _runs(records, runs):
    """``records`` and ``runs`` checked: a ManyRuns of these very records, in order."""
    records = check_records(records)
    check_instance("runs", runs, ManyRuns)
    _matched(records, runs)
    return records


def _share(name, value, low_open=True):
    """A share strictly between 0 and 1 (a level), or in [0, 1] (a threshold)."""
    value = check_number(name, value)
    if not (0 < value < 1 if low_open else 0 <= value <= 1):
        interval = "strictly between 0 and 1" if low_open else "in [0, 1]"
        raise ValueError(f"{name} must be a share {interval}, got {value!r}")
    return value


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
    """The course's one **percentile** of ``x`` among ``values`` (GLOSSARY.md#percentile;
    notebooks 06, 07, 08, 14): the share of the values, in %, strictly below ``x``, plus half
    the share equal to it (the mid-rank: a tie counts half).  ``values`` are one figure per
    run; 50 is a typical run, near 100 one that few runs reach."""
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


def figures(runs: ManyRuns) -> dict[str, np.ndarray]:
    """Per run: precision, recall, false block rate (rounded as ``measure``) and agreement."""
    return check_instance("runs", runs, ManyRuns).figures()


def run_band(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The 95% run band (notebook 06): the observed values that hold the middle ``level``.

    The ends are runs' own values, read off the sorted values by the inverted
    CDF: with S runs and tail = (1 - level) / 2 the low end is the
    ceil(S * tail)-th smallest value and the high end the ceil(S * (1 - tail))-th.
    For 1,000 runs and level 0.95 these are the 25th and the 975th value, so at
    most 24 runs lie below the band and at most 25 above it.  The one
    definition of a run band in the course (06, 09, 10 and the explorers).
    """
    level = _share("level", level)
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


MAX_PAIR_RUNS = 5000
"""pair_changes keeps one count per pair: 5,000 runs give 12.5 million pairs (100 MB)."""


def pair_changes(harmful: np.ndarray) -> np.ndarray:
    """Records decided differently, for every pair of different runs (i < j): a 1-D int array.

    ``harmful`` is a (runs, records) boolean matrix; 1,000 runs give 499,500
    pairs, in the order (0, 1), (0, 2), ..., (1, 2), ...  At most MAX_PAIR_RUNS
    runs (use a subset of the runs beyond that).
    """
    f = _matrix(harmful).astype(np.float64)
    if f.shape[0] > MAX_PAIR_RUNS:
        raise ValueError(
            f"harmful has {f.shape[0]} runs; pair_changes takes at most "
            f"{MAX_PAIR_RUNS} (use a subset of the runs)"
        )
    counts = f.sum(axis=1)
    out = []
    for i in range(0, len(f) - 1, 256):  # blocks of rows bound the memory
        rows = f[i : i + 256]
        both = rows @ f.T  # records both runs block
        differ = counts[i : i + 256, None] + counts[None, :] - 2 * both
        for k in range(len(rows)):
            out.append(differ[k, i + k + 1 :])
    return np.rint(np.concatenate(out)).astype(np.int64)


def flip_probability(harmful: np.ndarray) -> np.ndarray:
    """Per record: the chance that two different runs (drawn without replacement) decide it
    differently.

    With k of S runs blocking the record it is 2 k (S - k) / (S (S - 1)); summed
    over the records it equals the mean of :func:`pair_changes`.
    """
    x = _matrix(harmful)
    s = x.shape[0]
    k = np.count_nonzero(x, axis=0).astype(np.float64)
    return 2 * k * (s - k) / (s * (s - 1))


def expected_changed(harmful: np.ndarray) -> float:
    """Expected changed records (notebook 06): records two different runs decide differently.

    The sum over records of :func:`flip_probability`; it equals the mean, over
    every pair of distinct runs, of the records the pair decides differently.
    The one definition of "expected changed records" in the course.
    """
    return float(flip_probability(harmful).sum())  # flip_probability checks harmful


def criteria_figures(
    records: Sequence[Record], decide: Callable[[Record], bool] = rule_filter
) -> dict[str, Any]:
    """The criteria filter's precision, recall, false block rate and agreement (one run)."""
    records = check_records(records)
    decide = check_callable("decide", decide, "a function record -> bool")
    return _criteria_figures(records, decide)


def _criteria_figures(records, decide=rule_filter):
    """:func:`criteria_figures` for checked arguments."""
    m, agree = _measured(records, trusted(records, decide))
    return {
        **{k: m[k] for k in RATES},
        "agreement": agree,
        "fp": m["fp"],
        "tp": m["tp"],
    }


def recall_gap(
    records: Sequence[Record], runs: ManyRuns, level: float = LEVEL
) -> dict[str, float]:
    """Judge recall minus criteria recall, per run: the run band and the share of runs above 0.

    Both recalls are rounded to four places (as ``measure`` rounds), so the gap
    ends are rounded to four places too.
    """
    records = _runs(records, runs)
    level = _share("level", level)
    crit = _criteria_figures(records)
    recall = runs.measure()["recall"]
    gap = recall - crit["recall"]
    lo, hi = run_band(gap, level)
    return {
        "criteria": crit["recall"],
        "judge low": float(recall.min()),
        "gap low": round(lo, 4),
        "gap high": round(hi, 4),
        "share judge higher": float(np.mean(gap > 0)),
    }


def fbr_comparison(
    records: Sequence[Record], runs: ManyRuns, level: float = LEVEL
) -> dict[str, float]:
    """Judge false block rate against the criteria's, per run.

    Returns the shares of runs in which the judge blocks fewer, as many and
    more clean records than the criteria filter, and the run band of the
    difference counted in clean records (judge fp minus criteria fp).
    """
    records = _runs(records, runs)
    level = _share("level", level)
    crit = _criteria_figures(records)
    diff = runs.confusion()[1] - crit["fp"]
    lo, hi = run_band(diff, level)
    return {
        "criteria": crit["false_block_rate"],
        "criteria fp": crit["fp"],
        "share judge below": float(np.mean(diff < 0)),
        "share equal": float(np.mean(diff == 0)),
        "share judge above": float(np.mean(diff > 0)),
        "fp difference low": int(lo),
        "fp difference high": int(hi),
    }


def temperature_sweep(
    records: Sequence[Record],
    temperatures: Iterable[float],
    seeds: Iterable[int],
    level: float = LEVEL,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> list[dict[str, float]]:
    """The run band at each temperature: each figure's band and the expected changed records.

    For every temperature the judge (``settings`` with the keyword ``changes``, as
    run_judge takes them, its temperature set to each of ``temperatures``) runs once per
    seed (``run_judge_many``); a row holds the temperature, each figure's run band ends and
    width, and the expected changed records between two runs (:func:`expected_changed`).
    """
    records = check_records(records)
    temperatures = check_collection(
        "temperatures", temperatures, "a collection of temperatures (numbers >= 0)", "temperature"
    )
    for t in temperatures:
        check_number("temperatures (each temperature)", t, minimum=0.0)
    seeds = check_seeds(seeds)
    level = _share("level", level)
    if "temperature" in changes:
        raise TypeError("temperature is what the sweep varies: give the temperatures instead")
    settings = resolve_settings(settings, changes)
    rows = []
    for t in temperatures:
        runs = run_judge_many(records, seeds, settings, temperature=t)
        row = {"temperature": t}
        for name, values in figures(runs).items():
            lo, hi = run_band(values, level)
            row[f"{name} low"], row[f"{name} high"], row[f"{name} width"] = lo, hi, hi - lo
        row["mean changes"] = expected_changed(runs.harmful) if len(runs) > 1 else 0.0
        rows.append(row)
    return rows


def key_figures(
    records: Sequence[Record],
    runs: ManyRuns,
    marks: Sequence[int] = (0, 1),
    threshold: float = 0.05,
    level: float = LEVEL,
) -> str:
    """The figures notebook 06 quotes, as text (at most 80 columns): the run bands, the
    changed records, the two claims."""
    records = _runs(records, runs)
    marks = check_collection("marks", marks, "two run numbers (e.g. (0, 1))", "run number")
    if len(marks) != 2 or not all(
        isinstance(m, int) and not isinstance(m, bool) and 0 <= m < len(runs) for m in marks
    ):
        raise ValueError(f"marks must be two run numbers from 0 to {len(runs) - 1}, got {marks!r}")
    threshold = _share("threshold", threshold, low_open=False)
    level = _share("level", level)
    pct = f"{100 * level:g}%"
    lines = [
        f"{len(runs)} judge runs on {len(runs.record_nos)} records (in brackets: a run's "
        f"percentile among them)",
        f"{'figure':<17}{'mean':>7}  {pct + ' run band':>18}  {'run 1':>14}  {'run 2':>14}",
    ]
    for name, values in figures(runs).items():
        lo, hi = run_band(values, level)
        marked = "  ".join(
            f"{values[i]:.4f} ({_position(values, values[i]):4.1f})" for i in marks[:2]
        )
        lines.append(f"{TITLES[name]:<17}{values.mean():>7.4f}  {lo:>8.4f} .. {hi:.4f}  {marked}")
    changes = pair_changes(runs.harmful)
    lo, hi = run_band(changes, level)
    first = int(np.count_nonzero(runs.harmful[marks[0]] != runs.harmful[marks[1]]))
    flip = flip_probability(runs.harmful)
    lines += [
        f"changed records between two runs: expected {flip.sum():.4f} , {pct} run band "
        f"{lo:.0f} .. {hi:.0f}",
        f"  the lesson's pair: {first} (percentile {_position(changes, first):.1f})",
        f"records with flip probability above {threshold:g}: "
        f"{int(np.count_nonzero(flip > threshold))} of {len(flip)} ; never flipped: "
        f"{int(np.count_nonzero(flip == 0))}",
    ]
    gap = recall_gap(records, runs, level)
    lines += [
        f"recall, judge - criteria: {pct} run band {gap['gap low']:.4f} .. "
        f"{gap['gap high']:.4f} ; judge higher",
        f"  in {100 * gap['share judge higher']:.1f}% of runs ; lowest judge recall "
        f"{gap['judge low']:.4f} against {gap['criteria']:.4f}",
    ]
    fbr = fbr_comparison(records, runs, level)
    lines += [
        f"clean records blocked, judge - criteria ({fbr['criteria fp']}): {pct} run band "
        f"{fbr['fp difference low']:+d} .. {fbr['fp difference high']:+d}",
        f"  judge below in {100 * fbr['share judge below']:.1f}% of runs , equal in "
        f"{100 * fbr['share equal']:.1f}% , above in {100 * fbr['share judge above']:.1f}%",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Notebook 04: each gap between the approaches against the two-run difference, in steps
# ---------------------------------------------------------------------------------------------


@slide_figure
def plot_gap_steps(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """Notebook 04: the gap next to the two-run difference, both in steps, as bars.  A row a
    figure: ``{"figure": name in FIGURES, "count": records it counts, "gap": steps,
    "two-run difference": steps}`` (the notebook computes them from two ``measure``)."""
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
    ax.set_yticks(y, [f"{TITLES[r['figure']]}\n(1 step = 1/{r['count']})" for r in rows])
    ax.invert_yaxis()
    ax.set(xlabel="steps (records)", title="each gap against the judge's two-run difference")
    ax.set_xlim(0, max(gaps + diffs) * 1.5 + 1)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# Figures for notebook 06 (matplotlib; each returns the Figure, the notebook calls plt.show())
# ---------------------------------------------------------------------------------------------


@slide_figure
def plot_figures(
    records: Sequence[Record], runs: ManyRuns, marks: Sequence[int] = (0, 1)
) -> Figure:
    """Histograms of the four figures over the runs, with the marked runs and the criteria."""
    import matplotlib.pyplot as plt

    records = _runs(records, runs)
    marks = check_collection("marks", marks, "two run numbers (e.g. (0, 1))", "run number")
    for i in marks:
        check_int("marks (each run number)", i, minimum=0)
        if i >= len(runs):
            raise ValueError(f"marks must be run numbers below {len(runs)}, got {i}")
    values, crit = figures(runs), _criteria_figures(records)
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
        ax.set(title=TITLES[name], ylabel="runs")
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


_RUN_STYLES = ("--", ":", "-.")
"""Notebook 06: the line styles of the marked runs in :func:`plot_figures` (the filter is a
solid line), so a run is told from another without its colour."""


@slide_figure
def plot_changes(changes: Sequence[int] | np.ndarray, mark: int | None = None) -> Figure:
    """Histogram of changed records between two runs; ``mark`` draws the lesson's count."""
    import matplotlib.pyplot as plt

    array = np.asarray(changes) if hasattr(changes, "__len__") else None
    if array is not None and array.ndim == 1 and array.size == 0:
        raise ValueError("changes must hold at least one count, got none")
    if array is None or array.ndim != 1 or array.dtype.kind not in "iu":
        raise TypeError(
            "changes must be a sequence of counts of changed records (whole numbers, e.g. "
            f"pair_changes(...)), got {type(changes).__name__}"
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
def plot_sweep(
    rows: Sequence[Mapping[str, float]], records: Sequence[Record] | None = None
) -> Figure:
    """The temperature sweep as a picture: the 95% run bands of recall and FBR (left) and
    the expected changed records between two runs (right), against temperature."""
    import matplotlib.pyplot as plt

    rows = check_items("rows", rows, Mapping)  # type: ignore[type-abstract]
    crit = None if records is None else criteria_figures(records)
    t = [r["temperature"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(FIGURE_WIDTH * 1.1, 5.0))
    for name, colour in (("recall", "C3"), ("false_block_rate", "C0")):
        low, high = [r[f"{name} low"] for r in rows], [r[f"{name} high"] for r in rows]
        left.fill_between(t, low, high, color=colour, alpha=0.3)
        # labelled where they are drawn (inside the band, by the filter's line), not in a
        # legend that needs the colours
        short = "FBR" if name == "false_block_rate" else TITLES[name]
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
        if crit is not None:
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
