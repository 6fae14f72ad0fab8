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
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .metrics import _checked, class_recall, confusion
from .records import CLASSES, Record

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "FIGURE_DPI",
    "FIGURE_STYLE",
    "FIGURE_WIDTH",
    "HATCHES",
    "PNG_KEY",
    "SCRIPT_SHRINK",
    "SMALLEST_POINTS",
    "class_recall_bars",
    "confusion_picture",
    "plot_class_sources",
    "plot_harmful_probability",
    "slide_figure",
    "smallest_points",
]

FIGURE_DPI = 100
"""Pixels per inch of every lessonlib figure (the notebook's PNG is drawn at this)."""
FIGURE_WIDTH = 10.0
"""Inches: a lessonlib figure is FIGURE_WIDTH * FIGURE_DPI = 1,000 px wide, most of a
1280x720 slide's width and of a JupyterLab notebook's."""
SMALLEST_POINTS = 13.0
"""The smallest type in a figure, in points: at FIGURE_DPI, 13 pt is 18 px of the PNG - 14 px
on a 1280x720 slide even when the slide is shown at 0.78 of its size (scripts/check_slides.py
asks 14 px of every figure's text, as of the slide's own text)."""
FIGURE_STYLE = MappingProxyType(
    {
        "figure.dpi": FIGURE_DPI,
        "savefig.dpi": FIGURE_DPI,
        "font.size": 14.0,
        "axes.titlesize": 15.0,
        "axes.labelsize": 14.0,
        "figure.titlesize": 16.0,
        "legend.fontsize": SMALLEST_POINTS,
        "legend.title_fontsize": SMALLEST_POINTS,
        "xtick.labelsize": SMALLEST_POINTS,
        "ytick.labelsize": SMALLEST_POINTS,
    }
)
"""matplotlib settings (rcParams) a lessonlib figure is drawn with: type a back row reads
on a slide, no size under SMALLEST_POINTS."""


HATCHES = ("", "//", "..", "xx")
"""Fill patterns of the series of a bar chart (notebooks 01 and 05), in order: with its
colour a pattern, so a legend reads without telling colours apart."""

Plot = TypeVar("Plot", bound=Callable)


def slide_figure(plot: Plot) -> Plot:
    """Decorator for lessonlib's figure functions (every notebook with a figure): draw the
    figure in FIGURE_STYLE and lay it out tightly.

    The function returns a Figure or an Axes; its text (titles, labels, legends, notes
    drawn without their own size) takes the style's sizes, tick labels included (ticks
    are made lazily, so their size is set on each Axes too).  Then the floor: no text of
    the figure is smaller than SMALLEST_POINTS, a superscript or subscript of maths text
    (a log axis's exponent) counted at its own, smaller size; what a plot function drew
    under it is raised to it.  So the deck check (scripts/check_slides.py) can take
    SMALLEST_POINTS as every course figure's smallest type.
    """
    if not callable(plot):
        raise TypeError(f"plot must be a function that draws a figure, got {type(plot).__name__}")

    @functools.wraps(plot)
    def draw(*args, **kwargs):
        import matplotlib.pyplot as plt

        with plt.rc_context(dict(FIGURE_STYLE)):  # type: ignore[arg-type]  # str keys
            out = plot(*args, **kwargs)
            fig = getattr(out, "figure", out)
            for ax in fig.axes:
                ax.tick_params(labelsize=FIGURE_STYLE["xtick.labelsize"])
            fig.tight_layout()
            if _raise_small_text(fig):
                fig.tight_layout()
            _record_smallest(fig)
        return out

    return draw  # type: ignore[return-value]  # functools.wraps keeps the signature


SCRIPT_SHRINK = 0.7
"""matplotlib's maths text draws a superscript or subscript at this share of its text's size
(a log axis's exponents): :func:`slide_figure` counts them at it (every notebook's figure)."""


def _script_share(text: str) -> float:
    """The size of the smallest type in ``text`` as a share of its font size: SCRIPT_SHRINK
    when it is maths text ($...$) with a superscript or subscript, else 1."""
    maths = text.count("$") >= 2
    return SCRIPT_SHRINK if maths and ("^" in text or "_" in text) else 1.0


def smallest_points(fig: Figure) -> float:
    """Notebooks with a figure (the deck check's measure): the smallest type a figure draws,
    in points: every visible, non-empty text (ticks included, so the figure is drawn
    first), a superscript or subscript of maths text at SCRIPT_SHRINK of its size."""
    import matplotlib.text

    fig.canvas.draw()
    sizes = [
        float(t.get_fontsize()) * _script_share(t.get_text())
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip()
    ]
    return min(sizes, default=SMALLEST_POINTS)


PNG_KEY = "lessonlib smallest points"
"""The key of the text chunk in which a figure's PNG records its smallest type in points
(:func:`slide_figure` writes it; scripts/check_slides.py reads it from every deck's
figures, for every notebook with a figure)."""


def _record_smallest(fig: Figure) -> None:
    """Make every PNG of ``fig`` (the notebook's inline image, a savefig) record its smallest
    type in the text chunk PNG_KEY, so the deck check reads it from the figure itself.
    The canvas's own print_png, with that metadata: matplotlib still filters what it is
    passed, and a caller's own metadata replaces it."""
    canvas = fig.canvas
    plain = type(canvas).print_png.__get__(canvas)  # type: ignore[attr-defined]
    record = {PNG_KEY: f"{smallest_points(fig):.2f}"}
    canvas.print_png = functools.partial(plain, metadata=record)  # type: ignore[attr-defined]


def _raise_small_text(fig: Figure) -> bool:
    """Raise every text of ``fig`` drawn under SMALLEST_POINTS (its scripts counted at their
    own size) to it; tick labels through their axis, which makes ticks again at each draw.
    Whether anything was raised."""
    import matplotlib.text

    fig.canvas.draw()  # ticks are made lazily
    raised = False
    ticks: set[int] = set()
    for ax in fig.axes:
        sides: tuple[tuple[Literal["x", "y"], Any], ...] = (("x", ax.xaxis), ("y", ax.yaxis))
        for name, axis in sides:
            labels = [t for t in axis.get_ticklabels(which="both") if t.get_text().strip()]
            ticks.update(id(t) for t in labels)
            need = max(
                (SMALLEST_POINTS / _script_share(t.get_text()) for t in labels),
                default=0.0,
            )
            if labels and min(float(t.get_fontsize()) for t in labels) < need - 1e-9:
                ax.tick_params(axis=name, which="both", labelsize=need)
                raised = True
    for t in fig.findobj(matplotlib.text.Text):
        if id(t) in ticks or not (t.get_visible() and t.get_text().strip()):
            continue
        need = SMALLEST_POINTS / _script_share(t.get_text())
        if float(t.get_fontsize()) < need - 1e-9:
            t.set_fontsize(need)
            raised = True
    return raised


@slide_figure
def confusion_picture(
    records: Sequence[Record],
    decide: Callable[[Record], bool],
    ax: Axes | None = None,
    title: str = "Decisions against the human label",
) -> Axes:
    """Notebook 02: the 2 x 2 confusion matrix of ``decide`` with the rates read off it.

    Rows are the human label (harmful, clean), columns the decision (blocked,
    let through).  Each box shows its name (tp, fn, fp, tn) and count; the
    right-hand side writes recall (harmful row) and false block rate (clean
    row), the bottom writes precision (blocked column) and agreement.  Correct boxes are
    green, wrong ones orange.  Returns the Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    records, decide = _checked(records, decide)
    tp, fp, fn, tn = confusion(records, decide)
    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH * 0.75, 4.6))
    boxes = {
        (0, 0): ("tp", tp, True),
        (0, 1): ("fn", fn, False),
        (1, 0): ("fp", fp, False),
        (1, 1): ("tn", tn, True),
    }
    for (row, col), (name, count, right) in boxes.items():
        ax.add_patch(
            Rectangle(
                (col, 1 - row),
                1,
                1,
                facecolor="#b7dfb9" if right else "#f6c28b",
                edgecolor="white",
                linewidth=3,
            )
        )
        ax.text(col + 0.5, 1.5 - row, f"{name}\n{count}", ha="center", va="center", fontsize=16)

    def rate(part, whole):
        return f"{part}/{whole} = {part / whole:.4f}" if whole else f"{part}/0"

    ax.text(2.08, 1.5, "recall\n" + rate(tp, tp + fn), va="center")
    ax.text(2.08, 0.5, "false block rate\n" + rate(fp, fp + tn), va="center")
    ax.text(0.5, -0.12, "precision\n" + rate(tp, tp + fp), ha="center", va="top")
    ax.text(
        2.08,
        -0.12,
        f"agreement\n(tp + tn)/{len(records)} = {(tp + tn) / len(records):.4f}",
        va="top",
    )
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
def class_recall_bars(
    records: Sequence[Record],
    decisions: Mapping[str, Callable[[Record], bool]],
    ax: Axes | None = None,
    title: str = "Recall per harmful class",
) -> Axes:
    """Notebook 05: grouped bars, per harmful class the recall of each of ``decisions``.

    ``decisions`` maps a legend name to a decide function (record -> bool),
    e.g. ``{"criteria": rule_filter, "judge, run 1": run.decide}``.  Each
    class's record count is written under its name.  Returns the Axes.
    """
    import matplotlib.pyplot as plt

    if not isinstance(decisions, Mapping) or not decisions:
        raise TypeError(
            "decisions must be a non-empty mapping legend name -> decide function, got "
            f"{type(decisions).__name__}"
        )
    recalls = {name: class_recall(records, decide) for name, decide in decisions.items()}
    first = next(iter(recalls.values()))
    classes = [c for c in CLASSES[1:] if c in first]
    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.5))
    width = 0.8 / len(decisions)
    for k, (name, per_class) in enumerate(recalls.items()):
        xs = [i + (k - (len(decisions) - 1) / 2) * width for i in range(len(classes))]
        # a pattern as well as a colour: the legend reads without telling colours apart
        ax.bar(
            xs,
            [per_class[c][1] for c in classes],
            width,
            label=name,
            hatch=HATCHES[k % len(HATCHES)],
            edgecolor="white",
        )
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels([f"{c.replace('_', chr(10))}\n({first[c][0]} records)" for c in classes])
    ax.set_ylim(0, 1.2)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("recall (share of the class blocked)")
    ax.set_xlabel("harmful class")
    ax.set_title(title)
    ax.legend(loc="upper center", ncol=len(decisions), frameon=False)
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
    names = list(counts)[::-1]  # clean on top
    left = [0] * len(names)
    for k, src in enumerate(SOURCES):
        widths = [counts[cls][src] for cls in names]
        ax.barh(
            names,
            widths,
            left=left,
            color=f"C{k}",
            label=src.replace("_", " "),
            hatch=HATCHES[k % len(HATCHES)],
            edgecolor="white",
        )
        left = [a + b for a, b in zip(left, widths)]
    for y, total in enumerate(left):
        ax.text(total + 1.5, y, str(total), va="center")
    ax.set_xlim(0, max(left) * 1.12)
    ax.set_xlabel("records")
    ax.set_title("Records per class, by source")
    ax.legend(loc="lower right", title="source")
    return ax


@slide_figure
def plot_harmful_probability(
    records: Sequence[Record],
    temperatures: Iterable[float] | None = None,
    flags: Iterable[int] = (0, 1, 2, 3),
    ax: Axes | None = None,
) -> Axes:
    """Notebook 03: the lines of :func:`harmful_probability_curves`, one per number of
    flags, with the lesson's temperature marked.  Returns the Axes."""
    import matplotlib.pyplot as plt

    from .judge import harmful_probability_curves
    from .simulator import TEMPERATURE

    curves, temps = harmful_probability_curves(records, temperatures, flags)
    if ax is None:
        _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    styles = ("-", "--", "-.", ":")
    for k, (count, (no, probs)) in enumerate(curves.items()):
        ax.plot(temps, probs, color=f"C{k}", linestyle=styles[k % 4], linewidth=2)
        # each line named at its right end, in its colour: no legend to match colours against
        ax.annotate(
            f"{count} flag{'' if count == 1 else 's'} (record {no})",
            (temps[-1], probs[-1]),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            color=f"C{k}",
        )
    ax.axvline(TEMPERATURE, color="0.4", linestyle=":", linewidth=1)
    ax.annotate(
        f"lesson's {TEMPERATURE:.2f}",
        (TEMPERATURE, 0.5),
        xytext=(4, 0),
        textcoords="offset points",
        color="0.3",
    )
    ax.set_xticks([t for t in ax.get_xticks() if temps[0] <= t <= temps[-1]])
    ax.set_xlim(temps[0] - 0.03 * (temps[-1] - temps[0]), temps[-1] * 1.3)  # room for the names
    ax.set_xlabel("temperature")
    ax.set_ylabel("P(zararli)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("How likely the judge says harmful, by number of flags")
    ax.grid(alpha=0.3)
    return ax
