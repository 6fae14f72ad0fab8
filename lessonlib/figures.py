"""Notebooks 02, 05 and 07 - figures: the confusion matrix (02), recall per class (05) and the
two sources of noise (07).

matplotlib is imported inside each function: the rest of lessonlib stays pure
Python, and only a notebook that draws a figure needs matplotlib.
"""

from __future__ import annotations


from ._frozen import ReadOnlyDict
from .records import CLASSES
from .metrics import class_recall, confusion

__all__ = ["class_recall_bars", "confusion_picture"]


def confusion_picture(records, decide, ax=None, title="Decisions against the human label"):
    """Notebook 02: the 2 x 2 confusion matrix of ``decide`` with the rates read off it.

    Rows are the human label (harmful, clean), columns the decision (blocked,
    let through).  Each box shows its name (tp, fn, fp, tn) and count; the
    right-hand side writes recall (harmful row) and false block rate (clean
    row), the bottom writes precision (blocked column) and agreement.  Correct boxes are
    green, wrong ones orange.  Returns the Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    tp, fp, fn, tn = confusion(records, decide)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    boxes = {(0, 0): ("tp", tp, True), (0, 1): ("fn", fn, False),
             (1, 0): ("fp", fp, False), (1, 1): ("tn", tn, True)}
    for (row, col), (name, count, right) in boxes.items():
        ax.add_patch(Rectangle((col, 1 - row), 1, 1, facecolor="#b7dfb9" if right else "#f6c28b",
                               edgecolor="white", linewidth=3))
        ax.text(col + 0.5, 1.5 - row, f"{name}\n{count}", ha="center", va="center", fontsize=14)

    def rate(part, whole):
        return f"{part}/{whole} = {part / whole:.4f}" if whole else f"{part}/0"

    ax.text(2.08, 1.5, "recall\n" + rate(tp, tp + fn), va="center", fontsize=10)
    ax.text(2.08, 0.5, "false block rate\n" + rate(fp, fp + tn), va="center", fontsize=10)
    ax.text(0.5, -0.12, "precision\n" + rate(tp, tp + fp), ha="center", va="top", fontsize=10)
    ax.text(2.08, -0.12, f"agreement\n(tp + tn)/{len(records)} = {(tp + tn) / len(records):.4f}",
            va="top", fontsize=10)
    ax.set_xlim(0, 2.9)
    ax.set_ylim(-0.5, 2)
    ax.set_xticks([0.5, 1.5])
    ax.set_xticklabels(["blocked", "let through"])
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_yticks([1.5, 0.5])
    ax.set_yticklabels([f"harmful\n({tp + fn})", f"clean\n({fp + tn})"])
    ax.set_xlabel("decision")
    ax.xaxis.set_label_coords(1 / 2.9, 1.13)
    ax.set_ylabel("human label")
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(title, pad=12)
    return ax


def class_recall_bars(records, decisions, ax=None,
                      title="Recall per harmful class"):
    """Notebook 05: grouped bars, per harmful class the recall of each of ``decisions``.

    ``decisions`` maps a legend name to a decide function (record -> bool),
    e.g. ``{"criteria": rule_filter, "judge, run 1": run.decide}``.  Each
    class's record count is written under its name.  Returns the Axes.
    """
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


SOURCES = ReadOnlyDict({"seed": ("the seed: 95% run band over judge runs", "0.55"),
                       "records": ("the records: records' band, judge run 1", "C0"),
                       "both": ("both: records resampled, runs re-drawn", "C3")})
"""The sources of noise :func:`noise_bands` can draw: key -> (legend text, colour)."""


def noise_bands(bands, observed, ax=None, title="Two sources of noise in one difference"):
    """Notebook 07: per figure, the 95% band of a difference from each source of noise.

    ``bands`` maps a figure's title to ``{source: (low, high)}`` with sources
    from ``SOURCES`` (seed, records, both); ``observed`` maps the same titles to
    the difference measured on the lesson's run 1.  One row per figure, one bar
    per source, a dot at the observed difference and a line at zero: a band
    that crosses the line leaves the difference unmeasured.  Returns the Axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    names = list(bands)
    for i, name in enumerate(names):
        for k, (source, (low, high)) in enumerate(bands[name].items()):
            label, colour = SOURCES[source]
            y = i + (k - 1) * 0.22
            ax.plot([low, high], [y, y], color=colour, linewidth=5, solid_capstyle="butt",
                    label=label if i == 0 else None)
        ax.plot([observed[name]], [i], marker="o", color="black", markersize=5,
                label="judge run 1 - filter" if i == 0 else None)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("difference, judge - filter")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    return ax
