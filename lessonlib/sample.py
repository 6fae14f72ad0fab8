"""Notebook 07 - is the difference real? The records are a sample too.

The 240 records are one sample of the traffic.  A difference between two
approaches measured on them could come from which records happened to be drawn,
just as a judge's figure can come from which seed was drawn.  Here:

* :func:`paired_table` - the 2 x 2 table of who is right on the same records;
* :func:`mcnemar_p` - the exact McNemar test on that table (only the records on
  which the two disagree about being right count);
* :func:`paired_bootstrap` - the records' band: the records resampled with
  replacement, both approaches scored on each resample, and the middle share
  of the difference kept;
* :func:`records_needed` - how many labelled records a rate needs to be known
  to +/- a half-width;
* :func:`paired_power` and :func:`paired_records_needed` - for a paired difference: the
  chance that its band clears zero (its power) with a given number of records, and the
  records it needs for a given power;
* :func:`bootstrap_p` - the p-value that goes with the records' band: the share of
  resampled differences on the far side of zero, doubled;
* :func:`holm` - Holm's adjustment of p-values when more than one figure is tested.

Every function is a door a student calls: it checks its arguments first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ._checks import check_choice, check_int, check_number, check_seed
from .metrics import four_counts, rates
from .variance import run_band

__all__ = [
    "paired_table",
    "mcnemar_p",
    "paired_bootstrap",
    "bootstrap_p",
    "paired_difference",
    "PairedDifference",
    "p_text",
    "records_needed",
    "paired_power",
    "paired_records_needed",
    "holm",
]

FIGURES = ("agreement", "recall", "false_block_rate", "precision")
"""The figures :func:`paired_bootstrap` can compare (the names ``measure`` uses)."""
CELLS = 1 << 21
"""(resample, record) cells decided at once, so memory stays bounded (about 2 MiB a mask)."""


def _decisions(name: str, values: object, rows: bool = False, shares: bool = False) -> np.ndarray:
    """A sequence of bools (or, with ``rows``, also one row of bools per run; with ``shares``,
    also one share in [0, 1] per record) as an array."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of bools (True = harmful), got {type(values).__name__}"
        )
    try:
        array = np.asarray(values)
    except ValueError:  # ragged rows in numpy >= 1.24
        array = np.asarray(values, dtype=object)
    shapes = (1, 2) if rows else (1,)
    what = "a sequence of bools (True = harmful)"
    if shares:
        what += " or of shares in [0, 1] (how often the record is blocked)"
    if rows:
        what += " or one such row of bools per judge run"
    if array.size == 0:
        raise ValueError(f"{name} must hold at least one decision, got none")
    if shares and array.ndim == 1 and array.dtype.kind in "iuf":
        array = array.astype(float)
        if not np.all((array >= 0) & (array <= 1)):  # also refuses NaN
            raise ValueError(f"{name} must be {what}; a share lies outside [0, 1]")
        return array
    if array.dtype != bool or array.ndim not in shapes:
        raise TypeError(
            f"{name} must be {what}; got an array of {array.dtype} with shape {array.shape}"
        )
    return array


def _three(
    truth: object, a: object, b: object, rows: bool = False, shares: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The door's check of truth, a and b: bools, one per record, the same records."""
    truth = _decisions("truth", truth)
    a, b = _decisions("a", a, rows, shares), _decisions("b", b, rows, shares)
    for name, x in (("a", a), ("b", b)):
        if x.shape[-1] != len(truth):
            raise ValueError(
                f"{name} has {x.shape[-1]} decisions per run but truth has "
                f"{len(truth)}; give one decision per record, the same records "
                f"in the same order"
            )
    return truth, a, b


def paired_table(
    truth: Sequence[bool] | np.ndarray,
    a: Sequence[bool] | np.ndarray,
    b: Sequence[bool] | np.ndarray,
) -> list:
    """Who is right on the same records (notebook 07).

    ``truth``, ``a`` and ``b`` hold one bool per record (True = harmful): the
    human label and two approaches' decisions.  Returns ``[[both right, only a
    right], [only b right, both wrong]]``; the two off-diagonal cells are the
    **discordant** records, the only ones a paired comparison reads.
    """
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
    """The exact two-sided McNemar p-value of a :func:`paired_table` (notebook 07).

    Only the discordant cells count: if a and b were equally good, each of the
    ``n = only a + only b`` records would fall on either side with chance 1/2.
    The p-value is twice the binomial(n, 1/2) chance of a split at least as
    uneven as the one seen, at most 1; 1.0 when no record is discordant.
    """
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
    """The records' band of ``figure(a) - figure(b)`` (notebook 07).

    Each resample draws as many records as there are, with replacement, and
    scores ``a`` and ``b`` on the *same* drawn records (paired), so what both
    get right or wrong together cancels.  Returns the (low, high) ends that hold
    the middle ``level`` of the ``n_resamples`` differences, read as the 95% run
    band is (:func:`lessonlib.variance.run_band`).  ``figure`` is one of
    agreement, recall, false_block_rate, precision.  The same ``seed`` gives the
    same band.

    ``a`` (or ``b``) may also hold a share in [0, 1] per record instead of a bool: the
    share of runs that block the record, or its P(zararli).  Every figure is then scored
    by expected counts, so the band speaks of the judge in expectation over seeds.

    ``a`` (or ``b``) may also be one row of decisions per judge run, e.g.
    ``ManyRuns.harmful``: each resample then also draws one of the runs.  That band is
    kept as a counter-example, not for claims: a record drawn twice keeps the drawn run's
    one decision, so the judge's noise is counted twice and the band is too wide
    (``lessonlib.truth.band_coverage(kind="records_and_runs")`` measures it).  For the
    judge in expectation over seeds, give each record's seed-averaged decision instead.
    """
    return run_band(_differences(truth, a, b, figure, n_resamples, seed), _level(level))


def _level(level):
    """The door's check of a band's level: a share strictly between 0 and 1."""
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be a share strictly between 0 and 1, got {level!r}")
    return level


def _differences(truth, a, b, figure, n_resamples, seed):
    """The door's checks, then the ``n_resamples`` resampled differences figure(a) - figure(b)."""
    truth, a, b = _three(truth, a, b, rows=True, shares=True)
    figure = check_choice("figure", figure, FIGURES)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    seed = check_seed(seed)
    # records and runs from two streams: rows of identical runs give the 1-D band exactly
    rng, runs_rng = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    n, out = len(truth), []
    block = max(1, CELLS // n)
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        rows = rng.integers(0, n, size=(size, n))
        drawn = truth[rows]
        figures = []
        for x in (a, b):
            if x.ndim == 2:  # one row per run: each resample also draws a run
                x = x[runs_rng.integers(0, len(x), size=size)[:, None], rows]
            else:
                x = x[rows]
            figures.append(rates(*four_counts(drawn, x), rounded=False)[figure])
        out.append(figures[0] - figures[1])
    return np.concatenate(out)


def _p_value(d):
    """Twice the smaller share of resampled differences on either side of zero, at most 1."""
    return float(min(1.0, 2 * min(np.count_nonzero(d <= 0), np.count_nonzero(d >= 0)) / len(d)))


def p_text(p: float) -> str:
    """A p-value as the notebooks print it: three decimals, or '<0.001' (notebooks 07-14)."""
    return "<0.001" if p < 0.0005 else f"{p:.3f}"


def bootstrap_p(
    truth: Sequence[bool] | np.ndarray,
    a: Sequence[bool] | Sequence[float] | np.ndarray,
    b: Sequence[bool] | Sequence[float] | np.ndarray,
    figure: str = "agreement",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> float:
    """The two-sided bootstrap p-value of ``figure(a) - figure(b)`` (notebook 07).

    The same resamples as :func:`paired_bootstrap` with the same arguments: the share of
    resampled differences at or below zero, or at or above it, whichever is smaller,
    doubled and at most 1.  It is below ``1 - level`` exactly when the band at that level
    lies clear of zero (when ``n_resamples * (1 - level) / 2`` is a whole number), so it
    is the band's verdict as a number, the kind :func:`holm` adjusts.  ``a`` and ``b``
    take what :func:`paired_bootstrap` takes.
    """
    return _p_value(_differences(truth, a, b, figure, n_resamples, seed))


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
    """The estimate, records' band and p-value of ``figure(a) - figure(b)`` from one set of
    resamples (notebooks 07, 09, 12, 14): :func:`paired_bootstrap`'s band and
    :func:`bootstrap_p`'s p-value for the same arguments, and the difference on the records
    themselves.  ``a`` and ``b`` hold a bool or a share in [0, 1] per record (shares are
    scored by expected counts)."""
    level = _level(level)
    d = _differences(truth, a, b, figure, n_resamples, seed)
    truth, a, b = _three(truth, a, b, shares=True)
    whole = [rates(*four_counts(truth, x), rounded=False)[figure] for x in (a, b)]
    low, high = run_band(d, level)
    return PairedDifference(float(whole[0] - whole[1]), low, high, _p_value(d))


def records_needed(p: float, half_width: float, level: float = 0.95) -> int:
    """Labelled records needed to know a rate near ``p`` to +/- ``half_width`` (notebook 07).

    The normal approximation: n = z**2 p (1 - p) / half_width**2, rounded up,
    with z the standard normal quantile that leaves (1 - level) / 2 in each tail
    (1.96 for 0.95).  For a rate that may come out 0 or 1, see the rule of three.
    """
    p = check_number("p", p)
    if not 0 < p < 1:
        raise ValueError(f"p must be a rate strictly between 0 and 1, got {p!r}")
    half_width = check_number("half_width", half_width)
    if half_width <= 0:
        raise ValueError(f"half_width must be a number > 0, got {half_width!r}")
    level = check_number("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be a share strictly between 0 and 1, got {level!r}")
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
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
    return abs(difference), sd, NormalDist().inv_cdf(1 - (1 - _level(level)) / 2)


def paired_power(difference: float, sd: float, n_records: int, level: float = 0.95) -> float:
    """The chance that the ``level`` band of a paired difference clears zero (notebook 07).

    ``difference`` is the true difference (the population's, e.g. judge - filter agreement)
    and ``sd`` the standard deviation of the per-record difference (for agreement, judge
    right minus filter right on one record: a number in -1 .. 1).  With ``n_records``
    records the estimate is about normal with standard error ``sd / sqrt(n_records)``, so
    the band clears zero with chance Phi(e - z) + Phi(-e - z), e = |difference| /
    standard error, z the normal quantile of the level (1.96 for 0.95): the **power**.  The
    second term is a band clear of zero on the wrong side (tiny unless the power is).
    """
    difference, sd, z = _power_inputs(difference, sd, level)
    n_records = check_int("n_records", n_records, minimum=1)
    e, phi = difference * math.sqrt(n_records) / sd, NormalDist().cdf
    return phi(e - z) + phi(-e - z)


def paired_records_needed(
    difference: float, sd: float, power: float = 0.8, level: float = 0.95
) -> int:
    """Records a paired comparison needs so that its ``level`` band clears zero with chance
    ``power`` when the true difference is ``difference`` (notebook 07).

    n = (z + z_power)**2 sd**2 / difference**2, rounded up: z the normal quantile of the
    level (1.96 for 0.95), z_power that of the power (0.8416 for 0.8), ``sd`` the standard
    deviation of the per-record difference (see :func:`paired_power`).  It leaves out the
    wrong side's tiny share, so :func:`paired_power` at the answer is at least ``power``.
    """
    difference, sd, z = _power_inputs(difference, sd, level)
    power = check_number("power", power)
    if not 0.5 <= power < 1:
        raise ValueError(f"power must be a share in [0.5, 1), got {power!r}")
    z_power = NormalDist().inv_cdf(power)
    return max(1, math.ceil(round((z + z_power) ** 2 * sd * sd / difference**2, 9)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (Holm 1979; notebook 07).

    When several figures are tested, the smallest p-value is multiplied by their number m,
    the next by m - 1, and so on, each kept at least as large as the one before and at most
    1.  A figure whose adjusted p-value is below 1 - level is a finding with the family's
    error held at that level.  Returns the adjusted p-values in the order given.
    """
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
