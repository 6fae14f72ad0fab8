"""Notebook 09 - designs: the rule filter first, the judge on the rest, maybe a person.

* :func:`cascade` - the rule filter first, the judge on what it lets through, and optionally
  the judge's confident records kept while the rest go to a person (a :class:`CascadeRun`);
* :func:`design_shares` - the five :func:`designs` run over many seeds on the same records;
* :func:`design_comparisons` - two designs compared on the same records under the measurable
  rule (notebook 09 computes the seed band and the population's designs itself).
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
from .records import SEED, Record, check_record, check_records, is_harmful
from .score import judge_probabilities

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "cascade",
    "CascadeRun",
    "designs",
    "design_shares",
    "design_comparisons",
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


def designs(low: float | None, high: float | None) -> dict[str, dict[str, Any] | None]:
    """The five designs notebook 09 compares: name -> cascade settings (None: the filter
    alone, no judge); ``low`` and ``high`` as :func:`cascade` takes them."""
    _check_band(low, high)
    return {
        "rule filter alone": None,
        "judge alone": {"rules": ()},
        "filter, then judge": {},
        "judge or a person": {"rules": (), "low": low, "high": high},
        "filter, judge or a person": {"low": low, "high": high},
    }


def design_many(records, seeds, design, settings):
    """One design over many seeds, as :func:`cascade` seed by seed (one ``run_judge_many`` on
    what the filter lets through): per seed the decisions (S, N bool), calls and input tokens;
    the records sent to a person (``sent``), their number (``people``) and ``truth``."""
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


def design_shares(
    records: Sequence[Record],
    seeds: Iterable[int],
    low: float | None,
    high: float | None,
    settings: JudgeSettings | None = None,
    **changes: Unpack[SettingsChanges],
) -> dict[str, dict[str, Any]]:
    """Per design of :func:`designs` (the judge ``settings`` with the keyword ``changes``, as
    :func:`cascade` takes them): ``harmful``, the decisions per seed (seeds x records),
    ``share``, each record's share of the runs that block it, ``sent``, a bool per record that
    went to a person, and ``calls``, the judge calls per seed (notebook 09)."""
    from .many import check_seeds

    records = check_records(records)
    seeds = check_seeds(seeds)
    settings = resolve_settings(settings, changes)
    out = {}
    for name, design in designs(low, high).items():
        d = design_many(records, seeds, design, settings)
        harmful = d["harmful"]
        out[name] = {
            "share": harmful.mean(axis=0),
            "harmful": harmful,
            "sent": d["sent"],
            "calls": d["calls"],
        }
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
    same seeds: ``records`` is :func:`paired_difference` on the seed-averaged decisions of
    :func:`design_shares` (the band the measurable rule reads).  ``primary`` (one of ``pairs``)
    keeps its p-value; the others get Holm's adjustment among themselves (notebook 09)."""
    import numpy as np

    from .metrics import FIGURES as NAMES
    from .sample import holm, paired_difference

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
