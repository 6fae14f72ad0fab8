"""Figures for the notebooks (matplotlib is imported inside each function).

The rest of lessonlib stays pure Python; only a notebook that draws a figure
needs matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._checks import check_records, check_str
from .metrics import class_recall
from .records import CLASSES


def _check_decisions(decisions):
    if not isinstance(decisions, Mapping) or not decisions:
        raise TypeError("decisions must be a non-empty mapping name -> decide function, got "
                        f"{type(decisions).__name__}")
    for name, decide in decisions.items():
        if not isinstance(name, str) or not callable(decide):
            raise TypeError("decisions must map a str name to a function record -> bool, got "
                            f"{name!r} -> {type(decide).__name__}")
    return dict(decisions)


def class_recall_bars(records, decisions, ax=None,
                      title="Recall per harmful class"):
    """Grouped bars: for every harmful class, the recall of each decision in ``decisions``.

    ``decisions`` maps a legend name to a decide function (record -> bool),
    e.g. ``{"criteria": rule_filter, "judge, run 1": run.decide}``.  Each
    class's record count is written under its name.  Returns the Axes.
    """
    records = check_records(records)
    decisions = _check_decisions(decisions)
    check_str("title", title)
    if ax is not None and not hasattr(ax, "bar"):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    import matplotlib.pyplot as plt

    recalls = {name: class_recall(records, decide) for name, decide in decisions.items()}
    first = next(iter(recalls.values()))
    classes = [c for c in CLASSES[1:] if c in first]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(decisions)
    for k, (name, per_class) in enumerate(recalls.items()):
        xs = [i + (k - (len(decisions) - 1) / 2) * width for i in range(len(classes))]
        ax.bar(xs, [per_class[c][1] for c in classes], width, label=name)
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels([f"{c.replace('_', chr(10))}\n({first[c][0]} records)" for c in classes],
                       fontsize=8)
    ax.set_ylim(0, 1.2)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("recall (share of the class blocked)")
    ax.set_xlabel("harmful class")
    ax.set_title(title)
    ax.legend(loc="upper center", ncol=len(decisions), frameon=False)
    return ax
