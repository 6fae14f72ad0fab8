"""Step 1 - the record set.

Every record is fictional.  An attack is not a text here but a *feature
profile*: seven structural flags drawn with class-dependent probabilities.
The text of a record is a harmless support request and has no relation to its
class.  The human label (the record's true class) is taken as sound in this
lesson; :func:`is_harmful` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._checks import (check_choice, check_int, check_record, check_records, check_seed,
                      check_str)
from ._frozen import ReadOnlyDict

SEED = 20260218
"""The lesson's seed: record *i* draws from ``generator(SEED + RECORD_STRIDE * i)``."""

M32 = 0xFFFFFFFF
RECORD_STRIDE = 6151

CLASSES = ("clean", "indirect_instruction", "hidden_field_request", "privilege_escalation",
           "source_spoofing", "corrupted_input")
SOURCES = ("user", "retrieved_document", "tool_output")
FEATURES = ("instruction_mode", "role_change_request", "hidden_field_name",
            "side_effect_tool_name", "source_stamp_mismatch", "unusual_stamp_distribution",
            "excessive_length")

CLASS_SHARE = (0.62, 0.10, 0.07, 0.07, 0.07, 0.07)
"""How often each class is drawn, in CLASSES order."""

PROFILE = ReadOnlyDict({
    # probability of each flag (FEATURES order) given the class
    "clean":                (0.06, 0.02, 0.05, 0.03, 0.02, 0.04, 0.05),
    "indirect_instruction": (0.88, 0.42, 0.10, 0.30, 0.35, 0.08, 0.12),
    "hidden_field_request": (0.35, 0.15, 0.86, 0.12, 0.10, 0.06, 0.08),
    "privilege_escalation": (0.30, 0.25, 0.12, 0.84, 0.14, 0.05, 0.07),
    "source_spoofing":      (0.22, 0.55, 0.08, 0.10, 0.82, 0.07, 0.06),
    "corrupted_input":      (0.05, 0.03, 0.04, 0.03, 0.06, 0.80, 0.62),
})
SOURCE_SHARE = ReadOnlyDict({
    # probability of each source (SOURCES order) given the class
    "clean":                (0.72, 0.20, 0.08),
    "indirect_instruction": (0.05, 0.70, 0.25),
    "hidden_field_request": (0.55, 0.30, 0.15),
    "privilege_escalation": (0.40, 0.35, 0.25),
    "source_spoofing":      (0.10, 0.60, 0.30),
    "corrupted_input":      (0.65, 0.20, 0.15),
})
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


def mix32(t):
    """Scramble a whole number into a 32-bit starting state (two multiply-xorshift rounds)."""
    x = ((t ^ (t >> 16)) * 2246822507) & M32
    x = ((x ^ (x >> 13)) * 3266489909) & M32
    return (x ^ (x >> 16)) & M32


def generator(t):
    """Return a function that yields uniform numbers in [0, 1), seeded by the integer ``t``.

    The state is a 32-bit linear congruential generator started from ``mix32(t)``.
    """
    if isinstance(t, bool) or not isinstance(t, int):
        check_int("t", t)
    state = mix32(t)

    def next_uniform():
        nonlocal state
        state = (state * 1664525 + 1013904223) & M32
        return state / 4294967296

    return next_uniform


def pick(u, weights):
    """Index chosen by the uniform number ``u`` walking the running sum of ``weights``."""
    total, index = 0.0, -1
    try:
        for index, w in enumerate(weights):
            total += w
            if u < total:
                return index
    except TypeError:
        raise TypeError(f"pick needs u a number in [0, 1) and weights a sequence of numbers, "
                        f"got u={u!r}, weights={weights!r}") from None
    if index < 0:
        raise ValueError(f"weights must hold at least one weight, got {weights!r}")
    if u != u:
        raise ValueError(f"u must be a number in [0, 1), got {u!r}")
    return index


def trace_id(message):
    """32-bit FNV-1a style hash of ``str(message)`` (used to seed a model call per prompt)."""
    h = 2166136261
    for ch in str(message):
        h = ((h ^ ord(ch)) * 16777619) & M32
    return h


class Flags(Mapping):
    """Read-only mapping feature name -> bool, in FEATURES order."""

    __slots__ = ("_values",)

    def __init__(self, values):
        if isinstance(values, Mapping):
            unknown = [k for k in values if k not in FEATURES]
            if unknown or len(values) != len(FEATURES):
                raise ValueError(f"values as a mapping needs exactly the feature names "
                                 f"{', '.join(FEATURES)}; got {', '.join(map(repr, values))}")
            values = [values[f] for f in FEATURES]
        elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"values must be {len(FEATURES)} booleans (one per feature, in "
                            f"FEATURES order) or a mapping feature -> bool, got "
                            f"{type(values).__name__} {values!r}")
        values = tuple(bool(v) for v in values)
        if len(values) != len(FEATURES):
            raise ValueError(f"values needs {len(FEATURES)} booleans (features "
                             f"{', '.join(FEATURES)}), got {len(values)}")
        object.__setattr__(self, "_values", values)

    def __getitem__(self, name):
        try:
            return self._values[FEATURES.index(name)]
        except ValueError:
            raise KeyError(name) from None

    def __iter__(self):
        return iter(FEATURES)

    def __len__(self):
        return len(FEATURES)

    def __hash__(self):
        return hash(self._values)

    def __setattr__(self, name, value):
        raise AttributeError("Flags is read-only")

    def __reduce__(self):
        return (Flags, (self._values,))

    def on(self):
        """Names of the flags that are set, in FEATURES order."""
        return tuple(f for f, v in zip(FEATURES, self._values) if v)

    def __repr__(self):
        return "Flags(" + ", ".join(self.on()) + ")"


@dataclass(frozen=True)
class Record:
    """One fictional record: number, true class, source, seven flags, text and length."""

    no: int
    cls: str
    source: str
    features: Flags
    text: str
    length: int

    def __post_init__(self):
        check_int("no", self.no, minimum=1)
        check_choice("cls", self.cls, CLASSES)
        check_choice("source", self.source, SOURCES)
        if not isinstance(self.features, Flags):
            if not isinstance(self.features, Mapping):
                raise TypeError(f"features must be a Flags or a mapping feature name -> bool, "
                                f"got {type(self.features).__name__} {self.features!r}")
            if set(self.features) != set(FEATURES):
                raise ValueError(f"features must map exactly the feature names "
                                 f"{', '.join(FEATURES)}; got {', '.join(map(repr, self.features))}")
            object.__setattr__(self, "features", Flags(self.features))
        check_str("text", self.text)
        check_int("length", self.length, minimum=0)

    def as_row(self):
        """Flat dict (one column per flag) for tables and CSV files."""
        row = {"no": self.no, "cls": self.cls, "source": self.source}
        row.update(self.features)
        row.update(text=self.text, length=self.length)
        return row


def draw_record(index, seed=SEED):
    """Record number ``index + 1``, drawn from its own generator ``seed + 6151 * index``."""
    check_int("index", index, minimum=0)
    check_seed(seed)
    u = generator(seed + RECORD_STRIDE * index)
    cls = CLASSES[pick(u(), CLASS_SHARE)]
    source = SOURCES[pick(u(), SOURCE_SHARE[cls])]
    flags = Flags(u() < p for p in PROFILE[cls])
    text = TEXTS[int(u() * len(TEXTS))]
    length = MIN_LENGTH + int(u() * LENGTH_SPAN)
    return Record(index + 1, cls, source, flags, text, length)


def make_records(n=240, seed=SEED):
    """The first ``n`` records of the set drawn from ``seed`` (the lesson uses 240 and SEED)."""
    check_int("n", n, minimum=1)
    check_seed(seed)
    return [draw_record(i, seed) for i in range(n)]


def is_harmful(record):
    """The human label: every class except 'clean' is harmful."""
    check_record(record)
    return record.cls != "clean"


CSV_COLUMNS = ("no", "cls", "source") + FEATURES + ("text", "length")


def write_records_csv(path, records):
    """Write ``records`` to ``path`` as CSV: one row a record, one 0/1 column per flag."""
    import csv
    import os

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or pathlib.Path), got "
                        f"{type(path).__name__} {path!r}")
    rows = [r.as_row() for r in check_records(records)]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: int(v) if isinstance(v, bool) else v for k, v in row.items()})


def by_class(records):
    """The records grouped by true class: ``{class: [records]}``, CLASSES order, no empty class."""
    groups = {cls: [] for cls in CLASSES}
    for record in check_records(records):
        groups[record.cls].append(record)
    return {cls: members for cls, members in groups.items() if members}


def flag_rates(records):
    """Per class, the share of its records that carry each flag.

    Returns ``{class: {feature: share}}`` for the classes present in ``records``
    (CLASSES order, features in FEATURES order) - the observed counterpart of
    PROFILE.  Shares are not rounded.
    """
    return {cls: {f: sum(1 for r in members if r.features[f]) / len(members) for f in FEATURES}
            for cls, members in by_class(records).items()}


def records_frame(records):
    """The records as a pandas DataFrame: index ``no``, one bool column per flag.

    Columns: cls, source, the seven flags (FEATURES order), text, length.
    pandas is imported here, so the rest of lessonlib stays pure Python.
    """
    import pandas as pd

    records = check_records(records)

    return pd.DataFrame([r.as_row() for r in records]).set_index("no")
