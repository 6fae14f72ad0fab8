"""Notebooks 07 and 14 - the truth the generator knows.

Every record is drawn from a known population (``records``): a class by CLASS_SHARE, a
source by SOURCE_SHARE[class], each of the seven flags on with PROFILE[class], a text
uniformly from TEXTS.  The simulated judge's chance of blocking a record depends only on
its prompt, and over seeds a judge run blocks it with exactly P(zararli) (notebook 08's
score: a rate-limited call is asked again with the next seed, another draw of the same
chance).  So every population figure is a finite sum, computed here exactly, not sampled:

* :func:`population_figures` - agreement, recall, false block rate and precision of the
  judge (in expectation over seeds) and of the rule filter, over the whole population.

``profile_table`` is the sum's table (one row per class, source, text and flag profile)
for the notebooks' simulations; it trusts its caller.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from ._checks import check_collection, check_number
from .criteria import DEFAULT_RULES, make_rule_filter
from .judge import GUIDELINE
from .records import (
    CLASS_SHARE,
    CLASSES,
    FEATURES,
    PROFILE,
    SOURCE_SHARE,
    SOURCES,
    TEXTS,
    Flags,
    Record,
)
from .simulator import CUE_TABLE, PRIOR, SPURIOUS, TEMPERATURE

__all__ = ["population_figures", "JUDGE_SETTINGS"]

JUDGE_SETTINGS = ("temperature", "guideline", "cues", "spurious", "prior")
"""The judge's settings population_figures takes, as judge_probabilities names them."""

FIGURE_NAMES = ("agreement", "recall", "false_block_rate", "precision")


def _check_shares(class_shares):
    shares = check_collection("class_shares", class_shares, "a list of shares", "share")
    if len(shares) != len(CLASSES):
        raise ValueError(
            f"class_shares must give one share per class ({', '.join(CLASSES)}): "
            f"{len(CLASSES)} numbers, got {len(shares)}"
        )
    shares = tuple(check_number(f"class_shares[{i}]", s) for i, s in enumerate(shares))
    if min(shares) < 0 or abs(sum(shares) - 1) > 1e-9:
        raise ValueError(f"class_shares must be shares >= 0 that sum to 1, got {shares!r}")
    return shares


def profile_table(
    temperature: float = TEMPERATURE,
    guideline: str = GUIDELINE,
    cues: Mapping[str, str] = CUE_TABLE,
    spurious: Mapping[str, str] = SPURIOUS,
    prior: Mapping[str, float] = PRIOR,
    rules: Sequence[str] = DEFAULT_RULES,
) -> list[tuple[str, float, float, bool]]:
    """One row (class, probability within the class, judge's P(block), filter blocks) per
    source, text and flag profile of each class; the rows of a class sum to 1."""
    from .score import judge_probabilities

    rule = make_rule_filter(rules)
    profiles = list(itertools.product((False, True), repeat=len(FEATURES)))
    # one record per (source, text, flags), asked in one call; the prompt also carries the
    # record's number, which no cue of the course's tables reads
    cells = [(source, text, flags) for source in SOURCES for text in TEXTS for flags in profiles]
    probe = [Record(i + 1, "clean", s, Flags(f), t, 40) for i, (s, t, f) in enumerate(cells)]
    chance = judge_probabilities(probe, temperature, guideline, cues, spurious, prior)
    blocks = [bool(rule(record)) for record in probe]
    rows = []
    for cls in CLASSES:
        for i, (source, _text, flags) in enumerate(cells):
            weight = SOURCE_SHARE[cls][SOURCES.index(source)] / len(TEXTS)
            for on, p in zip(flags, PROFILE[cls]):
                weight *= p if on else 1 - p
            rows.append((cls, weight, chance[i + 1], blocks[i]))
    return rows


def _figures(shares, rows, which):
    """The four figures from expected counts per record drawn; which: 2 (judge) or 3 (filter)."""
    tp = fp = harmful = 0.0
    for row in rows:
        w = shares[CLASSES.index(row[0])] * row[1]
        block = float(row[which])
        if row[0] == "clean":
            fp += w * block
        else:
            harmful += w
            tp += w * block
    clean = 1.0 - harmful
    tn = clean - fp
    return {
        "agreement": tp + tn,
        "recall": tp / harmful if harmful else 0.0,
        "false_block_rate": fp / clean if clean else 0.0,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
    }


def population_figures(
    *, class_shares: Sequence[float] = CLASS_SHARE, **judge_settings: Any
) -> dict[str, dict[str, float]]:
    """The population's true figures: ``{"judge": {...}, "filter": {...}}`` (notebook 07).

    agreement, recall, false_block_rate and precision, summed exactly over classes, sources,
    texts and flag profiles (not sampled); the judge's in expectation over seeds (each record
    blocked with its P(zararli)), the rule filter's as they are.  ``judge_settings`` are the
    judge's settings as judge_probabilities takes them (temperature, guideline, cues, spurious,
    prior); ``class_shares`` (one share per class, CLASSES order) draws another week's mix.
    Precision is the ratio of the expected counts, as any population rate is.
    """
    unknown = set(judge_settings) - set(JUDGE_SETTINGS)
    if unknown:
        raise TypeError(
            f"population_figures takes the judge settings {', '.join(JUDGE_SETTINGS)}; "
            f"got {', '.join(sorted(unknown))}"
        )
    shares = _check_shares(class_shares)
    rows = profile_table(**judge_settings)
    return {"judge": _figures(shares, rows, 2), "filter": _figures(shares, rows, 3)}
