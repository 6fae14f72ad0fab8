"""lessonlib.figures: what the confusion-matrix picture writes, worked by hand."""

import matplotlib

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


# ---- the figures of notebooks 01, 03 and 09 (issue 23), each read against numbers worked here

def test_class_sources_bars_are_the_counts_per_class_and_source():
    from collections import Counter

    from lessonlib.records import CLASSES, SOURCES, plot_class_sources

    records = lessonlib.make_records()
    counts = Counter((r.cls, r.source) for r in records)
    ax = plot_class_sources(records)
    try:
        names = [t.get_text() for t in ax.get_yticklabels()]
        assert names == list(CLASSES)[::-1]                      # clean on top
        bars = [p for p in ax.patches]
        assert len(bars) == len(CLASSES) * len(SOURCES)
        for k, src in enumerate(SOURCES):                      # one container per source
            widths = [bar.get_width() for bar in ax.containers[k]]
            assert widths == [counts[cls, src] for cls in names]
        totals = sorted(int(t.get_text()) for t in ax.texts)
        assert totals == sorted(Counter(r.cls for r in records).values())
        assert 147 in totals and sum(totals) == 240            # the lesson's set
    finally:
        plt.close("all")


def test_harmful_probability_is_the_softmax_of_prior_and_cues_worked_by_hand():
    import math

    from lessonlib.judge import harmful_probability_curves, plot_harmful_probability

    # k real flags: zararli scores 0.15 + k, temiz 0.75 (plus 1.0 for 'yok' when k = 0);
    # P(zararli) = 1 / (1 + exp((temiz - zararli) / T)).
    def by_hand(k, t):
        temiz, zararli = 0.75 + (1.0 if k == 0 else 0.0), 0.15 + k
        return 1 / (1 + math.exp((temiz - zararli) / t))

    records = lessonlib.make_records()
    curves, temps = harmful_probability_curves(records, [0.3, 1.0, 3.0])
    assert temps == [0.3, 1.0, 3.0] and set(curves) == {0, 1, 2, 3}
    for k, (no, probs) in curves.items():
        record = records[no - 1]
        assert len(record.features.on()) == k and not record.features["excessive_length"]
        for t, p in zip(temps, probs):
            assert math.isclose(p, by_hand(k, t), rel_tol=1e-9)
    assert round(curves[1][1][0], 4) == 0.7914          # notebook 03's record 20 at 0.30
    ax = plot_harmful_probability(records, [0.3, 1.0, 3.0])
    try:
        lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]
        assert [list(ln.get_ydata()) for ln in lines] == [curves[k][1] for k in curves]
        assert ax.get_xlabel() == "temperature" and ax.get_ylabel() == "P(zararli)"
    finally:
        plt.close("all")


def test_quorum_noise_rows_are_the_mean_calls_and_pair_changes_worked_seed_by_seed():
    from itertools import combinations

    from lessonlib.panel import plot_quorum_noise, quorum_noise

    records = lessonlib.make_records()
    seeds = range(lessonlib.SEED, lessonlib.SEED + 3)
    rows = quorum_noise(records, ("lesson",), (1, 3), seeds)
    assert [(r["judge"], r["quorum"]) for r in rows] == [("lesson", 1), ("lesson", 3)]
    for row in rows:
        panel = lessonlib.Panel(lessonlib.judge_models("lesson"), quorum=row["quorum"])
        runs = [panel.run(records, s) for s in seeds]
        assert row["calls"] == sum(r.calls for r in runs) / len(runs)
        pairs = [sum(a.decide(r) != b.decide(r) for r in records)
                 for a, b in combinations(runs, 2)]
        assert abs(row["changed"] - sum(pairs) / len(pairs)) < 1e-9
    ax = plot_quorum_noise(rows)
    try:
        (line,) = ax.get_lines()
        assert list(line.get_xdata()) == [r["calls"] for r in rows]
        assert list(line.get_ydata()) == [r["changed"] for r in rows]
        assert [t.get_text() for t in ax.texts] == ["quorum 1", "quorum 3"]
    finally:
        plt.close("all")


def test_the_new_figures_refuse_bad_arguments():
    import pytest

    from lessonlib.judge import harmful_probability_curves
    from lessonlib.panel import quorum_noise

    records = lessonlib.make_records()
    with pytest.raises(ValueError, match="flags"):
        harmful_probability_curves(records[:3], [0.3], flags=(5,))
    with pytest.raises(ValueError, match="names"):
        quorum_noise(records, ("nobody",), (1,), range(2))
    with pytest.raises(TypeError, match="quorums"):
        quorum_noise(records, ("lesson",), 3, range(2))
