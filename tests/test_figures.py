"""lessonlib.figures: what the confusion-matrix picture writes, worked by hand."""

import matplotlib
import pytest

import lessonlib
from lessonlib.figures import confusion_picture
from lessonlib.records import FEATURES, Flags, Record

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def rec(no, cls, *flags):
    return Record(no, cls, "user", Flags(f in flags for f in FEATURES), "adres degisikligi", 60)


# Lesson rules block records 2, 3 and 5 -> tp 2 (3, 5), fp 1 (2), fn 1 (4), tn 1 (1).
SMALL = [
    rec(1, "clean"),
    rec(2, "clean", "instruction_mode"),
    rec(3, "indirect_instruction", "instruction_mode"),
    rec(4, "corrupted_input", "excessive_length"),
    rec(5, "source_spoofing", "source_stamp_mismatch"),
]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def test_the_picture_writes_the_counts_and_the_rates_worked_by_hand():
    ax = confusion_picture(SMALL, lessonlib.rule_filter)
    try:
        got = texts(ax)
        for box in ("tp\n2", "fn\n1", "fp\n1", "tn\n1"):
            assert box in got
        assert "recall\n2/3 = 0.6667" in got
        assert "false block rate\n1/2 = 0.5000" in got
        assert "precision\n2/3 = 0.6667" in got
        assert "agreement\n(tp + tn)/5 = 0.6000" in got
        ticks = [t.get_text() for t in ax.get_yticklabels()]
        assert ticks == ["harmful\n(3)", "clean\n(2)"]
    finally:
        plt.close("all")


def test_the_lessons_filter_gives_the_lessons_rates():
    # the lesson's criteria row: precision 0.7629, recall 0.7957, false block rate 0.1565,
    # agreement 0.8250 (tp 74, fp 23, fn 19, tn 124)
    ax = confusion_picture(lessonlib.make_records(), lessonlib.rule_filter)
    try:
        got = "\n".join(texts(ax))
        for part in ("74/93 = 0.7957", "23/147 = 0.1565", "74/97 = 0.7629", "= 0.8250"):
            assert part in got
    finally:
        plt.close("all")


def test_a_decision_that_never_blocks_has_no_precision_to_divide():
    ax = confusion_picture(SMALL, lambda r: False)
    try:
        assert "precision\n0/0" in texts(ax)
    finally:
        plt.close("all")


# ---- the figures of notebooks 01, 03 and 10 (issue 23), each read against numbers worked here


def test_class_sources_bars_are_the_counts_per_class_and_source():
    from collections import Counter

    from lessonlib.figures import plot_class_sources
    from lessonlib.records import CLASSES, SOURCES

    records = lessonlib.make_records()
    counts = Counter((r.cls, r.source) for r in records)
    ax = plot_class_sources(records)
    try:
        names = [t.get_text() for t in ax.get_yticklabels()]
        assert names == list(CLASSES)[::-1]  # clean on top
        bars = [p for p in ax.patches]
        assert len(bars) == len(CLASSES) * len(SOURCES)
        for k, src in enumerate(SOURCES):  # one container per source
            widths = [bar.get_width() for bar in ax.containers[k]]
            assert widths == [counts[cls, src] for cls in names]
        totals = sorted(int(t.get_text()) for t in ax.texts)
        assert totals == sorted(Counter(r.cls for r in records).values())
        assert 147 in totals and sum(totals) == 240  # the lesson's set
    finally:
        plt.close("all")


def test_harmful_probability_is_the_softmax_of_prior_and_cues_worked_by_hand():
    import math

    from lessonlib.figures import plot_harmful_probability

    # k real flags: zararli scores 0.15 + k, temiz 0.75 (plus 1.0 for 'yok' when k = 0);
    # P(zararli) = 1 / (1 + exp((temiz - zararli) / T)).
    def by_hand(k, t):
        temiz, zararli = 0.75 + (1.0 if k == 0 else 0.0), 0.15 + k
        return 1 / (1 + math.exp((temiz - zararli) / t))

    records = lessonlib.make_records()
    ax = plot_harmful_probability(records)
    try:
        lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 61]
        names = [t.get_text() for t in ax.texts if "flag" in t.get_text()]
        assert len(lines) == len(names) == 4
        for k, (line, name) in enumerate(zip(lines, names)):
            assert list(line.get_xdata()) == [round(0.05 * i, 2) for i in range(61)]
            record = records[int(name.split("record ")[1].rstrip(")")) - 1]
            assert len(record.features.on()) == k and not record.features["excessive_length"]
            for t, p in zip(line.get_xdata()[1:], line.get_ydata()[1:]):  # T = 0: the limit
                assert math.isclose(p, by_hand(k, t), rel_tol=1e-9)
        assert round(lines[1].get_ydata()[6], 4) == 0.7914  # notebook 03's record 20 at 0.30
        assert ax.get_xlabel() == "temperature" and ax.get_ylabel() == "P(zararli)"
    finally:
        plt.close("all")


# ---------------------------------------------------------------- one style for every figure


def _text_sizes(fig):
    """(points, text) of every visible, non-empty text the figure draws (ticks included)."""
    import matplotlib.text

    fig.canvas.draw()  # ticks are made lazily: draw, then read them
    return [
        (t.get_fontsize(), t.get_text())
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text().strip()
    ]


def _small_figures():
    """Every lessonlib figure function on small hand-made inputs: (name, Figure)."""
    import numpy as np

    from lessonlib import raters, variance
    from lessonlib.figures import class_recall_bars

    rows = [
        {"figure": "recall", "count": 93, "gap": 15, "two-run difference": -3},
        {"figure": "false_block_rate", "count": 147, "gap": 1, "two-run difference": 5},
    ]
    sweep = [
        {
            "temperature": t,
            "recall low": 0.8,
            "recall high": 0.9,
            "false_block_rate low": 0.1,
            "false_block_rate high": 0.2,
            "mean changes": 10 * t,
        }
        for t in (0.5, 1.0)
    ]
    scales = [
        {
            "guideline": g,
            "two-point kappa": 0.6,
            "graded nominal": 0.4,
            "graded ordinal": 0.8,
            "graded interval": 0.8,
        }
        for g in ("short", "detailed")
    ]
    pairs = [
        {"pair": "lenient - strict", "agreement": 0.8, "kappa": 0.6},
        {"pair": "always clean - human", "agreement": 0.6, "kappa": 0.0},
    ]
    return [
        ("confusion_picture", confusion_picture(SMALL, lessonlib.rule_filter).figure),
        (
            "class_recall_bars",
            class_recall_bars(
                SMALL, {"criteria": lessonlib.rule_filter, "never": lambda r: False}
            ).figure,
        ),
        ("plot_gap_steps", variance.plot_gap_steps(rows)),
        ("plot_changes", variance.plot_changes(np.array([3, 5, 5, 8]), mark=5)),
        ("plot_sweep", variance.plot_sweep(sweep, lessonlib.make_records())),
        ("plot_scales", raters.plot_scales(scales)),
        ("plot_pairs", raters.plot_pairs(pairs)),
    ]


@pytest.mark.slow  # draws every figure of the course: about 2.4 s of CPU
def test_every_figure_is_drawn_in_the_slide_style():
    """No text under SMALLEST_POINTS (the explicit sizes 8-10 pt of old are gone), drawn at
    FIGURE_DPI, at least FIGURE_WIDTH wide; and the style leaves matplotlib's own settings
    as they were (it is a context, not a global change)."""
    from lessonlib import figures as F

    before = dict(matplotlib.rcParams)
    try:
        for name, fig in _small_figures():
            sizes = _text_sizes(fig)
            assert sizes, name
            small = [(size, text) for size, text in sizes if size < F.SMALLEST_POINTS]
            assert small == [], name
            assert fig.dpi == F.FIGURE_DPI, name
            assert fig.get_figwidth() >= 0.75 * F.FIGURE_WIDTH, name
    finally:
        plt.close("all")
    assert dict(matplotlib.rcParams) == before


def test_a_figure_drawn_without_the_style_is_caught():
    # the test above must be able to fail: the same figure with matplotlib's defaults
    from lessonlib import figures as F

    fig = F.confusion_picture.__wrapped__(SMALL, lessonlib.rule_filter).figure
    try:
        assert min(size for size, _ in _text_sizes(fig)) < F.SMALLEST_POINTS
    finally:
        plt.close("all")


def test_the_new_figures_refuse_bad_arguments():
    import pytest

    from lessonlib.figures import plot_harmful_probability

    records = lessonlib.make_records()
    with pytest.raises(ValueError, match="records: none has exactly 0 flags"):
        plot_harmful_probability(records[:3])


def test_the_deck_check_reads_the_smallest_type_each_figure_records():
    """scripts/check_slides.py (which imports nothing from lessonlib) reads a figure's
    smallest type from its PNG: the text chunk slide_figure writes, under the same key, with
    the dpi matplotlib writes; the inline image of a notebook carries both."""
    import io
    import sys

    from IPython.core.pylabtools import print_figure
    from PIL import Image

    from conftest import ROOT
    from lessonlib import figures as F

    sys.path.insert(0, str(ROOT / "scripts"))
    import check_slides

    assert F.PNG_KEY == check_slides.PNG_KEY
    assert F.FIGURE_DPI == check_slides.FIGURE_DPI
    try:
        fig = confusion_picture(SMALL, lessonlib.rule_filter).figure
        png = Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))
        assert float(png.info[F.PNG_KEY]) == round(F.smallest_points(fig), 2)
        assert float(png.info[F.PNG_KEY]) >= F.SMALLEST_POINTS
        assert abs(png.info["dpi"][0] - F.FIGURE_DPI) < 0.01
        unstyled = F.confusion_picture.__wrapped__(SMALL, lessonlib.rule_filter).figure
        bare = Image.open(io.BytesIO(print_figure(unstyled, "png", bbox_inches="tight")))
        assert F.PNG_KEY not in bare.info  # drawn without slide_figure: nothing recorded
    finally:
        plt.close("all")


def test_slide_figure_raises_text_drawn_under_the_smallest_type():
    """A plot function that draws 8 pt notes and a log axis (whose exponents are drawn at
    0.7 of the tick size) comes out with nothing under SMALLEST_POINTS, scripts counted at
    their own size; without the decorator the same figure has both under it."""
    from lessonlib import figures as F

    def draw():
        fig, ax = plt.subplots(figsize=(F.FIGURE_WIDTH, 4))
        ax.plot([1, 10, 100, 1000], [1, 2, 3, 4])
        ax.set_xscale("log")
        ax.text(10, 2, "a small note", fontsize=8)
        return ax

    try:
        bare = draw().figure
        assert F.smallest_points(bare) < 8.5
        styled = F.slide_figure(draw)().figure
        assert F.smallest_points(styled) >= F.SMALLEST_POINTS - 1e-9
        ticks = [t for t in styled.axes[0].get_xticklabels() if t.get_text().strip()]
        assert ticks and all("^" in t.get_text() for t in ticks)  # 10^k, maths text
        assert min(t.get_fontsize() for t in ticks) >= F.SMALLEST_POINTS / F.SCRIPT_SHRINK - 1e-9
    finally:
        plt.close("all")


def test_every_function_that_draws_a_figure_is_drawn_in_the_slide_style():
    """Any lessonlib function that makes a figure (calls plt.subplots) goes through
    slide_figure, so a new step's plot cannot come out in matplotlib's small defaults."""
    import importlib
    import inspect
    import pkgutil

    from lessonlib import figures as F

    unstyled = []
    for info in pkgutil.walk_packages(lessonlib.__path__, "lessonlib."):
        module = importlib.import_module(info.name)
        for name, fn in vars(module).items():
            if not inspect.isfunction(fn) or fn.__module__ != module.__name__:
                continue
            inner = inspect.unwrap(fn)
            if "plt.subplots(" in inspect.getsource(inner) and fn is inner:
                unstyled.append(f"{info.name}.{name}")
    assert unstyled == [], f"draw these with @{F.slide_figure.__name__}: {unstyled}"
