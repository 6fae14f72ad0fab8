"""Notebooks 01, 02, 03 and 05 - their figures, and the one style every lessonlib figure is
drawn in (:func:`slide_figure`).  matplotlib is imported inside each function."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
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
"""Inches: 1,000 px at FIGURE_DPI, most of a 1280x720 slide's width."""
SMALLEST_POINTS = 13.0
"""The smallest type, in points: 18 px of the PNG, the 14 px check_slides asks at 0.78 size."""
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
"""matplotlib rcParams of every lessonlib figure: no type under SMALLEST_POINTS."""


HATCHES = ("", "//", "..", "xx")
"""Fill patterns of a bar chart's series, so a legend reads without telling colours apart."""

Plot = TypeVar("Plot", bound=Callable)


def slide_figure(plot: Plot) -> Plot:
    """Decorator for a figure function (returning a Figure or an Axes): draw it in
    FIGURE_STYLE, raise any text under SMALLEST_POINTS to it (a maths script counted at
    its own size), lay it out tightly and record its smallest type in its PNGs."""
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
"""The share of its text's size at which matplotlib draws a maths superscript or subscript."""


def _script_share(text: str) -> float:
    """The smallest type of ``text`` as a share of its size: SCRIPT_SHRINK for maths scripts."""
    maths = text.count("$") >= 2
    return SCRIPT_SHRINK if maths and ("^" in text or "_" in text) else 1.0


def smallest_points(fig: Figure) -> float:
    """The smallest type ``fig`` draws, in points (maths scripts at SCRIPT_SHRINK)."""
    import matplotlib.text

    fig.canvas.draw()
    sizes = [
        float(t.get_fontsize()) * _script_share(t.get_text())
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip()
    ]
    return min(sizes, default=SMALLEST_POINTS)


PNG_KEY = "lessonlib smallest points"
"""The PNG text chunk holding a figure's smallest type (read by scripts/check_slides.py)."""


def _record_smallest(fig: Figure) -> None:
    """Make every PNG of ``fig`` (inline image, savefig) record its smallest type (PNG_KEY)."""
    canvas = fig.canvas
    plain = type(canvas).print_png.__get__(canvas)  # type: ignore[attr-defined]
    record = {PNG_KEY: f"{smallest_points(fig):.2f}"}
    canvas.print_png = functools.partial(plain, metadata=record)  # type: ignore[attr-defined]


def _raise_small_text(fig: Figure) -> bool:
    """Raise every text of ``fig`` under SMALLEST_POINTS to it (tick labels through their
    axis, which remakes ticks at each draw); whether anything was raised."""
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
def confusion_picture(records: Sequence[Record], decide: Callable[[Record], bool]) -> Axes:
    """Notebook 02: the 2 x 2 confusion matrix of ``decide`` on ``records`` (rows the human
    label, columns the decision), with the rates read off it.  Returns the Axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    records, decide = _checked(records, decide)
    tp, fp, fn, tn = confusion(records, decide)
    _, ax = plt.subplots(figsize=(FIGURE_WIDTH * 0.75, 4.6))
    boxes = {
        (0, 0): ("tp", tp, True),
        (0, 1): ("fn", fn, False),
        (1, 0): ("fp", fp, False),
        (1, 1): ("tn", tn, True),
    }
    for (row, col), (name, count, right) in boxes.items():
        colour = "#b7dfb9" if right else "#f6c28b"  # right boxes green, wrong ones orange
        ax.add_patch(Rectangle((col, 1 - row), 1, 1, fc=colour, ec="white", lw=3))
        ax.text(col + 0.5, 1.5 - row, f"{name}\n{count}", ha="center", va="center", fontsize=16)

    def rate(part, whole):
        return f"{part}/{whole} = {part / whole:.4f}" if whole else f"{part}/0"

    ax.text(2.08, 1.5, "recall\n" + rate(tp, tp + fn), va="center")
    ax.text(2.08, 0.5, "false block rate\n" + rate(fp, fp + tn), va="center")
    ax.text(0.5, -0.12, "precision\n" + rate(tp, tp + fp), ha="center", va="top")
    agreement = f"agreement\n(tp + tn)/{len(records)} = {(tp + tn) / len(records):.4f}"
    ax.text(2.08, -0.12, agreement, va="top")
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
    ax.set_title("Decisions against the human label", pad=12)
    return ax


@slide_figure
def class_recall_bars(
    records: Sequence[Record], decisions: Mapping[str, Callable[[Record], bool]]
) -> Axes:
    """Notebook 05: grouped bars, per harmful class the recall of each of ``decisions`` (a
    mapping legend name -> decide function).  Returns the Axes."""
    import matplotlib.pyplot as plt

    if not isinstance(decisions, Mapping) or not decisions:
        raise TypeError(
            "decisions must be a non-empty mapping legend name -> decide function, got "
            f"{type(decisions).__name__}"
        )
    recalls = {name: class_recall(records, decide) for name, decide in decisions.items()}
    first = next(iter(recalls.values()))
    classes = [c for c in CLASSES[1:] if c in first]
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
    ax.set_title("Recall per harmful class")
    ax.legend(loc="upper center", ncol=len(decisions), frameon=False)
    return ax


@slide_figure
def plot_class_sources(records: Sequence[Record]) -> Axes:
    """Notebook 01: a bar per class, split by source, its total at the end; returns the Axes."""
    import matplotlib.pyplot as plt

    from .records import SOURCES, by_class, check_records

    groups = by_class(check_records(records))
    _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    names = list(groups)[::-1]  # clean on top
    left = [0] * len(names)
    for k, src in enumerate(SOURCES):
        widths = [sum(r.source == src for r in groups[cls]) for cls in names]
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
def plot_harmful_probability(records: Sequence[Record]) -> Axes:
    """Notebook 03: P('zararli') against temperature (0 to 3 by 0.05) for the first record
    with 0, 1, 2 and 3 flags, excessive_length off (so the spurious cue plays no part), the
    lesson's temperature marked.  Returns the Axes."""
    import matplotlib.pyplot as plt

    from .judge import HARMFUL, build_prompt
    from .records import check_records
    from .simulator import TEMPERATURE, label_probabilities

    records = check_records(records)
    temps = [round(0.05 * k, 2) for k in range(61)]
    curves = {}
    for count in range(4):
        plain = [r for r in records if len(r.features.on()) == count]
        plain = [r for r in plain if not r.features["excessive_length"]]
        if not plain:
            raise ValueError(f"records: none has exactly {count} flags with excessive_length off")
        prompt = build_prompt(plain[0])
        curves[count] = (plain[0].no, [label_probabilities(prompt, t)[HARMFUL] for t in temps])
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
