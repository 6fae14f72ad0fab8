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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ._checks import (
    check_callable,
    check_choice,
    check_int,
    check_seed,
)
from ._frozen import ReadOnlyDict
from .criteria import rule_filter
from .figures import FIGURE_WIDTH, slide_figure
from .judge import HARMFUL, JudgeSettings, SettingsChanges, resolve_settings, run_judge
from .records import (
    CLASSES,
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


__all__ = [
    "CHANGES",
    "LENGTH_SEEDS",
    "Probe",
    "probe",
    "twin",
    "harmful_probability",
    "with_length",
    "plot_moved",
    "length_lead",
]

CHANGES = ("length", "text", "source")
"""The changes ``probe`` knows by name (any function Record -> Record works too)."""


def _toggle_length(record):
    return _with_length(record, not record.features["excessive_length"])


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


LENGTH_SEEDS = range(SEED, SEED + 1000)
"""The judge seeds of the length-controlled score: notebook 06's 1,000 seeds."""


def _with_length(record, on):
    return replace(record, features=Flags({**record.features, "excessive_length": on}))


def with_length(record: Record, on: bool) -> Record:
    """``record`` with ``excessive_length`` set to ``on`` (True or False) and nothing else
    changed (notebook 12)."""
    check_record(record)
    if not isinstance(on, bool):
        raise TypeError(
            f"on must be True or False (the length flag on or off), got {type(on).__name__} {on!r}"
        )
    return _with_length(record, on)


@slide_figure
def plot_moved(counts: dict) -> Figure:
    """Bars: decisions moved per change, per temperature, beside the two-run difference
    (notebook 12).  ``counts`` maps a temperature label to ``{change: decisions moved, ...,
    "new seed": two-run difference}`` (the same keys for every label)."""
    if (
        not isinstance(counts, Mapping)
        or not counts
        or not all(
            isinstance(v, Mapping) and list(v) == list(next(iter(counts.values())))
            for v in counts.values()
        )
    ):
        raise TypeError(
            "counts must be a non-empty mapping temperature label -> {change: decisions "
            "moved} (the same changes for every label)"
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
    off = [_with_length(r, False) for r in records]
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
