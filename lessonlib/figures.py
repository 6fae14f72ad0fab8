"""Notebooks 02, 05 and 07 - figures: the confusion matrix (02), recall per class (05) and the
two sources of noise (07); and the one style every lessonlib figure is drawn in
(:func:`slide_figure`).

matplotlib is imported inside each function: the rest of lessonlib stays pure
Python, and only a notebook that draws a figure needs matplotlib.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar

from ._frozen import ReadOnlyDict
from .records import CLASSES, Record
from .metrics import class_recall, confusion

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FIGURE_DPI", "FIGURE_STYLE", "FIGURE_WIDTH", "SMALLEST_POINTS", "class_recall_bars",
           "confusion_picture", "noise_bands", "plot_class_sources",
           "plot_harmful_probability", "slide_figure"]

FIGURE_DPI = 100
"""Pixels per inch of every lessonlib figure (the notebook's PNG is drawn at this)."""
FIGURE_WIDTH = 10.0
"""Inches: a lessonlib figure is FIGURE_WIDTH * FIGURE_DPI = 1,000 px wide, most of a
1280x720 slide's width and of a JupyterLab notebook's."""
SMALLEST_POINTS = 13.0
"""The smallest type in a figure, in points: at FIGURE_DPI, 13 pt is 18 px of the PNG - 14 px
on a 1280x720 slide even when the slide is shown at 0.78 of its size (scripts/check_slides.py
asks 14 px of every figure's text, as of the slide's own text)."""
FIGURE_STYLE = MappingProxyType({
    "figure.dpi": FIGURE_DPI, "savefig.dpi": FIGURE_DPI,
    "font.size": 14.0, "axes.titlesize": 15.0, "axes.labelsize": 14.0,
    "figure.titlesize": 16.0, "legend.fontsize": SMALLEST_POINTS,
    "legend.title_fontsize": SMALLEST_POINTS,
    "xtick.labelsize": SMALLEST_POINTS, "ytick.labelsize": SMALLEST_POINTS,
})
"""matplotlib settings (rcParams) a lessonlib figure is drawn with: type a back row reads
on a slide, no size under SMALLEST_POINTS."""


Plot = TypeVar("Plot", bound=Callable)


def slide_figure(plot: Plot) -> Plot:
    """Decorator for lessonlib's figure functions (every notebook with a figure): draw the
    figure in FIGURE_STYLE and lay it out tightly.

    The function returns a Figure or an Axes; its text (titles, labels, legends, notes
    drawn without their own size) takes the style's sizes, tick labels included (ticks
    are made lazily, so their size is set on each Axes too).
    """
    @functools.wraps(plot)
    def draw(*args, **kwargs):
        import matplotlib.pyplot as plt

        with plt.rc_context(dict(FIGURE_STYLE)):  # type: ignore[arg-type]  # str keys
            out = plot(*args, **kwargs)
            fig = getattr(out, "figure", out)
            for ax in fig.axes:
                ax.tick_params(labelsize=FIGURE_STYLE["xtick.labelsize"])
            fig.tight_layout()
        return out

    return draw  # type: ignore[return-value]  # functools.wraps keeps the signature


@slide_figure
def confusion_picture(records: Sequence[Record], decide: Callable[[Record], bool],
                      ax: Axes | None = None,
                      title: str = "Decisions against the human label") -> Axes:
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
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH * 0.75, 4.6))
    boxes = {(0, 0): ("tp", tp, True), (0, 1): ("fn", fn, False),
             (1, 0): ("fp", fp, False), (1, 1): ("tn", tn, True)}
    for (row, col), (name, count, right) in boxes.items():
        ax.add_patch(Rectangle((col, 1 - row), 1, 1, facecolor="#b7dfb9" if right else "#f6c28b",
                               edgecolor="white", linewidth=3))
        ax.text(col + 0.5, 1.5 - row, f"{name}\n{count}", ha="center", va="center", fontsize=16)

    def rate(part, whole):
        return f"{part}/{whole} = {part / whole:.4f}" if whole else f"{part}/0"

    ax.text(2.08, 1.5, "recall\n" + rate(tp, tp + fn), va="center")
    ax.text(2.08, 0.5, "false block rate\n" + rate(fp, fp + tn), va="center")
    ax.text(0.5, -0.12, "precision\n" + rate(tp, tp + fp), ha="center", va="top")
    ax.text(2.08, -0.12, f"agreement\n(tp + tn)/{len(records)} = {(tp + tn) / len(records):.4f}",
            va="top")
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


@slide_figure
def class_recall_bars(records: Sequence[Record], decisions: Mapping[str, Callable[[Record], bool]],
                      ax: Axes | None = None, title: str = "Recall per harmful class") -> Axes:
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
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.5))
    width = 0.8 / len(decisions)
    for k, (name, per_class) in enumerate(recalls.items()):
        xs = [i + (k - (len(decisions) - 1) / 2) * width for i in range(len(classes))]
        ax.bar(xs, [per_class[c][1] for c in classes], width, label=name)
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels([f"{c.replace('_', chr(10))}\n({first[c][0]} records)" for c in classes])
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


@slide_figure
def noise_bands(bands: Mapping[str, Mapping[str, tuple[float, float]]],
                observed: Mapping[str, float], ax: Axes | None = None,
                title: str = "Two sources of noise in one difference") -> Axes:
    """Notebook 07: per figure, the 95% band of a difference from each source of noise.

    ``bands`` maps a figure's title to ``{source: (low, high)}`` with sources
    from ``SOURCES`` (seed, records, both); ``observed`` maps the same titles to
    the difference measured on the lesson's run 1.  One row per figure, one bar
    per source, a dot at the observed difference and a line at zero: a band
    that crosses the line leaves the difference unmeasured.  Returns the Axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.4))
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
    ax.legend(loc="lower right")
    return ax


@slide_figure
def plot_class_sources(records: Sequence[Record], ax: Axes | None = None) -> Axes:
    """Notebook 01: one horizontal bar per class, split by source, its total at the end;
    the counts of :func:`class_source_counts`.  Returns the Axes."""
    import matplotlib.pyplot as plt

    from .records import SOURCES, class_source_counts

    counts = class_source_counts(records)
    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    names = list(counts)[::-1]                     # clean on top
    left = [0] * len(names)
    for k, src in enumerate(SOURCES):
        widths = [counts[cls][src] for cls in names]
        ax.barh(names, widths, left=left, color=f"C{k}", label=src.replace("_", " "))
        left = [a + b for a, b in zip(left, widths)]
    for y, total in enumerate(left):
        ax.text(total + 1.5, y, str(total), va="center")
    ax.set_xlim(0, max(left) * 1.12)
    ax.set_xlabel("records")
    ax.set_title("Records per class, by source")
    ax.legend(loc="lower right", title="source")
    return ax


@slide_figure
def plot_harmful_probability(records: Sequence[Record],
                             temperatures: Iterable[float] | None = None,
                             flags: Iterable[int] = (0, 1, 2, 3), ax: Axes | None = None) -> Axes:
    """Notebook 03: the lines of :func:`harmful_probability_curves`, one per number of
    flags, with the lesson's temperature marked.  Returns the Axes."""
    import matplotlib.pyplot as plt

    from .judge import harmful_probability_curves
    from .simulator import TEMPERATURE

    curves, temps = harmful_probability_curves(records, temperatures, flags)
    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    for k, (count, (no, probs)) in enumerate(curves.items()):
        ax.plot(temps, probs, color=f"C{k}",
                label=f"{count} flag{'' if count == 1 else 's'} (record {no})")
    ax.axvline(TEMPERATURE, color="0.4", linestyle=":", linewidth=1)
    ax.annotate(f"lesson's {TEMPERATURE:.2f}", (TEMPERATURE, 0.5), xytext=(4, 0),
                textcoords="offset points", color="0.3")
    ax.set_xlabel("temperature")
    ax.set_ylabel("P(zararli)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("How likely the judge says harmful, by number of flags")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), title="flags on")
    ax.grid(alpha=0.3)
    return ax
