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
SMALL = [rec(1, "clean"), rec(2, "clean", "instruction_mode"),
         rec(3, "indirect_instruction", "instruction_mode"),
         rec(4, "corrupted_input", "excessive_length"),
         rec(5, "source_spoofing", "source_stamp_mismatch")]


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


def test_an_axes_is_drawn_into():
    _, ax = plt.subplots()
    try:
        assert confusion_picture(SMALL, lessonlib.rule_filter, ax=ax, title="t") is ax
        assert ax.get_title() == "t"
    finally:
        plt.close("all")


@pytest.mark.parametrize("args, error", [(([], bool), ValueError), ((SMALL, 5), TypeError)])
def test_bad_input_is_refused_before_a_figure_opens(args, error):
    before = len(plt.get_fignums())
    with pytest.raises(error):
        confusion_picture(*args)
    assert len(plt.get_fignums()) == before
