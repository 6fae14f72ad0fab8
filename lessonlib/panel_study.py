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
    """Per run (row of ``harmful``): agreement, precision, recall and false block rate.

    Not rounded; 0.0 where a rate has no denominator, as ``measure`` does.
    """
    import numpy as np

    figures = rates(*four_counts(actual, np.asarray(harmful, dtype=bool)), rounded=False)
    return {name: figures[name] for name in METRICS}
