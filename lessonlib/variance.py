"""Step 6 - the judge's run-to-run band, measured over many seeds instead of two.

Everything here works on a :class:`~lessonlib.many.ManyRuns` (one row a judge
run) or on plain arrays of per-run figures:

* where a value falls in a distribution (:func:`position`) and a central
  interval that holds at least 95% of the runs (:func:`run_band`);
* how many records change between two runs, over every pair of runs
  (:func:`pair_changes`), and each record's flip probability
  (:func:`flip_probability`): the chance that two different runs disagree on it;
* per class, how many records are unstable (:func:`class_stability`);
* the lesson's two claims re-read against the distribution
  (:func:`recall_gap`, :func:`fbr_comparison`);
* the band at other temperatures (:func:`temperature_sweep`).
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_count, check_number, check_records, check_vector
from ._frozen import ReadOnlyDict
from .criteria import rule_filter
from .many import ManyRuns, check_decisions, check_seeds, run_judge_many
from .metrics import agreement, measure
from .records import CLASSES

RATES = ("precision", "recall", "false_block_rate")
FIGURES = RATES + ("agreement",)
"""The four per-run figures the notebook follows."""
LEVEL = 0.95


def _values(values, name="values"):
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D collection of numbers, got "
                        f"{type(values).__name__}")
    raw = np.asarray(values)
    if raw.dtype.kind not in "biuf" and raw.size:
        raise TypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    values = raw.astype(float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D collection of numbers, "
                         f"got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError(f"{name} must be finite numbers, found nan or inf")
    return values


def _level(level):
    level = check_number("level", level, minimum=0.0)
    if level >= 1.0:
        raise ValueError(f"level must be below 1, got {level!r}")
    return level


def _matched(records, runs):
    """``records`` checked, and the very records ``runs`` judged, in the same order."""
    records = check_records(records)
    _runs(runs)
    if tuple(r.no for r in records) != runs.record_nos:
        raise ValueError("records must be the records the runs judged, in the same order")
    return records


def _marks(marks, runs, least=0):
    """Run indices into ``runs``, as a tuple (at least ``least`` of them)."""
    if isinstance(marks, (str, bytes)) or not hasattr(marks, "__iter__"):
        raise TypeError(f"marks must be a tuple of run indices, got {type(marks).__name__} "
                        f"{marks!r}")
    marks = tuple(check_count("marks", i) for i in marks)
    if len(marks) < least:
        raise ValueError(f"marks must hold at least {least} run indices, got {marks!r}")
    for i in marks:
        if not -len(runs) <= i < len(runs):
            raise ValueError(f"marks must be run indices in [-{len(runs)}, {len(runs)}), "
                             f"got {i}")
    return marks


def _runs(runs):
    if not isinstance(runs, ManyRuns):
        raise TypeError(f"runs must be a ManyRuns (from run_judge_many), got "
                        f"{type(runs).__name__}")
    return runs


def figures(runs):
    """Per run: precision, recall, false block rate (rounded as ``measure``) and agreement."""
    _runs(runs)
    m = runs.measure()
    out = {k: m[k] for k in RATES}
    out["agreement"] = runs.agreement()
    return out


def position(values, x):
    """Where ``x`` falls among ``values``: shares below, equal and above, and the mid-rank.

    The mid-rank percentile is ``100 * (below + equal / 2)``: 50 for the median,
    and a tie with many runs lands in the middle of the tie.
    """
    values = _values(values)
    x = check_number("x", x)
    below, equal = float(np.mean(values < x)), float(np.mean(values == x))
    return {"below": below, "equal": equal, "above": 1.0 - below - equal,
            "percentile": 100.0 * (below + equal / 2)}


def run_band(values, level=LEVEL):
    """A central interval of observed values holding at least ``level`` of the runs.

    The ends are runs' own values, read off the sorted values by the inverted
    CDF: with S runs and tail = (1 - level) / 2 the low end is the
    ceil(S * tail)-th smallest value and the high end the ceil(S * (1 - tail))-th.
    For 1,000 runs and level 0.95 these are the 25th and the 975th value, so at
    most 24 runs lie below the interval and at most 25 above it.
    """
    values = np.sort(_values(values))
    level = _level(level)
    n, tail = len(values), (1 - level) / 2
    # round away the last-bit noise of (1 - level) / 2 before taking the ceiling
    lo = max(math.ceil(round(n * tail, 9)) - 1, 0)
    hi = max(math.ceil(round(n * (1 - tail), 9)) - 1, 0)
    return float(values[lo]), float(values[hi])


def summary(runs, marks=(0, 1), level=LEVEL):
    """One row per figure: mean, the interval ends, and the value and percentile of each marked run.

    ``marks`` are run indices (the lesson's two runs are 0 and 1 when the seeds
    start at SEED).
    """
    _runs(runs)
    marks = _marks(marks, runs)
    _level(level)
    rows = []
    for name, values in figures(runs).items():
        lo, hi = run_band(values, level)
        row = {"figure": name, "mean": float(values.mean()), "low": lo, "high": hi,
               "width": hi - lo}
        for k, i in enumerate(marks, 1):
            row[f"run {k}"] = float(values[i])
            row[f"run {k} percentile"] = position(values, values[i])["percentile"]
        rows.append(row)
    return rows


MAX_PAIR_RUNS = 5000
"""pair_changes keeps one count per pair: 5,000 runs give 12.5 million pairs (100 MB)."""


def pair_changes(harmful):
    """Records decided differently, for every pair of different runs (i < j): a 1-D int array.

    ``harmful`` is a (runs, records) boolean matrix; 1,000 runs give 499,500
    pairs, in the order (0, 1), (0, 2), ..., (1, 2), ...  At most MAX_PAIR_RUNS
    runs (use :func:`neighbour_changes` or a subset of runs beyond that).
    """
    x = check_decisions(harmful, min_rows=2)
    if x.shape[0] > MAX_PAIR_RUNS:
        raise ValueError(f"harmful has {x.shape[0]} runs; pair_changes takes at most "
                         f"{MAX_PAIR_RUNS} (use neighbour_changes, or a subset of the runs)")
    f = x.astype(np.float64)
    counts = f.sum(axis=1)
    out = []
    for i in range(0, len(f) - 1, 256):                 # blocks of rows bound the memory
        rows = f[i:i + 256]
        both = rows @ f.T                               # records both runs block
        differ = counts[i:i + 256, None] + counts[None, :] - 2 * both
        for k in range(len(rows)):
            out.append(differ[k, i + k + 1:])
    return np.rint(np.concatenate(out)).astype(np.int64)


def neighbour_changes(harmful):
    """Records decided differently between run i and run i + 1 (seed and next seed)."""
    x = check_decisions(harmful, min_rows=2)
    return np.count_nonzero(x[1:] != x[:-1], axis=1)


def harmful_share(harmful):
    """Per record: the share of runs that block it."""
    x = check_decisions(harmful, min_rows=1)
    return np.count_nonzero(x, axis=0) / x.shape[0]


def expected_changed(harmful):
    """Expected number of records on which two different runs decide differently.

    The sum over records of :func:`flip_probability`; it equals the mean, over
    every pair of distinct runs, of the records the pair decides differently.
    The one definition of "expected changed records" (06 and 07 use it).
    """
    return float(flip_probability(harmful).sum())


def flip_probability(harmful):
    """Per record: the chance that two different runs (drawn without replacement) disagree.

    With k of S runs blocking the record it is 2 k (S - k) / (S (S - 1)); summed
    over the records it equals the mean of :func:`pair_changes`.
    """
    x = check_decisions(harmful, min_rows=2)
    s = x.shape[0]
    k = np.count_nonzero(x, axis=0).astype(np.float64)
    return 2 * k * (s - k) / (s * (s - 1))


def class_stability(records, runs, threshold=0.05):
    """Per class: records, unstable records (flip probability > ``threshold``), their share.

    Also the expected number of that class's records that change between two
    runs (the sum of their flip probabilities).  Classes without records are
    left out.
    """
    records = _matched(records, runs)
    threshold = check_number("threshold", threshold, minimum=0.0)
    flip = flip_probability(runs.harmful)
    cls = np.array([r.cls for r in records])
    rows = []
    for name in CLASSES:
        members = cls == name
        if members.any():
            unstable = int(np.count_nonzero(flip[members] > threshold))
            rows.append({"class": name, "records": int(members.sum()), "unstable": unstable,
                         "unstable share": unstable / int(members.sum()),
                         "expected changes": float(flip[members].sum())})
    return rows


def flag_stability(records, runs, threshold=0.05):
    """Per number of flags on a record: records, unstable records and mean flip probability.

    The judge's evidence is the flag list, so this shows which evidence makes
    it hesitate: a record with no flag is read as 'yok' (clean), several flags
    outweigh the prior, a single flag leaves the two labels close.
    """
    records = _matched(records, runs)
    threshold = check_number("threshold", threshold, minimum=0.0)
    flip = flip_probability(runs.harmful)
    flags = np.array([len(r.features.on()) for r in records])
    rows = []
    for k in np.unique(flags).tolist():
        members = flags == k
        rows.append({"flags": k, "records": int(members.sum()),
                     "unstable": int(np.count_nonzero(flip[members] > threshold)),
                     "mean flip probability": float(flip[members].mean())})
    return rows


def criteria_figures(records, decide=rule_filter):
    """The criteria filter's precision, recall, false block rate and agreement (one run)."""
    records = check_records(records)
    m = measure(records, decide)
    return {**{k: m[k] for k in RATES}, "agreement": agreement(records, decide),
            "fp": m["fp"], "tp": m["tp"]}


def recall_gap(records, runs, level=LEVEL):
    """Judge recall minus criteria recall, per run: the interval and the share of runs above 0.

    Both recalls are rounded to four places (as ``measure`` rounds), so the gap
    ends are rounded to four places too.
    """
    _matched(records, runs)
    _level(level)
    crit = criteria_figures(records)
    recall = runs.measure()["recall"]
    gap = recall - crit["recall"]
    lo, hi = run_band(gap, level)
    return {"criteria": crit["recall"], "judge low": float(recall.min()),
            "gap low": round(lo, 4), "gap high": round(hi, 4),
            "share judge higher": float(np.mean(gap > 0))}


def fbr_comparison(records, runs, level=LEVEL):
    """Judge false block rate against the criteria's, per run.

    Returns the shares of runs in which the judge blocks fewer, as many and
    more clean records than the criteria filter, and the interval of the
    difference counted in clean records (judge fp minus criteria fp).
    """
    _matched(records, runs)
    _level(level)
    crit = criteria_figures(records)
    fp = runs.confusion()[1]
    diff = fp - crit["fp"]
    lo, hi = run_band(diff, level)
    return {"criteria": crit["false_block_rate"], "criteria fp": crit["fp"],
            "share judge below": float(np.mean(diff < 0)),
            "share equal": float(np.mean(diff == 0)),
            "share judge above": float(np.mean(diff > 0)),
            "fp difference low": int(lo), "fp difference high": int(hi)}


JUDGE_ARGS = ("guideline", "cues", "spurious", "max_output", "unreadable_as", "chunk")
"""The run_judge_many arguments temperature_sweep passes on (the rest it sets itself)."""


def temperature_sweep(records, temperatures, seeds, level=LEVEL, **judge_args):
    """The band at each temperature: interval width of each figure and changes between runs.

    For every temperature the judge runs once per seed (``run_judge_many``); a
    row holds the temperature, each figure's interval ends and width, and the
    mean number of records that change between two runs.
    """
    records = check_records(records)
    seeds = check_seeds(seeds)
    if isinstance(temperatures, (str, bytes)) or not hasattr(temperatures, "__iter__"):
        raise TypeError(f"temperatures must be a collection of temperatures, got "
                        f"{type(temperatures).__name__} {temperatures!r}")
    temps = [check_number("temperatures", t, minimum=0.0) for t in temperatures]
    if not temps:
        raise ValueError("temperatures must hold at least one temperature")
    _level(level)
    unknown = sorted(set(judge_args) - set(JUDGE_ARGS))
    if unknown:
        raise TypeError(f"judge_args: unknown argument(s) {', '.join(unknown)}; allowed: "
                        f"{', '.join(JUDGE_ARGS)}")
    rows = []
    for t in temps:
        runs = run_judge_many(records, seeds, t, **judge_args)
        row = {"temperature": t}
        for name, values in figures(runs).items():
            lo, hi = run_band(values, level)
            row[f"{name} low"], row[f"{name} high"], row[f"{name} width"] = lo, hi, hi - lo
        row["mean changes"] = (float(flip_probability(runs.harmful).sum())
                               if len(seeds) > 1 else 0.0)
        rows.append(row)
    return rows


def key_figures(records, runs, marks=(0, 1), threshold=0.05, level=LEVEL):
    """The figures notebook 06 quotes, as text: the band, the changes, the two claims."""
    records = _matched(records, runs)
    marks = _marks(marks, runs, least=2)
    check_number("threshold", threshold, minimum=0.0)
    _level(level)
    if len(runs) < 2:
        raise ValueError(f"runs must hold at least two runs (pairs are compared), got "
                         f"{len(runs)}")
    lines = [f"{len(runs)} judge runs on {len(runs.record_nos)} records "
             f"({100 * level:g}% intervals hold at least that share of runs)"]
    for row in summary(runs, marks, level):
        marked = " and ".join(f"{row[f'run {k}']:.4f} (percentile {row[f'run {k} percentile']:.1f})"
                              for k in range(1, len(marks) + 1))
        lines.append(f"  {TITLES[row['figure']]:<17} mean {row['mean']:.4f} , interval "
                     f"{row['low']:.4f} .. {row['high']:.4f} , lesson runs {marked}")
    changes = pair_changes(runs.harmful)
    lo, hi = run_band(changes, level)
    first = int(neighbour_changes(runs.harmful[[marks[0], marks[1]]])[0])
    lines.append(f"records changed between two runs: mean {changes.mean():.2f} , interval "
                 f"{lo:.0f} .. {hi:.0f} , the lesson's pair {first} (percentile "
                 f"{position(changes, first)['percentile']:.1f})")
    flip = flip_probability(runs.harmful)
    lines.append(f"records with flip probability above {threshold}: "
                 f"{int(np.count_nonzero(flip > threshold))} of {len(flip)} ; "
                 f"never flipped: {int(np.count_nonzero(flip == 0))}")
    gap = recall_gap(records, runs, level)
    lines.append(f"recall gap judge - criteria: interval {gap['gap low']:.4f} .. "
                 f"{gap['gap high']:.4f} ; judge higher in {100 * gap['share judge higher']:.1f}% "
                 f"of runs ; lowest judge recall {gap['judge low']:.4f} against "
                 f"{gap['criteria']:.4f}")
    fbr = fbr_comparison(records, runs, level)
    lines.append(f"clean records blocked, judge - criteria ({fbr['criteria fp']}): interval "
                 f"{fbr['fp difference low']:+d} .. {fbr['fp difference high']:+d} ; judge below "
                 f"in {100 * fbr['share judge below']:.1f}% of runs , equal in "
                 f"{100 * fbr['share equal']:.1f}% , above in "
                 f"{100 * fbr['share judge above']:.1f}%")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Figures for notebook 06 (matplotlib; each returns the Figure, the notebook calls plt.show())
# ---------------------------------------------------------------------------------------------

TITLES = ReadOnlyDict({"precision": "precision", "recall": "recall",
          "false_block_rate": "false block rate", "agreement": "agreement"})


def plot_figures(records, runs, marks=(0, 1)):
    """Histograms of the four figures over the runs, with the marked runs and the criteria."""
    import matplotlib.pyplot as plt

    _matched(records, runs)
    marks = _marks(marks, runs)
    values, crit = figures(runs), criteria_figures(records)
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5))
    for ax, name in zip(axes.ravel(), FIGURES):
        v = values[name]
        edges = np.unique(v)
        step = np.min(np.diff(edges)) if len(edges) > 1 else 0.01
        if len(edges) > 40:             # precision: ratios on no regular grid
            bins = 25
        else:                           # one bar per reachable value (a step of 1/count)
            bins = np.append(edges, edges[-1] + step) - step / 2
        ax.hist(v, bins=bins, color="0.7")
        for k, i in enumerate(marks, 1):
            ax.axvline(v[i], color=f"C{k}", linestyle="--", label=f"lesson run {k}")
        ax.axvline(crit[name], color="C3", label="criteria filter")
        ax.set(title=TITLES[name], xlabel=TITLES[name], ylabel="runs")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"{len(runs)} judge runs on {len(runs.record_nos)} records")
    fig.tight_layout()
    return fig


def plot_changes(changes, mark=None):
    """Histogram of records changed between two runs; ``mark`` draws the lesson's count."""
    import matplotlib.pyplot as plt

    changes = check_vector("changes", changes, "iu", "whole numbers (counts)")
    if changes.min() < 0:
        raise ValueError(f"changes must be counts >= 0, found {changes.min()}")
    if mark is not None:
        check_number("mark", mark, minimum=0.0)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    counts = np.bincount(changes)
    ax.bar(np.arange(len(counts)), counts / counts.sum(), color="0.6", width=0.9)
    if mark is not None:
        ax.axvline(mark, color="C1", linestyle="--", label=f"the lesson's pair: {mark}")
        ax.legend()
    ax.set(title="records that change between two runs (every pair of runs)",
           xlabel="records changed", ylabel="share of pairs")
    fig.tight_layout()
    return fig


def plot_flip(records, runs, threshold=0.05):
    """Each record's flip probability, sorted, coloured by whether its class is harmful."""
    import matplotlib.pyplot as plt

    records = _matched(records, runs)
    threshold = check_number("threshold", threshold, minimum=0.0)
    flip = flip_probability(runs.harmful)
    order = np.argsort(-flip, kind="stable")
    harmful = np.array([r.cls != "clean" for r in records])[order]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    x = np.arange(len(flip))
    ax.bar(x[~harmful], flip[order][~harmful], color="C0", width=1.0, label="clean record")
    ax.bar(x[harmful], flip[order][harmful], color="C3", width=1.0, label="harmful record")
    ax.axhline(threshold, color="0.3", linestyle=":", label=f"unstable above {threshold}")
    ax.set(title="flip probability of each record (two runs disagree)",
           xlabel="records, most unstable first", ylabel="flip probability")
    ax.legend()
    fig.tight_layout()
    return fig


def _sweep_rows(rows):
    """Rows as temperature_sweep returns them (a non-empty list of dicts)."""
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be the list temperature_sweep returns, got "
                        f"{type(rows).__name__}")
    rows = list(rows)
    if not rows:
        raise ValueError("rows must hold at least one temperature_sweep row, got none")
    keys = ["temperature", "mean changes"] + [f"{n} {e}" for n in ("recall", "false_block_rate")
                                              for e in ("low", "high")]
    for r in rows:
        if not isinstance(r, dict) or any(k not in r for k in keys):
            raise TypeError(f"rows must hold temperature_sweep rows (dicts with "
                            f"{', '.join(keys)}), found {r!r}")
    return rows


def plot_sweep(rows, records=None):
    """The band against temperature: 95% intervals of recall and FBR, and changes between runs."""
    import matplotlib.pyplot as plt

    _sweep_rows(rows)
    if records is not None:
        records = check_records(records)
    t = [r["temperature"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    for name, colour in (("recall", "C3"), ("false_block_rate", "C0")):
        left.fill_between(t, [r[f"{name} low"] for r in rows], [r[f"{name} high"] for r in rows],
                          color=colour, alpha=0.3, label=f"judge {TITLES[name]}, 95% of runs")
        if records is not None:
            left.axhline(criteria_figures(records)[name], color=colour, linestyle="--",
                         label=f"criteria {TITLES[name]}")
    left.set(title="the band widens with temperature", xlabel="temperature", ylabel="rate")
    left.legend(fontsize=8)
    right.plot(t, [r["mean changes"] for r in rows], marker="o", color="0.3")
    right.set(title="records changed between two runs (mean)", xlabel="temperature",
              ylabel="records")
    fig.tight_layout()
    return fig
