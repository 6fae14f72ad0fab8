"""Notebook 01 - the record set: fictional records, their seven flags and the human label."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ._checks import check_instance, check_int, check_items, check_iterable, check_seed
from ._frozen import ReadOnlyDict
from ._rng import generator, trace_id

__all__ = [
    "CLASSES",
    "CLASS_SHARE",
    "FEATURES",
    "LENGTH_SPAN",
    "MIN_LENGTH",
    "PROFILE",
    "RECORD_STRIDE",
    "SEED",
    "SOURCES",
    "SOURCE_SHARE",
    "TEXTS",
    "Flags",
    "Record",
    "by_class",
    "check_record",
    "check_records",
    "draw_record",
    "generator",
    "is_harmful",
    "make_records",
    "pick",
    "trace_id",
    "write_records_csv",
]

SEED = 20260218
"""The lesson's seed: record *i* draws from ``generator(SEED + RECORD_STRIDE * i)``."""

RECORD_STRIDE = 6151

CLASSES = (
    "clean",
    "indirect_instruction",
    "hidden_field_request",
    "privilege_escalation",
    "source_spoofing",
    "corrupted_input",
)
SOURCES = ("user", "retrieved_document", "tool_output")
FEATURES = (
    "instruction_mode",
    "role_change_request",
    "hidden_field_name",
    "side_effect_tool_name",
    "source_stamp_mismatch",
    "unusual_stamp_distribution",
    "excessive_length",
)

CLASS_SHARE = (0.62, 0.10, 0.07, 0.07, 0.07, 0.07)
"""How often each class is drawn, in CLASSES order."""

# fmt: off  (the two tables keep their columns lined up)
PROFILE = ReadOnlyDict(
    {
        # probability of each flag (FEATURES order) given the class
        "clean": (0.06, 0.02, 0.05, 0.03, 0.02, 0.04, 0.05),
        "indirect_instruction": (0.88, 0.42, 0.10, 0.30, 0.35, 0.08, 0.12),
        "hidden_field_request": (0.35, 0.15, 0.86, 0.12, 0.10, 0.06, 0.08),
        "privilege_escalation": (0.30, 0.25, 0.12, 0.84, 0.14, 0.05, 0.07),
        "source_spoofing": (0.22, 0.55, 0.08, 0.10, 0.82, 0.07, 0.06),
        "corrupted_input": (0.05, 0.03, 0.04, 0.03, 0.06, 0.80, 0.62),
    }
)
SOURCE_SHARE = ReadOnlyDict(
    {
        # probability of each source (SOURCES order) given the class
        "clean": (0.72, 0.20, 0.08),
        "indirect_instruction": (0.05, 0.70, 0.25),
        "hidden_field_request": (0.55, 0.30, 0.15),
        "privilege_escalation": (0.40, 0.35, 0.25),
        "source_spoofing": (0.10, 0.60, 0.30),
        "corrupted_input": (0.65, 0.20, 0.15),
    }
)
# fmt: on
TEXTS = (
    # Harmless, fictional support requests (Turkish); unrelated to the class.
    "bu ayki fatura tutari gecen aya gore yuksek geldi",
    "sayac endeksi yanlis girilmis olabilir",
    "mahallede kesinti ne zaman bitecek",
    "tarife basamagimi ogrenmek istiyorum",
    "ariza kaydim icin ekip ne zaman gelir",
    "adres degisikligi nasil yapilir",
)
MIN_LENGTH, LENGTH_SPAN = 40, 260


def pick(u: float, weights: Iterable[float]) -> int:
    """Index of the first running sum of ``weights`` above ``u``, else the last (notebook 01)."""
    total, index = 0.0, -1
    for index, w in enumerate(weights):
        total += w
        if u < total:
            return index
    return index


class Flags(ReadOnlyDict):
    """Read-only dict feature name -> bool, in FEATURES order (notebook 01)."""

    __slots__ = ()

    def __init__(self, values: Mapping[str, object] | Iterable[object]) -> None:
        if isinstance(values, Mapping):
            if set(values) != set(FEATURES):
                raise ValueError(
                    f"values must name every flag once: {', '.join(FEATURES)}; got "
                    f"{', '.join(map(repr, values))}"
                )
            values = [values[f] for f in FEATURES]
        else:
            what = f"a mapping flag -> bool or {len(FEATURES)} bools in FEATURES order"
            values = check_iterable("values", values, what)
            if len(values) != len(FEATURES):
                raise ValueError(
                    f"values must hold {len(FEATURES)} bools, one per flag in FEATURES order "
                    f"({', '.join(FEATURES)}); got {len(values)}"
                )
        dict.__init__(self, zip(FEATURES, map(bool, values)))

    def __hash__(self) -> int:  # type: ignore[override]  # dict says unhashable
        return hash(tuple(self.values()))

    def on(self) -> tuple[str, ...]:
        """Names of the flags that are set, in FEATURES order."""
        return tuple(f for f, v in self.items() if v)

    def __repr__(self) -> str:
        return "Flags(" + ", ".join(self.on()) + ")"


@dataclass(frozen=True)
class Record:
    """One fictional record: number, true class, source, flags, text, length (notebook 01)."""

    no: int
    cls: str
    source: str
    features: Flags
    text: str
    length: int

    def as_row(self) -> dict[str, object]:
        """Flat dict (one column per flag) for tables and CSV files."""
        return {
            "no": self.no,
            "cls": self.cls,
            "source": self.source,
            **self.features,
            "text": self.text,
            "length": self.length,
        }


def check_records(records: Iterable[Record]) -> tuple[Record, ...]:
    """Door check: a non-empty collection of Record objects, returned as a tuple."""
    return check_items("records", records, Record)


def check_record(record: object) -> Record:
    """Door check: one Record."""
    return check_instance("record", record, Record)


def draw_record(index: int, seed: int = SEED) -> Record:
    """Record number ``index + 1``, drawn from its own generator (notebook 01)."""
    u = generator(seed + RECORD_STRIDE * index)
    cls = CLASSES[pick(u(), CLASS_SHARE)]
    source = SOURCES[pick(u(), SOURCE_SHARE[cls])]
    flags = Flags(u() < p for p in PROFILE[cls])
    text = TEXTS[int(u() * len(TEXTS))]
    length = MIN_LENGTH + int(u() * LENGTH_SPAN)
    return Record(index + 1, cls, source, flags, text, length)


def make_records(n: int = 240, seed: int = SEED) -> list[Record]:
    """The first ``n`` records drawn from ``seed``; the lesson uses 240 and SEED (notebook 01)."""
    check_int("n", n, minimum=1)
    check_seed(seed)
    return [draw_record(i, seed) for i in range(n)]


def is_harmful(record: Record) -> bool:
    """The human label: every class except 'clean' is harmful (notebook 01)."""
    if type(record) is not Record:
        check_record(record)
    return record.cls != "clean"


def write_records_csv(path: str | os.PathLike[str], records: Sequence[Record]) -> None:
    """Write ``records`` to ``path`` as CSV: one row a record, one 0/1 column per flag."""
    import csv

    rows = [r.as_row() for r in check_records(records)]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: int(v) if isinstance(v, bool) else v for k, v in row.items()})


def by_class(records: Iterable[Record]) -> dict[str, list[Record]]:
    """The records grouped by true class: ``{class: [records]}``, CLASSES order, no empty class."""
    groups: dict[str, list[Record]] = {cls: [] for cls in CLASSES}
    for record in records:
        groups[record.cls].append(record)
    return {cls: members for cls, members in groups.items() if members}
