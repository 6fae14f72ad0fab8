"""Step 7 - what a panel of judges costs and what it buys (the comparisons of notebook 07).

A :class:`Setup` names a panel: which fictional judges (see
:data:`lessonlib.panel.JUDGES`), how many samples each, how the votes are
combined and what an unreadable reply counts as.  :func:`study` runs each
setup once at the lesson's seed (the figures a reader would get from one run)
and over many panel seeds (the run-to-run band), and returns one
:class:`Row` per setup.

The band of a figure is the central 95% of its values over the panel seeds:
the interval from the 2.5th to the 97.5th percentile (numpy's linear
interpolation), and its width.  ``changed`` estimates how many records two
runs of the setup decide differently: with ``p`` the share of runs that block
a record, two independent runs disagree on it with probability ``2 p (1 - p)``;
the sum over the records is the expected count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._checks import (check_choice, check_int, check_names, check_number, check_record,
                      check_records, check_seed, check_str, check_vector)
from .judge import GUIDELINE
from .metrics import agreement, measure
from .panel import (AGGREGATES, DIVERSE, JUDGE_NAMES, ON_UNREADABLE, Panel, _read_min_agreement,
                    judge_models)
from .records import FEATURES, SEED, is_harmful

FREE_FORM_GUIDELINE = ("Su kaydin ozniteliklerine bak ve etiket yaz : temiz ya da zararli . "
                       "Oznitelikler : ")
"""The lesson's guideline without 'tek' (single): the model then answers in a sentence,
and one reply form ('degerlendirme tamamlandi', 'assessment done') carries no label."""

BAND_SEEDS = 1000
"""How many panel seeds a band is measured over (from the lesson's seed on)."""
METRICS = ("agreement", "precision", "recall", "false_block_rate")
LENGTH_FLAG = "excessive_length"


@dataclass(frozen=True)
class Setup:
    """A named panel configuration built from the fictional judges."""

    name: str
    judges: tuple = ("lesson",)
    quorum: int = 1
    aggregate: str = "median"
    min_agreement: float = 0.5
    on_unreadable: str = "harmful"

    def __post_init__(self):
        check_str("name", self.name)
        if (isinstance(self.judges, str) or not hasattr(self.judges, "__iter__")
                or not self.judges):
            raise TypeError(f"judges must be a non-empty tuple of judge names "
                            f"({', '.join(JUDGE_NAMES)}), got {self.judges!r}")
        for name in self.judges:
            check_choice("judges", name, JUDGE_NAMES)
        check_int("quorum", self.quorum, minimum=1)
        check_str("aggregate", self.aggregate)
        check_choice("aggregate", self.aggregate, AGGREGATES)
        _read_min_agreement(self.min_agreement)
        check_str("on_unreadable", self.on_unreadable)
        check_choice("on_unreadable", self.on_unreadable, ON_UNREADABLE)

    def panel(self):
        """A :class:`Panel` of fresh judge models with this configuration."""
        return Panel(judge_models(*self.judges), self.quorum, self.aggregate,
                     self.min_agreement, self.on_unreadable)


SINGLE = Setup("single judge")
DIVERSE_PANEL = Setup("diverse panel", DIVERSE)
COMPARISON = (
    SINGLE,
    Setup("single judge, quorum 3", quorum=3),
    Setup("single judge, quorum 5", quorum=5),
    DIVERSE_PANEL,
    Setup("diverse panel, quorum 3", DIVERSE, 3),
)
"""The five setups the issue asks to compare."""
GREEDY = (
    Setup("greedy judge", ("greedy",)),
    Setup("greedy judge, quorum 3", ("greedy",), 3),
    Setup("greedy judge, quorum 5", ("greedy",), 5),
)
"""One judge at temperature 0, sampled 1, 3 and 5 times."""
CUE = (
    SINGLE,
    Setup("plain judge", ("plain",)),
    DIVERSE_PANEL,
    Setup("diverse panel, unanimous", DIVERSE, min_agreement=1.0),
)
"""Setups whose treatment of the spurious length cue is compared."""
UNREADABLE = tuple(
    Setup(f"{base} / {rule}", judges, quorum, on_unreadable=rule)
    for base, judges, quorum in (("single judge", ("lesson",), 1),
                                 ("diverse panel, quorum 3", DIVERSE, 3))
    for rule in ("clean", "harmful", "abstain"))
"""Fail-open ('clean'), fail-closed ('harmful') and 'abstain', for one judge and a panel."""


def rates_many(harmful, actual):
    """Per run (row of ``harmful``): agreement, precision, recall and false block rate.

    Not rounded; 0.0 where a rate has no denominator, as ``measure`` does.
    """
    import numpy as np

    from .many import confusion_many

    tp, fp, fn, tn = confusion_many(harmful, actual)     # checks both arguments

    def ratio(num, den):
        return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)

    return {"agreement": (tp + tn) / (tp + fp + fn + tn),
            "precision": ratio(tp, tp + fp),
            "recall": ratio(tp, tp + fn),
            "false_block_rate": ratio(fp, fp + tn)}


def band(values, coverage=0.95):
    """(low, high) of the central ``coverage`` share of ``values`` (linear percentiles)."""
    import numpy as np

    coverage = check_number("coverage", coverage)
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage must be a share in (0, 1], got {coverage!r}")
    values = check_vector("values", values, "iuf", "real numbers")
    if not np.isfinite(values).all():
        raise ValueError("values must be finite numbers, found nan or inf")
    tail = (100 - coverage * 100) / 2
    low, high = np.percentile(np.asarray(values, dtype=float), [tail, 100 - tail])
    return float(low), float(high)


def expected_changed(harmful):
    """Expected number of records two independent runs decide differently."""
    from .many import check_decisions

    p = check_decisions(harmful, min_rows=1).mean(axis=0)
    return float((2 * p * (1 - p)).sum())


@dataclass(frozen=True)
class Row:
    """One setup: its figures at the lesson's seed and its band over many panel seeds."""

    setup: Setup
    scores: dict                  # measure() at the lesson's seed
    agreement: float              # at the lesson's seed
    calls: int                    # at the lesson's seed
    input_tokens: int
    unreadable: int
    bands: dict                   # metric -> (low, high) over the panel seeds
    mean_calls: float             # over the panel seeds
    changed: float                # expected records changed between two runs
    many: object = field(repr=False, compare=False)

    @property
    def name(self):
        return self.setup.name

    def width(self, metric):
        check_choice("metric", metric, METRICS)
        low, high = self.bands[metric]
        return high - low


def _rows(rows):
    """A non-empty collection of :class:`Row` (from :func:`study`), as a tuple."""
    if isinstance(rows, (str, bytes, Row)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a tuple of Row (from study), got {type(rows).__name__}")
    rows = tuple(rows)
    if not rows:
        raise ValueError("rows must hold at least one Row (from study), got none")
    for r in rows:
        if not isinstance(r, Row):
            raise TypeError(f"rows must hold Row objects (from study), found "
                            f"{type(r).__name__} {r!r}")
    return rows


def study(records, setups, seeds=None, seed=SEED, guideline=GUIDELINE):
    """One :class:`Row` per setup: a run at ``seed`` and the band over ``seeds``.

    ``seeds`` defaults to ``BAND_SEEDS`` consecutive panel seeds from ``seed``.
    """
    import numpy as np

    from .many import check_seeds

    records = check_records(records)
    check_seed(seed)
    check_str("guideline", guideline)
    if isinstance(setups, (Setup, str)) or not hasattr(setups, "__iter__"):
        raise TypeError("setups must be a non-empty tuple of Setup")
    setups = tuple(setups)
    if not setups:
        raise TypeError("setups must be a non-empty tuple of Setup")
    for s in setups:
        if not isinstance(s, Setup):
            raise TypeError(f"setups must hold Setup objects, got {type(s).__name__}")
    seeds = range(seed, seed + BAND_SEEDS) if seeds is None else check_seeds(seeds)
    actual = np.array([is_harmful(r) for r in records])
    panels = [setup.panel() for setup in setups]      # every setup checked before any run
    rows = []
    for setup, panel in zip(setups, panels):
        many = panel.run_many(records, seeds, guideline)
        # the run at ``seed`` is a row of the band's runs when ``seed`` is among ``seeds``
        # (the default): PanelMany.run(i) is what Panel.run returns, so it is not run again
        run = many.run(seeds.index(seed)) if seed in seeds else panel.run(records, seed,
                                                                              guideline)
        per_seed = rates_many(many.harmful, actual)
        rows.append(Row(setup, measure(records, run.decide), agreement(records, run.decide),
                        run.calls, run.input_tokens, run.unreadable,
                        {m: band(per_seed[m]) for m in METRICS},
                        float(np.mean(many.calls)), expected_changed(many.harmful), many))
    return tuple(rows)


def table_text(rows, bands=("agreement", "recall", "false_block_rate")):
    """The rows as a text table: figures at the lesson's seed, then band widths."""
    rows = _rows(rows)
    bands = check_names("bands", bands, METRICS)
    short = {"agreement": "agree", "precision": "prec", "recall": "recall",
             "false_block_rate": "FBR"}
    width = max(24, *(len(r.name) for r in rows))
    head = (f"{'setup':<{width}} {'calls':>6} {'tokens':>7} {'agree':>7} {'prec':>7} "
            f"{'recall':>7} {'FBR':>7} | band " + " ".join(f"{short[b]:>6}" for b in bands)
            + f" {'changed':>8}")
    lines = [head]
    for r in rows:
        s = r.scores
        lines.append(f"{r.name:<{width}} {r.calls:>6} {r.input_tokens:>7} {r.agreement:>7.4f} "
                     f"{s['precision']:>7.4f} {s['recall']:>7.4f} "
                     f"{s['false_block_rate']:>7.4f} |      "
                     + " ".join(f"{r.width(b):>6.4f}" for b in bands)
                     + f" {r.changed:>8.2f}")
    return "\n".join(lines)


def band_text(rows, metrics=("recall", "false_block_rate")):
    """Each row's 95% band (low - high) for ``metrics``, with the mean calls per run."""
    rows = _rows(rows)
    metrics = check_names("metrics", metrics, METRICS)
    width = max(24, *(len(r.name) for r in rows))
    lines = [f"{'setup':<{width}} {'calls/run':>9} " + " ".join(
        f"{m.replace('false_block_rate', 'FBR') + ' 95% band':>19}" for m in metrics)]
    for r in rows:
        lines.append(f"{r.name:<{width}} {r.mean_calls:>9.1f} " + " ".join(
            f"{r.bands[m][0]:>8.4f} - {r.bands[m][1]:.4f}" for m in metrics))
    return "\n".join(lines)


# --- the spurious length cue ----------------------------------------------------

def flags_on(record):
    """The names of the flags set on ``record``, in FEATURES order."""
    check_record(record)
    return tuple(f for f in FEATURES if record.features[f])


def cue_groups(records):
    """The records the length cue can move: clean ones that carry the length flag, and
    harmful ones whose only flag is the length flag."""
    records = check_records(records)
    clean_long = tuple(r for r in records if not is_harmful(r) and r.features[LENGTH_FLAG])
    only_long = tuple(r for r in records if is_harmful(r) and flags_on(r) == (LENGTH_FLAG,))
    return clean_long, only_long


def cue_text(records, rows):
    """Mean number of blocks per run, over the band's seeds, in the two cue groups."""
    import numpy as np

    rows = _rows(rows)
    clean_long, only_long = cue_groups(records)
    index = {r.no: i for i, r in enumerate(check_records(records))}
    width = max(26, *(len(r.name) for r in rows))
    lines = [f"{'setup':<{width}} {'clean, long (false blocks)':>27} "
             f"{'harmful, only long (true blocks)':>33}"]
    for row in rows:
        cells = []
        for group in (clean_long, only_long):
            cols = [index[r.no] for r in group]
            mean = float(np.asarray(row.many.harmful)[:, cols].sum(axis=1).mean()) if cols else 0
            cells.append(f"{mean:.2f} of {len(group)}")
        lines.append(f"{row.name:<{width}} {cells[0]:>27} {cells[1]:>33}")
    return "\n".join(lines)


# --- the picture to end on ------------------------------------------------------

def series_name(setup):
    """A setup's name without its quorum part ('single judge, quorum 3' -> 'single judge')."""
    if not isinstance(setup, Setup):
        raise TypeError(f"setup must be a Setup, got {type(setup).__name__} {setup!r}")
    return setup.name.split(", quorum")[0]


def plot_band_against_cost(rows, metric="agreement", ax=None):
    """Band width of ``metric`` against mean calls per run.

    Setups that differ only in quorum are joined into one line, each point
    marked with its quorum (q1, q3, ...).
    """
    import matplotlib.pyplot as plt

    rows = _rows(rows)
    check_choice("metric", metric, METRICS)
    if ax is not None and not hasattr(ax, "plot"):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.2))
    series = {}
    for r in rows:
        series.setdefault(series_name(r.setup), []).append(r)
    for name, members in series.items():
        members = sorted(members, key=lambda r: r.setup.quorum)
        xs = [r.mean_calls for r in members]
        ys = [r.width(metric) for r in members]
        ax.plot(xs, ys, "o-", label=name)
        for r, x, y in zip(members, xs, ys):
            ax.annotate(f"q{r.setup.quorum}", (x, y), textcoords="offset points",
                        xytext=(5, 5), fontsize=8)
    ax.set_xlabel("model calls per run (mean over the panel seeds)")
    ax.set_ylabel(f"width of the 95% band of {metric.replace('_', ' ')}")
    ax.set_title(f"Run-to-run band against cost ({len(rows[0].many)} panel seeds)")
    ax.set_xlim(0, max(r.mean_calls for r in rows) * 1.1)
    ax.set_ylim(bottom=-0.002)
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def quote(rows, *keys):
    """The figures the notebook's prose quotes, one line a setup.

    Keys: calls, mean_calls, input_tokens, unreadable, changed, agreement, precision,
    recall, false_block_rate (at the lesson's seed), '<metric> band' (width) and
    '<metric> range' (low - high).
    """
    rows = _rows(rows)
    plain = ("calls", "input_tokens", "unreadable", "changed", "mean_calls")
    for key in keys:
        check_str("keys", key)
        base = key[:-5] if key.endswith(" band") else key[:-6] if key.endswith(" range") else ""
        if base not in METRICS and key not in plain + METRICS:
            raise ValueError(f"unknown key {key!r}; allowed keys: {', '.join(plain + METRICS)}, "
                             f"'<metric> band' and '<metric> range' (metric one of "
                             f"{', '.join(METRICS)})")
    lines = []
    for r in rows:
        cells = []
        for key in keys:
            if key.endswith(" band"):
                value = f"{r.width(key[:-5]):.4f}"
            elif key.endswith(" range"):
                low, high = r.bands[key[:-6]]
                value = f"{low:.4f} - {high:.4f}"
            elif key in ("calls", "input_tokens", "unreadable"):
                value = str(getattr(r, key))
            elif key in ("changed", "mean_calls"):
                value = f"{getattr(r, key):.2f}"
            elif key == "agreement":
                value = f"{r.agreement:.4f}"
            elif key in METRICS:
                value = f"{r.scores[key]:.4f}"
            else:
                raise ValueError(f"unknown key {key!r}; see quote's docstring for the keys")
            cells.append(f"{key} {value}")
        lines.append(f"{r.name}: " + ", ".join(cells))
    return "\n".join(lines)
