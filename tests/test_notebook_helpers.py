"""Helpers added for the step notebooks: steps,
label_probabilities and the per-class recall figure.  Expectations worked by hand."""

import math

import pytest

import lessonlib as L
from lessonlib.metrics import steps
from lessonlib.records import Flags, Record
from lessonlib.simulator import label_probabilities


def rec(no, cls, on=(), source="user"):
    return Record(no, cls, source, Flags(f in on for f in L.FEATURES), L.TEXTS[0], 50)


SMALL = [
    rec(1, "clean"),
    rec(2, "clean", ("excessive_length",)),
    rec(3, "corrupted_input", ("excessive_length", "unusual_stamp_distribution")),
    rec(4, "corrupted_input", ("unusual_stamp_distribution",)),
    rec(5, "corrupted_input"),
]


@pytest.mark.parametrize(
    "difference, count, want",
    [
        (-0.0323, 93, -3),  # the lesson's recall move, 3 x 1/93 = 0.03226
        (0.0340, 147, 5),  # the lesson's FBR move, 5 x 1/147 = 0.03401
        (0.0068, 147, 1),  # the FBR gap between the approaches, 1/147 = 0.0068
        (0.0588, 17, 1),  # hidden_field_request, 1/17 = 0.0588
        (0.0, 10, 0),
        (1, 19, 19),
    ],
)
def test_steps_hand_worked(difference, count, want):
    assert steps(difference, count) == want


def test_label_probabilities_softmax_by_hand():
    # 'yok' is a clean cue: temiz 0.75 + 1.0 = 1.75, zararli 0.15
    p = label_probabilities("yok", temperature=1.0)
    assert list(p) == ["temiz", "zararli"]
    assert p["zararli"] == pytest.approx(1 / (1 + math.exp(1.6)))
    assert p["temiz"] + p["zararli"] == pytest.approx(1.0)
    # temperature 0.5 doubles the gap: 1 / (1 + e^3.2)
    assert label_probabilities("yok", 0.5)["zararli"] == pytest.approx(1 / (1 + math.exp(3.2)))


def test_label_probabilities_temperature_zero_and_spurious_cue():
    # 'asiriuzunluk' -> 'asiri' (spurious, 1.3): zararli 1.45 beats temiz 0.75
    assert label_probabilities("asiriuzunluk", 0) == {"temiz": 0.0, "zararli": 1.0}
    # without the spurious table there is no cue at all: the prior decides (clean)
    assert label_probabilities("asiriuzunluk", 0, spurious={}) == {"temiz": 1.0, "zararli": 0.0}


def test_label_probabilities_ignores_the_window_and_rejects_bad_temperature():
    long_prompt = "yok " * 500  # 500 tokens, twice the window
    assert label_probabilities(long_prompt, 0)["temiz"] == 1.0
    with pytest.raises(ValueError, match="temperature"):
        label_probabilities("yok", -0.1)


def test_class_recall_bars_draws_one_bar_per_class_and_decision():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessonlib.figures import class_recall_bars

    ax = class_recall_bars(
        SMALL, {"all": lambda r: True, "flagged": lambda r: bool(r.features.on())}
    )
    heights = [p.get_height() for p in ax.patches]
    # one harmful class present (corrupted_input): 'all' blocks 3/3, 'flagged' 2/3
    assert heights == pytest.approx([1.0, 2 / 3])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all", "flagged"]
    assert "(3 records)" in ax.get_xticklabels()[0].get_text()
    plt.close(ax.figure)
