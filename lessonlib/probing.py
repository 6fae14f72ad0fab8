"""Notebook 12 - probing the judge from outside: counterfactual twins.

``probe(records, change, seed=SEED, settings=None, **changes)`` asks the same judge (as
``run_judge`` takes it) about every record and its **twin**, a copy that differs in one thing:
``change`` is a function Record -> Record or a name in :data:`CHANGES` ("length": the
``excessive_length`` flag toggled; "text": the next of the six ``TEXTS``, a foreign text
becoming the first; "source": the next of ``SOURCES``, cycling).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ._checks import check_callable, check_choice
from ._frozen import ReadOnlyDict
from .judge import JudgeSettings, SettingsChanges, resolve_settings, run_judge
from .records import SEED, SOURCES, TEXTS, Flags, Record, check_record, check_records
from .score import judge_probabilities

if TYPE_CHECKING:
    from typing_extensions import Unpack


__all__ = ["CHANGES", "Probe", "probe", "twin", "with_length"]

CHANGES = ("length", "text", "source")
"""The changes ``probe`` knows by name (any function Record -> Record works too)."""


def _with_length(record, on):
    return replace(record, features=Flags({**record.features, "excessive_length": on}))


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
    """What a probe found: ``before`` / ``after`` (record number -> the judge's label on the
    records / on the twins), ``changed`` (the numbers whose label moved, in record order) and
    ``shift`` (mean P(zararli) of the twins minus the records')."""

    change: str
    before: dict = field(repr=False)
    after: dict = field(repr=False)
    changed: tuple
    shift: float
    records: tuple = field(repr=False)
    twins: tuple = field(repr=False)


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


def probe(
    records: Sequence[Record],
    change: str | Callable[[Record], Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> Probe:
    """A :class:`Probe`: ``run_judge`` with ``seed`` and the settings on the records and on
    their twins under ``change``, and the shift of the mean ``judge_probabilities``.  Refuses a
    ``change`` that is no name in CHANGES, or a function that returns no Record or renumbers."""
    records = check_records(records)
    settings = resolve_settings(settings, changes)
    twins, name = _make_twins(records, change)
    before = run_judge(records, seed, settings)
    after = run_judge(twins, seed, settings)
    changed = tuple(r.no for r in records if before.labels[r.no] != after.labels[r.no])
    p0, p1 = judge_probabilities(records, settings), judge_probabilities(twins, settings)
    shift = (sum(p1.values()) - sum(p0.values())) / len(records)
    return Probe(
        name,
        ReadOnlyDict(before.labels),
        ReadOnlyDict(after.labels),
        changed,
        shift,
        records,
        twins,
    )


def with_length(record: Record, on: bool) -> Record:
    """``record`` with ``excessive_length`` set to ``on`` (True or False) and nothing else
    changed (notebook 12)."""
    check_record(record)
    if not isinstance(on, bool):
        raise TypeError(
            f"on must be True or False (the length flag on or off), got {type(on).__name__} {on!r}"
        )
    return _with_length(record, on)
