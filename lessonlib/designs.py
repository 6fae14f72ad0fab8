"""Notebook 09 - designs: the rule filter first, the judge on the rest, maybe a person.

* :func:`cascade` - the rule filter first, the judge on what it lets through, and optionally
  the judge's confident records kept while the rest go to a person (a :class:`CascadeRun`).

The study helpers after it (the designs over many seeds, compared on the same records and the
same seeds under the measurable rule) serve notebook 09 and trust their caller.  This module
imports no numpy at the top: the helpers that need it import it when called.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._checks import check_choice, check_collection, check_int, check_number, check_seed
from .criteria import DEFAULT_RULES, make_rule_filter
from .judge import (
    CLEAN,
    HARMFUL,
    JudgeRun,
    JudgeSettings,
    SettingsChanges,
    resolve_settings,
    run_judge,
)
from .metrics import four_counts, rates
from .records import SEED, Record, check_record, check_records, is_harmful
from .score import judge_probabilities

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "cascade",
    "CascadeRun",
    "DESIGN_NAMES",
    "designs",
    "design_rows",
    "design_shares",
    "design_comparisons",
    "design_block_chances",
    "population_designs",
]


# ----------------------------------------------------------------------------------- a cascade


@dataclass(frozen=True)
class CascadeRun:
    """One run of a cascade (notebook 09): the filter, then the judge, then maybe a person.

    ``labels`` maps every record number to 'temiz' or 'zararli'; ``blocked`` are the records
    the filter blocked (no judge call), ``escalated`` those sent to a person (their label is
    the human label); ``judge`` is the judge's own run on the records the filter let through
    (None when it let none through), and ``calls``, ``input_tokens``, ``retries`` and
    ``unreadable`` are that run's.
    """

    labels: dict = field(repr=False)
    calls: int
    input_tokens: int
    retries: int
    unreadable: int
    blocked: tuple = field(repr=False)
    escalated: tuple = field(repr=False)
    seed: int = SEED
    judge: JudgeRun | None = field(default=None, repr=False, compare=False)
    judged: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def people(self) -> int:
        """Records sent to a person."""
        return len(self.escalated)

    def decide(self, record: Record) -> bool:
        """True when the cascade labelled ``record`` harmful; a record it did not see is
        refused (so ``lessonlib.measure`` works on a cascade run)."""
        check_record(record)
        label = self.labels.get(record.no)
        known = self.judged.get(record.no, record)
        if label is None or (known is not record and known != record):
            raise ValueError(
                f"record {record.no} is not one this cascade decided: the run does "
                f"not belong to these records (other seed or number of records?)"
            )
        return label == HARMFUL


def _check_band(low, high):
    """The confident-or-escalate thresholds: both None, or 0 <= low <= high <= 1."""
    if low is None and high is None:
        return None
    if low is None or high is None:
        missing = "low" if low is None else "high"
        raise ValueError(
            f"{missing} must be given too: pass both low and high (the judge "
            f"keeps P(zararli) <= low and >= high) or neither"
        )
    low, high = check_number("low", low), check_number("high", high)
    for name, value in (("low", low), ("high", high)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    if low > high:
        raise ValueError(
            f"low must be <= high (thresholds out of order): got low={low!r}, high={high!r}"
        )
    return low, high


def cascade(
    records: Iterable[Record],
    seed: int = SEED,
    settings: JudgeSettings | None = None,
    *,
    rules: Iterable[str] = DEFAULT_RULES,
    low: float | None = None,
    high: float | None = None,
    **changes: Unpack[SettingsChanges],
) -> CascadeRun:
    """The rule filter first, the judge on the rest (notebook 09).

    A record the filter (``rules``; ``()`` lets everything through) blocks is harmful, with
    no judge call.  The records it lets through get exactly ``run_judge(passed, seed,
    settings)`` (the judge ``settings`` with the keyword ``changes``, as run_judge takes
    them): its labels, calls and input tokens.  With ``low`` and ``high`` the judge keeps only
    the records where its score is confident, P(zararli) <= low or >= high
    (``judge_probabilities`` with the same settings); the others are escalated to a person,
    who gives the human label.  The judge is still called on every record the filter lets
    through: its score comes with the call.
    """
    records = check_records(records)
    check_seed(seed)
    settings = resolve_settings(settings, changes)
    band = _check_band(low, high)
    block = make_rule_filter(rules)
    passed = [r for r in records if not block(r)]
    judge = run_judge(passed, seed, settings) if passed else None
    escalated: tuple[int, ...] = ()
    if band is not None and passed:
        probs = judge_probabilities(passed, settings)
        escalated = tuple(r.no for r in passed if band[0] < probs[r.no] < band[1])
    sent = set(escalated)
    labels = {}
    for r in records:
        if block(r):
            labels[r.no] = HARMFUL
        elif r.no in sent:
            labels[r.no] = HARMFUL if is_harmful(r) else CLEAN
        else:
            labels[r.no] = judge.labels[r.no]  # type: ignore[union-attr]  # set: r passed
    blocked = tuple(r.no for r in records if block(r))
    cost = (
        (judge.calls, judge.input_tokens, judge.retries, judge.unreadable)
        if judge
        else (0, 0, 0, 0)
    )
    return CascadeRun(labels, *cost, blocked, escalated, seed, judge, {r.no: r for r in records})


DESIGN_NAMES = (
    "rule filter alone",
    "judge alone",
    "filter, then judge",
    "judge or a person",
    "filter, judge or a person",
)


def designs(low: float | None, high: float | None) -> dict[str, dict[str, Any] | None]:
    """The five designs notebook 09 compares: name -> cascade settings (None: the filter
    alone, no judge)."""
    return {
        "rule filter alone": None,
        "judge alone": {"rules": ()},
        "filter, then judge": {},
        "judge or a person": {"rules": (), "low": low, "high": high},
        "filter, judge or a person": {"low": low, "high": high},
    }


def design_many(records, seeds, design, settings):
    """One design over many seeds: per seed the decisions (S, N bool), calls, input tokens
    and the records sent to a person, exactly as :func:`cascade` for each seed with the
    judge ``settings`` (a JudgeSettings, passed on whole).

    The judge runs once per seed on the records the filter lets through
    (``run_judge_many``); blocked records are harmful, escalated ones get the human label.
    """
    import numpy as np

    from .many import run_judge_many

    truth = np.array([is_harmful(r) for r in records])
    if design is None:  # the filter alone: no judge, no spread
        block = make_rule_filter()
        row = np.array([block(r) for r in records])
        zeros = np.zeros(len(seeds), dtype=np.int64)
        return {
            "harmful": np.tile(row, (len(seeds), 1)),
            "calls": zeros,
            "tokens": zeros,
            "people": 0,
            "truth": truth,
            "sent": np.zeros(len(records), dtype=bool),
        }
    band = _check_band(design.get("low"), design.get("high"))
    block = make_rule_filter(design.get("rules", DEFAULT_RULES))
    passed = np.array([not block(r) for r in records])
    harmful = np.tile(~passed, (len(seeds), 1))
    calls = tokens = np.zeros(len(seeds), dtype=np.int64)
    people = 0
    sent = np.zeros(len(records), dtype=bool)
    kept = [r for r, p in zip(records, passed) if p]
    if kept:
        runs = run_judge_many(kept, seeds, settings)
        harmful[:, passed] = runs.harmful
        calls, tokens = np.asarray(runs.calls), np.asarray(runs.input_tokens)
        if band is not None:
            probs = judge_probabilities(kept, settings)
            sent[np.flatnonzero(passed)] = [band[0] < probs[r.no] < band[1] for r in kept]
            harmful[:, sent] = truth[sent]
            people = int(sent.sum())
    return {
        "harmful": harmful,
        "calls": calls,
        "tokens": tokens,
        "people": people,
        "truth": truth,
        "sent": sent,
    }


def _design_door(records, seeds, low, high, settings, changes):
    """The checks design_rows and design_shares share: records, seeds, the band, the judge."""
    from .many import check_seeds

    records = check_records(records)
    seeds = check_seeds(seeds)
    _check_band(low, high)
    return records, seeds, resolve_settings(settings, changes)


def design_rows(
    records: Sequence[Record],
    seeds: Iterable[int],
    low: float | None,
    high: float | None,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> list[dict[str, Any]]:
    """Per design of :func:`designs`: the lesson's run (the first seed) and the 95% run band
    over ``seeds`` of agreement and false block rate, the calls and input tokens of the
    first seed (and their mean), and the records sent to a person (notebook 09).  The judge
    is ``settings`` with the keyword ``changes``, as :func:`cascade` takes them."""
    import numpy as np

    from .variance import run_band

    records, seeds, settings = _design_door(records, seeds, low, high, settings, changes)
    rows = []
    for name, design in designs(low, high).items():
        d = design_many(records, seeds, design, settings)
        truth, harmful = d["truth"], d["harmful"]
        f = rates(*four_counts(truth, harmful), rounded=False)
        agree, fbr = f["agreement"], f["false_block_rate"]
        kept = ~d["sent"]
        kept_agree = (harmful[:, kept] == truth[kept]).mean(axis=1)
        rows.append(
            {
                "design": name,
                "kept agreement": float(kept_agree.mean()),
                "kept": int(kept.sum()),
                "mean agreement": float(agree.mean()),
                "agreement": float(agree[0]),
                "agreement band": run_band(agree),
                "false block rate": float(fbr[0]),
                "fbr band": run_band(fbr),
                "calls": int(d["calls"][0]),
                "input tokens": int(d["tokens"][0]),
                "mean calls": float(np.mean(d["calls"])),
                "people": d["people"],
            }
        )
    return rows


def _figure_of(truth, x, figure):
    """One figure of decisions or shares ``x`` (rows of records) against ``truth`` alike."""
    from .metrics import rates

    tp = (x * truth).sum(axis=-1)
    fp = x.sum(axis=-1) - tp
    harmful = truth.sum(axis=-1)
    return rates(tp, fp, harmful - tp, truth.shape[-1] - harmful - fp, rounded=False)[figure]


# ----------------------------------- the designs compared on the same records (notebook 09)


def design_shares(
    records: Sequence[Record],
    seeds: Iterable[int],
    low: float | None,
    high: float | None,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, dict[str, Any]]:
    """Per design of :func:`designs`: each record's seed-averaged decision (its share of the
    runs over ``seeds`` that block it), the per-seed decisions, and which records went to a
    person (a bool per record); the judge as :func:`design_rows` takes it (notebook 09)."""
    records, seeds, settings = _design_door(records, seeds, low, high, settings, changes)
    out = {}
    for name, design in designs(low, high).items():
        d = design_many(records, seeds, design, settings)
        harmful, sent = d["harmful"], d["sent"]
        out[name] = {"share": harmful.mean(axis=0), "harmful": harmful, "sent": sent}
    return out


def design_comparisons(
    records: Sequence[Record],
    shares: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[tuple[str, str, str]],
    primary: tuple[str, str, str],
    n_resamples: int = 10_000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Each (design a, design b, figure) of ``pairs``: a minus b on the same records and the
    same seeds.  ``seed band`` is the 95% run band over the seeds of the paired per-seed
    difference (the judge's noise alone); ``records`` is :func:`paired_difference` on the
    seed-averaged decisions (the band the measurable rule reads).  ``primary`` (one of
    ``pairs``) keeps its p-value; the others get Holm's adjustment among themselves
    (notebook 09)."""
    import numpy as np

    from .metrics import FIGURES as NAMES
    from .sample import holm, paired_difference
    from .variance import run_band

    records = check_records(records)
    if not isinstance(shares, Mapping):
        raise TypeError(
            f"shares must be what design_shares returns (design name -> its shares), "
            f"got {type(shares).__name__}"
        )
    pairs = check_collection("pairs", pairs, "a list of (design a, design b, figure)", "pair")
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 3):
            raise TypeError(f"pairs must hold (design a, design b, figure) tuples, got {pair!r}")
        check_choice("pairs (each design)", pair[0], tuple(shares))
        check_choice("pairs (each design)", pair[1], tuple(shares))
        check_choice("pairs (each figure)", pair[2], tuple(NAMES))
    if tuple(primary) not in [tuple(p) for p in pairs]:
        raise ValueError(f"primary must be one of pairs, got {primary!r}")
    check_int("n_resamples", n_resamples, minimum=1)
    check_seed(seed)
    truth = np.array([is_harmful(r) for r in records])
    rows = []
    for a, b, figure in pairs:
        per_seed = _figure_of(
            truth[None, :].astype(float), shares[a]["harmful"].astype(float), figure
        ) - _figure_of(truth[None, :].astype(float), shares[b]["harmful"].astype(float), figure)
        diff = paired_difference(
            truth.tolist(),
            shares[a]["share"].tolist(),
            shares[b]["share"].tolist(),
            figure,
            n_resamples,
            seed=seed,
        )
        rows.append(
            {
                "a": a,
                "b": b,
                "figure": figure,
                "seed band": run_band(per_seed),
                "records": diff,
                "p": diff.p_value,
            }
        )
    others = [k for k, p in enumerate(pairs) if tuple(p) != tuple(primary)]
    for k, adjusted in zip(others, holm([rows[k]["p"] for k in others]) if others else []):
        rows[k]["p"] = adjusted
    for k, p in enumerate(pairs):
        rows[k]["primary"] = tuple(p) == tuple(primary)
    return rows


# ------------------------------------------------ the designs over the population (notebook 09)


def _kind_decision(design, band, harmful, p, blocks):
    """(the chance a design blocks one kind of record, whether the kind goes to a person)."""
    if design is None:  # the filter alone
        return float(blocks), False
    if blocks and "rules" not in design:  # the filter blocks it: no judge call
        return 1.0, False
    if band is not None and "low" in design and band[0] < p < band[1]:
        return float(harmful), True  # a person gives the human label
    return float(p), False


def _design_kinds(table, low, high):
    """The checked table and, per design, each row's (block chance, sent to a person)."""
    from .score import _table

    table = _table(table)
    band = _check_band(low, high)
    return table, {
        name: [
            _kind_decision(design, band, cls != "clean", p, blocks) for cls, _w, p, blocks in table
        ]
        for name, design in designs(low, high).items()
    }


def design_block_chances(
    table: Sequence[tuple[str, float, float, bool]], low: float | None, high: float | None
) -> dict[str, list[float]]:
    """Per design of :func:`designs`: the chance, over seeds, that it blocks each kind of
    record, one per row of ``table`` (``truth.profile_table()``: class, probability within
    the class, the judge's P(block), the filter blocks), notebook 09.

    The filter alone blocks what it blocks; the judge alone with its P(block); "filter, then
    judge" blocks what the filter blocks and, on the rest, with the judge's P(block) (the
    judge's own run on the records let through, :func:`cascade`); with ``low`` and ``high``
    a kind whose score is strictly between them goes to a person, whose label is the human
    label (1 for a harmful class, 0 for clean).  So the cascade's chance is never below the
    judge's on any kind of record: it adds the filter's blocks and takes none away."""
    _, kinds = _design_kinds(table, low, high)
    return {name: [chance for chance, _ in rows] for name, rows in kinds.items()}


def population_designs(
    table: Sequence[tuple[str, float, float, bool]], low: float | None, high: float | None
) -> list[dict[str, Any]]:
    """Per design of :func:`designs`, its figures over the whole population of ``table``
    (``truth.profile_table()``), in expectation over seeds, exact sums (notebook 09): the
    ``"agreement"``, ``"recall"``, ``"false_block_rate"`` and ``"precision"`` over all
    records, the share ``"sent"`` to a person and the ``"kept agreement"`` on the records
    it keeps (not sent), each kind blocked with its :func:`design_block_chances`."""
    from .records import CLASS_SHARE, CLASSES

    table, kinds = _design_kinds(table, low, high)
    shares = dict(zip(CLASSES, CLASS_SHARE))
    rows = []
    for name, decisions in kinds.items():
        tp = fp = harmful = sent = kept_right = 0.0
        for (cls, w, _p, _b), (chance, to_person) in zip(table, decisions):
            w *= shares[cls]
            bad = cls != "clean"
            harmful += w * bad
            tp += w * chance * bad
            fp += w * chance * (not bad)
            if to_person:
                sent += w
            else:
                kept_right += w * (chance if bad else 1.0 - chance)
        clean = 1.0 - harmful
        rows.append(
            {
                "design": name,
                "agreement": tp + clean - fp,
                "recall": tp / harmful if harmful else 0.0,
                "false_block_rate": fp / clean if clean else 0.0,
                "precision": tp / (tp + fp) if tp + fp else 0.0,
                "sent": sent,
                "kept agreement": kept_right / (1.0 - sent) if sent < 1.0 else 0.0,
            }
        )
    return rows
