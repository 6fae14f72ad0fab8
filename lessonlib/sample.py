"""Notebook 07 - is the difference real? The records are a sample too.

The paired table and McNemar's exact test, the records' band of a paired difference (a
paired bootstrap) with its p-value, Holm's adjustment, and the records a rate or a paired
difference needs (normal approximation).  Every function is a door: it checks its arguments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ._checks import check_choice, check_int, check_number, check_seed
from .metrics import four_counts, rates
from .variance import _level, _z, run_band

__all__ = [
    "paired_table",
    "mcnemar_p",
    "paired_bootstrap",
    "paired_difference",
    "PairedDifference",
    "records_needed",
    "paired_power",
    "paired_records_needed",
    "holm",
]

FIGURES = ("agreement", "recall", "false_block_rate", "precision")
"""The figures :func:`paired_bootstrap` can compare (the names ``measure`` uses)."""
CELLS = 1 << 21  # (resample, record) cells decided at once: about 2 MiB a mask


def _decisions(name: str, values: object, shares: bool = False) -> np.ndarray:
    """A sequence of bools (with ``shares``, or of shares in [0, 1]), one per record."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of bools (True = harmful), got {type(values).__name__}"
        )
    try:
        array = np.asarray(values)
    except ValueError:  # ragged rows in numpy >= 1.24
        array = np.asarray(values, dtype=object)
    what = "a sequence of bools (True = harmful)"
    if shares:
        what += " or of shares in [0, 1] (how often the record is blocked)"
    if array.size == 0:
        raise ValueError(f"{name} must hold at least one decision, got none")
    if shares and array.ndim == 1 and array.dtype.kind in "iuf":
        array = array.astype(float)
        if not np.all((array >= 0) & (array <= 1)):  # also refuses NaN
            raise ValueError(f"{name} must be {what}; a share lies outside [0, 1]")
        return array
    if array.dtype != bool or array.ndim != 1:
        raise TypeError(
            f"{name} must be {what}; got an array of {array.dtype} with shape {array.shape}"
        )
    return array


def _three(
    truth: object, a: object, b: object, shares: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The door's check of truth, a and b: bools, one per record, the same records."""
    truth = _decisions("truth", truth)
    a, b = _decisions("a", a, shares), _decisions("b", b, shares)
    for name, x in (("a", a), ("b", b)):
        if len(x) != len(truth):
            raise ValueError(
                f"{name} has {len(x)} decisions but truth has "
                f"{len(truth)}; give one decision per record, the same records "
                f"in the same order"
            )
    return truth, a, b


def paired_table(
    truth: Sequence[bool] | np.ndarray,
    a: Sequence[bool] | np.ndarray,
    b: Sequence[bool] | np.ndarray,
) -> list:
    """Who is right on the same records (notebook 07): ``truth``, ``a`` and ``b`` one bool per
    record; returns ``[[both right, only a right], [only b right, both wrong]]``."""
    truth, a, b = _three(truth, a, b)
    right_a, right_b = a == truth, b == truth
    return [
        [int(np.count_nonzero(right_a & right_b)), int(np.count_nonzero(right_a & ~right_b))],
        [int(np.count_nonzero(~right_a & right_b)), int(np.count_nonzero(~right_a & ~right_b))],
    ]


def _table(table):
    """The door's check of a 2 x 2 table of counts: two rows of two whole numbers >= 0."""
    if (
        isinstance(table, (str, bytes))
        or not hasattr(table, "__len__")
        or len(table) != 2
        or any(
            isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 2
            for row in table
        )
    ):
        raise ValueError(
            f"table must be 2 rows of 2 counts, [[both right, only a right], "
            f"[only b right, both wrong]]; got {table!r}"
        )
    return [
        [check_int(f"table[{i}][{j}]", table[i][j], minimum=0) for j in range(2)] for i in range(2)
    ]


def mcnemar_p(table: Sequence[Sequence[int]]) -> float:
    """The exact two-sided McNemar p-value of a :func:`paired_table` (notebook 07): twice the
    binomial(n, 1/2) tail of the discordant split, at most 1 (1.0 when n is 0)."""
    (_, only_a), (only_b, _) = _table(table)
    n, k = only_a + only_b, min(only_a, only_b)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1))  # exact, in whole numbers
    return min(1.0, 2 * tail / 2**n)


def paired_bootstrap(
    truth: Sequence[bool] | np.ndarray,
    a: Sequence[bool] | Sequence[float] | np.ndarray,
    b: Sequence[bool] | Sequence[float] | np.ndarray,
    figure: str = "agreement",
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple:
    """The records' band of ``figure(a) - figure(b)`` (notebook 07): ``(low, high)``, the
    middle ``level`` (read as ``run_band``) of ``n_resamples`` paired resamples of the records.
    ``a`` and ``b`` hold a bool per record, or a share in [0, 1] (scored by expected counts);
    ``figure`` is one of FIGURES; the same ``seed`` gives the same band."""
    return run_band(_differences(truth, a, b, figure, n_resamples, seed)[3], _level(level))


def _differences(truth, a, b, figure, n_resamples, seed):
    """The door's checks, then the checked ``truth, a, b`` and the ``n_resamples`` resampled
    differences figure(a) - figure(b)."""
    truth, a, b = _three(truth, a, b, shares=True)
    figure = check_choice("figure", figure, FIGURES)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    n, out = len(truth), []
    block = max(1, CELLS // n)
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        rows = rng.integers(0, n, size=(size, n))
        drawn = truth[rows]
        figures = [rates(*four_counts(drawn, x[rows]), rounded=False)[figure] for x in (a, b)]
        out.append(figures[0] - figures[1])
    return truth, a, b, np.concatenate(out)


def _p_value(d):
    """Twice the smaller share of resampled differences on either side of zero, at most 1."""
    return float(min(1.0, 2 * min(np.count_nonzero(d <= 0), np.count_nonzero(d >= 0)) / len(d)))


@dataclass(frozen=True)
class PairedDifference:
    """figure(a) - figure(b) on the same records (notebooks 07, 09, 12, 14): the estimate,
    the records' band (``low``, ``high``) and the bootstrap p-value of 'no difference'."""

    estimate: float
    low: float
    high: float
    p_value: float

    @property
    def measurable(self) -> bool:
        """True when the band lies clear of zero."""
        return self.low > 0 or self.high < 0


def paired_difference(
    truth: Sequence[bool] | np.ndarray,
    a: Sequence[bool] | Sequence[float] | np.ndarray,
    b: Sequence[bool] | Sequence[float] | np.ndarray,
    figure: str = "agreement",
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> PairedDifference:
    """``figure(a) - figure(b)`` on the records, with :func:`paired_bootstrap`'s band for the
    same arguments and the bootstrap p-value of 'no difference' (twice the smaller share of
    resampled differences on either side of zero, at most 1) from the same resamples."""
    level = _level(level)
    truth, a, b, d = _differences(truth, a, b, figure, n_resamples, seed)
    whole = [rates(*four_counts(truth, x), rounded=False)[figure] for x in (a, b)]
    low, high = run_band(d, level)
    return PairedDifference(float(whole[0] - whole[1]), low, high, _p_value(d))


def records_needed(p: float, half_width: float, level: float = 0.95) -> int:
    """Labelled records needed to know a rate near ``p`` to +/- ``half_width`` (notebook 07):
    n = z**2 p (1 - p) / half_width**2 rounded up, z the normal quantile of ``level``."""
    p = check_number("p", p)
    if not 0 < p < 1:
        raise ValueError(f"p must be a rate strictly between 0 and 1, got {p!r}")
    half_width = check_number("half_width", half_width)
    if half_width <= 0:
        raise ValueError(f"half_width must be a number > 0, got {half_width!r}")
    z = _z(level)
    # round away the last-bit noise before taking the ceiling (0.5**2 * 4 must give 1, not 2)
    return max(1, math.ceil(round(z * z * p * (1 - p) / half_width**2, 9)))


def _power_inputs(difference, sd, level):
    """The door's checks shared by :func:`paired_power` and :func:`paired_records_needed`."""
    difference = check_number("difference", difference)
    if difference == 0:
        raise ValueError(
            "difference must be a true difference other than 0 (with none to find, the band "
            "clears zero with chance 1 - level whatever the records), got 0"
        )
    sd = check_number("sd", sd)
    if sd <= 0:
        raise ValueError(
            f"sd must be the standard deviation of the per-record difference, > 0, got {sd!r}"
        )
    return abs(difference), sd, _z(level)


def paired_power(difference: float, sd: float, n_records: int, level: float = 0.95) -> float:
    """The power (notebook 07): the chance that the ``level`` band of a paired difference
    clears zero with ``n_records`` records, Phi(e - z) + Phi(-e - z), e = |difference| *
    sqrt(n_records) / sd, ``sd`` that of the per-record difference."""
    difference, sd, z = _power_inputs(difference, sd, level)
    n_records = check_int("n_records", n_records, minimum=1)
    e, phi = difference * math.sqrt(n_records) / sd, NormalDist().cdf
    return phi(e - z) + phi(-e - z)


def paired_records_needed(
    difference: float, sd: float, power: float = 0.8, level: float = 0.95
) -> int:
    """Records a paired comparison needs for ``power`` (notebook 07): n = (z + z_power)**2
    sd**2 / difference**2 rounded up (:func:`paired_power` at the answer is at least ``power``)."""
    difference, sd, z = _power_inputs(difference, sd, level)
    power = check_number("power", power)
    if not 0.5 <= power < 1:
        raise ValueError(f"power must be a share in [0.5, 1), got {power!r}")
    z_power = NormalDist().inv_cdf(power)
    return max(1, math.ceil(round((z + z_power) ** 2 * sd * sd / difference**2, 9)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (Holm 1979; notebook 07): the k-th smallest
    times (m - k + 1), kept non-decreasing and at most 1; returned in the order given."""
    if isinstance(p_values, (str, bytes)) or not hasattr(p_values, "__iter__"):
        raise TypeError(f"p_values must be a sequence of p-values, got {type(p_values).__name__}")
    values = [check_number(f"p_values[{i}]", p) for i, p in enumerate(p_values)]
    if not values:
        raise ValueError("p_values must hold at least one p-value, got none")
    if not all(0 <= p <= 1 for p in values):
        raise ValueError(f"p_values must be p-values in [0, 1], got {values!r}")
    m, out, running = len(values), [0.0] * len(values), 0.0
    for rank, i in enumerate(sorted(range(m), key=values.__getitem__)):
        running = max(running, min(1.0, (m - rank) * values[i]))
        out[i] = running
    return out
