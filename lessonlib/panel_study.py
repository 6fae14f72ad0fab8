"""Notebook 11 - panel design: the free-form guideline and a panel's figures run by run.

Notebook 11 writes its study of panel setups in its own cells (``Panel.run_many`` and
:mod:`lessonlib.variance`); what stays here is shared with the panel explorer
(:mod:`lessonlib.widgets`) and the exercises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .metrics import RATES, four_counts, rates

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FREE_FORM_GUIDELINE", "METRICS", "rates_many"]

FREE_FORM_GUIDELINE = (
    "Su kaydin ozniteliklerine bak ve etiket yaz : temiz ya da zararli . Oznitelikler : "
)
"""The lesson's guideline without 'tek' (single): the model then answers in a sentence,
and one reply form ('degerlendirme tamamlandi', 'assessment done') carries no label."""

METRICS = ("agreement", *RATES)
"""The figures of :data:`lessonlib.metrics.FIGURES` a setup is scored on, agreement first."""


def rates_many(harmful: np.ndarray, actual: np.ndarray) -> dict[str, np.ndarray]:
    """Per run (a row of ``harmful``, runs x records of True/False): agreement, precision,
    recall and false block rate against ``actual`` (True/False a record).  Not rounded; 0.0
    where a rate has no denominator, as ``measure`` does.  Refuses shapes that do not match."""
    import numpy as np

    harmful, actual = np.asarray(harmful), np.asarray(actual)
    if harmful.ndim != 2 or actual.ndim != 1 or harmful.shape[1] != len(actual):
        raise ValueError(
            f"harmful must be runs x records and actual one value a record, got shapes "
            f"{harmful.shape} and {actual.shape}"
        )
    for name, values in (("harmful", harmful), ("actual", actual)):
        if values.dtype != bool and not np.isin(values, (0, 1)).all():
            raise ValueError(f"{name} must hold True/False (or 1/0) decisions")
    figures = rates(*four_counts(actual.astype(bool), harmful.astype(bool)), rounded=False)
    return {name: figures[name] for name in METRICS}
