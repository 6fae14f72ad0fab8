"""Notebook 12 - probing the judge from outside: counterfactual twins.

A **probe** asks the same judge, with the same seed and settings, about every record and about
its **twin**: a copy that differs in one thing only.  The decisions that move, and how far the
probability of *zararli* moves, say what the judge reacts to, without opening the model.

``probe(records, change, seed=SEED, settings=None, **changes)`` is the door (the judge as
``run_judge`` takes it: a JudgeSettings and keyword changes).  ``change`` is a function
Record -> Record or one of the names in :data:`CHANGES`:

* ``"length"``: the ``excessive_length`` flag toggled, nothing else (not even ``length``);
* ``"text"``: the harmless text swapped for the next of the six texts (``TEXTS``, in order;
  a text that is not one of them becomes the first), so the twin carries another record's text;
* ``"source"``: the source moved to the next one in ``SOURCES`` order (user -> retrieved_document
  -> tool_output -> user).

The module is ``lessonlib.probing``; its door is the function ``lessonlib.probe``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ._checks import (
    check_callable,
    check_choice,
    check_instance,
    check_int,
    check_items,
    check_seed,
)
from ._frozen import ReadOnlyDict
from .criteria import rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import HARMFUL, JudgeSettings, SettingsChanges, resolve_settings, run_judge
from .metrics import agreement
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    SEED,
    SOURCES,
    TEXTS,
    Flags,
    Record,
    check_record,
    check_records,
    is_harmful,
)
from .score import judge_probabilities

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from typing_extensions import Unpack

    from .sample import PairedDifference

__all__ = [
    "CHANGES",
    "LENGTH_SEEDS",
    "Probe",
    "probe",
    "twin",
    "harmful_probability",
    "with_length",
    "describe_twin",
    "two_run_difference",
    "cue_inside",
    "length_controlled",
    "FAIR_KEYS",
    "fair_table",
    "moved_table",
    "probability_table",
    "moved_counts",
    "plot_moved",
    "length_evidence",
    "length_lead",
    "lead_text",
]

CHANGES = ("length", "text", "source")
"""The changes ``probe`` knows by name (any function Record -> Record works too)."""


def _toggle_length(record):
    return with_length(record, not record.features["excessive_length"])


def _next_text(record):
    i = TEXTS.index(record.text) + 1 if record.text in TEXTS else 0
    return replace(record, text=TEXTS[i % len(TEXTS)])


def _next_source(record):
    return replace(record, source=SOURCES[(SOURCES.index(record.source) + 1) % len(SOURCES)])


_NAMED = ReadOnlyDict({"length": _toggle_length, "text": _next_text, "source": _next_source})


def twin(record: Record, change: str) -> Record:
    """The twin of one record under ``change``, a name in CHANGES (notebook 12)."""
    check_record(record)
    check_choice("change", change, CHANGES)
    return _NAMED[change](record)


@dataclass(frozen=True)
class Probe:
    """What a probe found (notebook 12).

    ``before`` / ``after``: record number -> label of the judge on the records / on the twins
    (exactly ``run_judge(...).labels`` of each); ``changed``: the numbers whose label moved, in
    record order; ``shift``: mean P(zararli) of the twins minus the records'.
    """

    change: str
    before: dict = field(repr=False)
    after: dict = field(repr=False)
    changed: tuple
    shift: float
    records: tuple = field(repr=False)
    twins: tuple = field(repr=False)

    def moved_classes(self) -> dict:
        """Changed records per true class (classes with none left out), CLASSES order."""
        cls = {r.no: r.cls for r in self.records}
        counts = {c: sum(1 for no in self.changed if cls[no] == c) for c in CLASSES}
        return {c: n for c, n in counts.items() if n}

    def to_harmful(self) -> int:
        """How many changed records went from temiz to zararli (the rest went the other way)."""
        return sum(1 for no in self.changed if self.after[no] == HARMFUL)


def _check_yardstick(yardstick):
    """The record numbers of a two-run difference (possibly none), as a tuple."""
    if isinstance(yardstick, (str, bytes, Mapping)) or not hasattr(yardstick, "__iter__"):
        raise TypeError(
            f"yardstick must be the record numbers of a two-run difference (what "
            f"two_run_difference returns), got {type(yardstick).__name__}"
        )
    return tuple(yardstick)


def _make_twins(records, change):
    if isinstance(change, str):
        check_choice("change", change, CHANGES)
        return tuple(_NAMED[change](r) for r in records), change
    check_callable(
        "change", change, f"a function Record -> Record or one of the names {', '.join(CHANGES)}"
    )
    twins = []
    for r in records:
        t = change(r)
        if not isinstance(t, Record):
            raise TypeError(
                f"change must return a Record (use dataclasses.replace), got "
                f"{type(t).__name__} for record {r.no}"
            )
        if t.no != r.no:
            raise ValueError(
                f"change must keep the record number: it turned record {r.no} into number {t.no}"
            )
        twins.append(t)
    return tuple(twins), getattr(change, "__name__", "change")


def _p_harmful(records, settings):
    """P(zararli) of each record, in order: notebook 08's judge_probabilities with the
    same settings (max_output and unreadable_as are not part of the score)."""
    probs = judge_probabilities(records, settings)
    return [probs[r.no] for r in records]


def harmful_probability(
    records: Sequence[Record],
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[int, float]:
    """Record number -> P(zararli) the judge gives the record's prompt (notebook 12): what
    ``probe`` averages into its shift (at temperature 0: 1 or 0)."""
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    return dict(zip((r.no for r in records), _p_harmful(records, settings)))


def probe(
    records: Sequence[Record],
    change: str | Callable[[Record], Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> Probe:
    """Ask the same judge about every record and its twin under ``change`` (notebook 12).

    ``before`` and ``after`` are what ``run_judge(records, seed, settings, **changes)`` and
    ``run_judge(twins, seed, settings, **changes)`` give; ``shift`` compares the mean
    P(zararli) that ``judge_probabilities`` gives for the two sets of records with the same
    settings (at temperature 0 the judge's label has probability 1).
    """
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    twins, name = _make_twins(records, change)
    before = run_judge(records, seed, settings)
    after = run_judge(twins, seed, settings)
    changed = tuple(r.no for r in records if before.labels[r.no] != after.labels[r.no])
    p0, p1 = _p_harmful(records, settings), _p_harmful(twins, settings)
    shift = (sum(p1) - sum(p0)) / len(records)
    return Probe(
        name,
        ReadOnlyDict(before.labels),
        ReadOnlyDict(after.labels),
        changed,
        shift,
        records,
        twins,
    )


def two_run_difference(
    records: Sequence[Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> tuple[int, ...]:
    """Record numbers the judge decides differently at ``seed`` and ``seed + 1`` (notebook 04's
    two-run difference): the yardstick a probe is compared with (notebook 12)."""
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    a = run_judge(records, seed, settings).labels
    b = run_judge(records, seed + 1, settings).labels
    return tuple(r.no for r in records if a[r.no] != b[r.no])


LENGTH_SEEDS = range(SEED, SEED + 1000)
"""The judge seeds of the length-controlled score: notebook 06's 1,000 seeds."""


def with_length(record: Record, on: bool) -> Record:
    """``record`` with ``excessive_length`` set to ``on`` and nothing else changed (notebook
    12; a helper, unchecked)."""
    return replace(record, features=Flags({**record.features, "excessive_length": bool(on)}))


def describe_twin(record: Record, twin_record: Record) -> str:
    """What differs between a record and its twin, one short line a field (notebook 12)."""
    check_record(record)
    check_instance("twin_record", twin_record, Record)
    lines = []
    for name in ("cls", "source", "text", "length"):
        a, b = getattr(record, name), getattr(twin_record, name)
        if a != b:
            lines.append(
                f"{name}: {a!r}\n  -> {b!r}" if name == "text" else f"{name}: {a!r} -> {b!r}"
            )
    for flag in record.features:
        if record.features[flag] != twin_record.features[flag]:
            lines.append(f"{flag}: {record.features[flag]} -> {twin_record.features[flag]}")
    return "\n".join(lines) or "no difference"


def cue_inside(
    records: Sequence[Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> tuple[int, ...]:
    """Record numbers whose decision the length cue makes, seen from inside: the judge with its
    spurious table against the same judge with ``spurious={}``, same seed (notebook 12)."""
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    a = run_judge(records, seed, settings).labels
    b = run_judge(records, seed, settings, spurious={}).labels
    return tuple(r.no for r in records if a[r.no] != b[r.no])


def length_controlled(
    records: Sequence[Record],
    seeds: Iterable[int] = LENGTH_SEEDS,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, float]:
    """Mean agreement with the human label over ``seeds`` with the length flag held fixed
    (notebook 12): every record judged as it is, with ``excessive_length`` off and with it on.

    Returns ``{"as is": ..., "flag off": ..., "flag on": ..., "filter": ...}``; "filter" is the
    rule filter's agreement, which reads no length flag and so is the same in all three.
    """
    from .many import check_seeds, run_judge_many

    records = check_records(records)
    seeds = check_seeds(seeds)
    settings = resolve_settings(settings, changes)
    out = {}
    for name, recs in (
        ("as is", records),
        ("flag off", [with_length(r, False) for r in records]),
        ("flag on", [with_length(r, True) for r in records]),
    ):
        out[name] = float(run_judge_many(recs, seeds, settings).agreement().mean())
    out["filter"] = agreement(records, rule_filter)
    return out


FAIR_KEYS = ("as is", "flag off", "flag on", "filter")
"""The keys of what ``length_controlled`` returns."""


def fair_table(scores: dict) -> str:
    """The length-controlled agreements and the judge's lead over the filter (notebook 12)."""
    if not isinstance(scores, Mapping) or set(scores) != set(FAIR_KEYS):
        raise TypeError(
            f"scores must be what length_controlled returns: a mapping with the "
            f"keys {', '.join(map(repr, FAIR_KEYS))}, got {type(scores).__name__}"
        )
    lines = [f"{'length flag':<12}{'judge':>8}{'filter':>8}{'lead':>9}"]
    for name in ("as is", "flag off", "flag on"):
        lines.append(
            f"{name:<12}{scores[name]:>8.4f}{scores['filter']:>8.4f}"
            f"{scores[name] - scores['filter']:>+9.4f}"
        )
    return "\n".join(lines)


def moved_table(probes: Sequence[Probe], yardstick: tuple | None = None) -> str:
    """One line a probe: decisions moved (clean and harmful records), how many of them went to
    zararli, and the shift of mean P(zararli); then the judge's own two-run difference, the
    record numbers ``yardstick`` (notebook 12)."""
    probes = check_items("probes", probes, Probe)
    if yardstick is not None:
        _check_yardstick(yardstick)
    lines = [
        f"{'change':<10}{'moved':>6}{'clean':>7}{'harmful':>9}{'to zararli':>12}"
        f"{'shift P(zararli)':>18}"
    ]
    for p in probes:
        clean = p.moved_classes().get("clean", 0)
        lines.append(
            f"{p.change:<10}{len(p.changed):>6}{clean:>7}{len(p.changed) - clean:>9}"
            f"{p.to_harmful():>12}{p.shift:>+18.4f}"
        )
    if yardstick is not None:
        lines.append(f"{'new seed':<10}{len(yardstick):>6}   (the judge's own two-run difference)")
    return "\n".join(lines)


def probability_table(probabilities: dict, rows: dict) -> str:
    """How many records of each row sit at each value of P(zararli), to 4 places (notebook 12).

    ``probabilities``: what ``harmful_probability`` returns; ``rows``: name -> record numbers."""
    if not isinstance(probabilities, Mapping) or not probabilities:
        raise TypeError(
            "probabilities must be what harmful_probability returns: a non-empty "
            "mapping record number -> P(zararli)"
        )
    if not isinstance(rows, Mapping) or not all(
        not isinstance(v, (str, Mapping))
        and hasattr(v, "__iter__")
        and all(n in probabilities for n in v)
        for v in rows.values()
    ):
        raise TypeError(
            "rows must be a mapping name -> record numbers, each one of the "
            "numbers in probabilities"
        )
    levels = sorted({round(v, 4) for v in probabilities.values()})
    lines = [f"{'P(zararli)':<10}" + "".join(f"{v:>8.4f}" for v in levels)]
    for name, numbers in rows.items():
        counts = Counter(round(probabilities[n], 4) for n in numbers)
        lines.append(f"{name:<10}" + "".join(f"{counts.get(v, 0):>8}" for v in levels))
    return "\n".join(lines)


def moved_counts(probes: Sequence[Probe], yardstick: tuple[int, ...]) -> dict:
    """``{change: decisions moved, ..., "new seed": two-run difference}`` for the figure
    (notebook 12)."""
    probes = check_items("probes", probes, Probe)
    yardstick = _check_yardstick(yardstick)
    return {**{p.change: len(p.changed) for p in probes}, "new seed": len(yardstick)}


@slide_figure
def plot_moved(counts: dict) -> Figure:
    """Bars: decisions moved per change, per temperature, beside the two-run difference
    (notebook 12).  ``counts`` maps a temperature label to what ``moved_counts`` returns."""
    if (
        not isinstance(counts, Mapping)
        or not counts
        or not all(
            isinstance(v, Mapping) and list(v) == list(next(iter(counts.values())))
            for v in counts.values()
        )
    ):
        raise TypeError(
            "counts must be a non-empty mapping temperature label -> what "
            "moved_counts returns (the same changes for every label)"
        )
    import matplotlib.pyplot as plt

    groups = list(counts)
    names = list(counts[groups[0]])
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.4))
    width = 0.8 / len(groups)
    for g, label in enumerate(groups):
        xs = [i + (g - (len(groups) - 1) / 2) * width for i in range(len(names))]
        bars = ax.bar(xs, [counts[label][n] for n in names], width, label=label)
        ax.bar_label(bars)
    ax.margins(y=0.12)  # room above the tallest bar for its label
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("decisions moved")
    ax.set_title("What a one-thing change moves, against a new seed")
    ax.legend(title="temperature")
    fig.tight_layout()
    return fig


def length_evidence(records: Sequence[Record] | None = None) -> dict[str, float]:
    """How much the ``excessive_length`` flag says about harm (notebook 12): its likelihood
    ratio, P(flag on | harmful) / P(flag on | clean).

    ``"population"`` is exact, from the generator's class shares and flag profiles
    (CLASS_SHARE, PROFILE); with ``records``, ``"records"`` is the same ratio counted on them.
    A ratio above 1 makes the flag evidence of harm, whatever the guideline calls it.
    """
    k = FEATURES.index("excessive_length")
    harmful = [(share, PROFILE[c][k]) for c, share in zip(CLASSES, CLASS_SHARE) if c != "clean"]
    on_harmful = sum(s * p for s, p in harmful) / sum(s for s, _ in harmful)
    out = {"population": on_harmful / PROFILE["clean"][k]}
    if records is not None:
        records = check_records(records)
        groups = {True: [0, 0], False: [0, 0]}
        for r in records:
            groups[is_harmful(r)][0] += 1
            groups[is_harmful(r)][1] += bool(r.features["excessive_length"])
        (nh, oh), (nc, oc) = groups[True], groups[False]
        if not (nh and nc and oc):
            raise ValueError(
                "records must hold harmful and clean records, and a clean one with the "
                "length flag, for a ratio on them"
            )
        out["records"] = (oh / nh) / (oc / nc)
    return out


def length_lead(
    records: Sequence[Record],
    seeds: Iterable[int] = LENGTH_SEEDS,
    n_resamples: int = 10_000,
    seed: int = 0,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> list[dict[str, Any]]:
    """The judge's lead over the filter and its drop with the length flag off (notebook 12).

    Each record's seed-averaged decision (its share of the runs over ``seeds`` that block
    it), as it is and with ``excessive_length`` off; three paired differences of agreement
    on the same records (``sample.paired_difference``): the drop (as is minus flag off),
    named first, before looking, as the primary figure; then the lead as is and the lead
    with the flag off (judge minus filter), whose p-values get Holm's adjustment.
    """
    import numpy as np

    from .many import check_seeds, run_judge_many
    from .sample import holm, paired_difference

    records = check_records(records)
    seeds = check_seeds(seeds)
    settings = resolve_settings(settings, changes)
    check_int("n_resamples", n_resamples, minimum=1)
    check_seed(seed)
    truth = [is_harmful(r) for r in records]
    as_is = run_judge_many(records, seeds, settings).harmful.mean(axis=0)
    off = [with_length(r, False) for r in records]
    flag_off = run_judge_many(off, seeds, settings).harmful.mean(axis=0)
    filt = np.array([float(rule_filter(r)) for r in records])
    rows: list[dict[str, Any]] = []
    for name, a, b in (
        ("drop in the lead", as_is, flag_off),
        ("lead as is", as_is, filt),
        ("lead, flag off", flag_off, filt),
    ):
        d = paired_difference(truth, a.tolist(), b.tolist(), "agreement", n_resamples, seed=seed)
        rows.append({"figure": name, "difference": d, "p": d.p_value, "primary": not rows})
    others: list[float] = [row["p"] for row in rows[1:]]
    for row, p in zip(rows[1:], holm(others)):
        row["p"] = p
    return rows


def lead_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows of :func:`length_lead` as text: each difference of agreement, its records'
    band and its p-value (the primary as it is, the others Holm-adjusted)."""
    from .sample import p_text

    rows = check_items("rows", rows, Mapping)  # type: ignore[type-abstract]
    lines = [
        f"{'agreement difference':<22}{'on these records':>17}{'95% records band':>20}{'p':>8}"
    ]
    for row in rows:
        d: PairedDifference = row["difference"]
        tag = "" if row["primary"] else " (Holm)"
        lines.append(
            f"{row['figure']:<22}{d.estimate:>+17.4f}{f'{d.low:+.4f} .. {d.high:+.4f}':>20}"
            f"{p_text(row['p']):>8}{tag}"
        )
    return "\n".join(lines)
