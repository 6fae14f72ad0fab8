"""Notebook 08 - the judge's score over the whole population (``truth.profile_table``),
summed exactly: the truth that 08's sample figures estimate."""

from __future__ import annotations

from collections.abc import Sequence

from .score import _class_shares, _table

__all__ = ["population_levels", "population_score"]


def population_levels(
    table: Sequence[tuple[str, float, float, bool]],
    class_shares: Sequence[float] | None = None,
) -> list[dict[str, float]]:
    """Per distinct P(zararli) of ``table`` (``truth.profile_table(...)``), lowest first: the
    ``"score"``, the ``"share"`` of all records with it and the ``"harmful"`` share among
    them, summed exactly (notebook 08)."""
    table = _table(table)
    shares = _class_shares(class_shares)
    levels: dict[float, list[float]] = {}
    for cls, w, p, _ in table:
        row = levels.setdefault(p, [0.0, 0.0])
        row[0] += shares[cls] * w
        row[1] += shares[cls] * w * (cls != "clean")
    return [
        {"score": p, "share": n, "harmful": k / n if n else 0.0}
        for p, (n, k) in sorted(levels.items())
    ]


def population_score(
    table: Sequence[tuple[str, float, float, bool]],
    class_shares: Sequence[float] | None = None,
) -> dict[str, float]:
    """``{"brier": ..., "auc": ...}`` of the judge's score over the population of ``table``
    (exact sums; a tie counts one half in the AUC), notebook 08."""
    levels = population_levels(table, class_shares)
    brier_sum = below = wins = 0.0
    harmful = sum(row["share"] * row["harmful"] for row in levels)
    for row in levels:
        p, pos = row["score"], row["share"] * row["harmful"]
        neg = row["share"] - pos
        brier_sum += pos * (1 - p) ** 2 + neg * p**2
        wins += pos * (below + neg / 2)
        below += neg
    clean = 1.0 - harmful
    return {"brier": brier_sum, "auc": wins / (harmful * clean) if harmful * clean else 0.0}
