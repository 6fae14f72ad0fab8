"""lessonlib.probing (notebook 12): counterfactual twins asked of the same judge.

Expectations are derived by hand from the definitions: ``before`` and ``after`` are two
``run_judge`` runs (records, then twins built here with dataclasses.replace), ``changed`` the
record numbers whose labels differ, and ``shift`` the mean P(zararli) of the twins minus the
records', worked out below from the lesson's scoring rule (EM14: prior 0.75 / 0.15; each flag
word's cue weighs 1.0 for zararli, the length word 1.3, the word for "no flag" 1.0 for temiz;
softmax of score / temperature; at temperature 0 the larger score has probability 1).
Bad input meets a clear error naming ``change`` (or the parameter at fault).
"""

from __future__ import annotations

import math
import sys
from dataclasses import FrozenInstanceError, replace

import pytest

import lessonlib as L
from lesson_defs import record
from lessonlib import probe as probe_fn
from lessonlib.exercises import step12
from lessonlib.probing import twin

RECORDS = L.make_records()
SMALL = RECORDS[:40]
LONG = "excessive_length"


def toggled(r):
    flags = dict(r.features)
    flags[LONG] = not flags[LONG]
    return replace(r, features=L.Flags(flags))


def p_harmful(r, temperature=L.simulator.TEMPERATURE, spurious_weight=1.3):
    """P(zararli) for record r, from the lesson's scoring rule written out by hand."""
    real = sum(1 for f in L.FEATURES if f != LONG and r.features[f])
    long = r.features[LONG]
    clean = 0.75 + (1.0 if not (real or long) else 0.0)
    harmful = 0.15 + real + (spurious_weight if long else 0.0)
    if temperature == 0:
        return float(harmful > clean)
    return 1 / (1 + math.exp((clean - harmful) / temperature))


# ---------------------------------------------------------------- the definitions


@pytest.mark.parametrize(
    "settings",
    [{}, {"temperature": 0.0}, {"temperature": 0.7}, {"spurious": {}}],
    ids=["lesson", "t0", "t0.7", "no-cue"],
)
def test_length_probe_is_two_judge_runs_on_records_and_hand_made_twins(settings):
    got = probe_fn(SMALL, "length", seed=L.SEED + 5, **settings)
    before = L.run_judge(SMALL, L.SEED + 5, **settings).labels
    after = L.run_judge([toggled(r) for r in SMALL], L.SEED + 5, **settings).labels
    assert got.before == before and got.after == after
    assert got.changed == tuple(r.no for r in SMALL if before[r.no] != after[r.no])
    t = settings.get("temperature", 0.3)
    w = 0.0 if settings.get("spurious") == {} else 1.3
    shift = sum(p_harmful(toggled(r), t, w) - p_harmful(r, t, w) for r in SMALL) / len(SMALL)
    assert got.shift == pytest.approx(shift, abs=1e-12)


def test_lesson_probe_before_is_the_lesson_run_exactly():
    got = probe_fn(RECORDS, "length")
    assert got.before == L.run_judge(RECORDS).labels
    assert got.after == L.run_judge([toggled(r) for r in RECORDS]).labels


def test_length_probe_at_temperature_0_without_the_cue_changes_nothing():
    got = probe_fn(RECORDS, "length", temperature=0, spurious={})
    assert got.changed == () and got.shift == 0.0
    assert got.before == got.after


def test_length_probe_at_temperature_0_moves_exactly_the_argmax_flips():
    # with the cue the label is the larger score: a record moves when its twin's larger
    # score is on the other side
    got = probe_fn(RECORDS, "length", temperature=0)
    flips = tuple(r.no for r in RECORDS if p_harmful(r, 0) != p_harmful(toggled(r), 0))
    assert got.changed == flips and len(flips) > 100


@pytest.mark.parametrize("change", ["text", "source"])
def test_text_and_source_move_nothing_at_temperature_0(change):
    # neither the text nor the source word holds a cue token, and at temperature 0 the label
    # is the argmax whatever the dice (a rate-limit retry with seed + 1 too)
    got = probe_fn(RECORDS, change, temperature=0)
    assert got.changed == () and got.shift == 0.0


@pytest.mark.parametrize("change", ["text", "source"])
def test_text_and_source_twins_differ_in_that_field_only(change):
    for r in RECORDS[:12]:
        t = twin(r, change)
        assert getattr(t, change) != getattr(r, change)
        assert replace(t, **{change: getattr(r, change)}) == r


def test_text_twin_takes_another_record_text_and_a_foreign_text_becomes_the_first():
    texts = L.TEXTS
    for i, text in enumerate(texts):
        r = record(no=1, text=text)
        assert twin(r, "text").text == texts[(i + 1) % len(texts)]
    assert twin(record(no=1, text="baska bir soru"), "text").text == texts[0]


def test_source_twin_cycles_through_the_sources():
    got = [twin(record(no=1, source=s), "source").source for s in L.SOURCES]
    assert got == list(L.SOURCES[1:]) + [L.SOURCES[0]]


def test_a_callable_change_gives_what_the_named_change_gives():
    by_name = probe_fn(SMALL, "length", temperature=0.5)
    by_fn = probe_fn(SMALL, toggled, temperature=0.5)
    assert (by_fn.before, by_fn.after, by_fn.changed, by_fn.shift) == (
        by_name.before,
        by_name.after,
        by_name.changed,
        by_name.shift,
    )
    assert by_fn.change == "toggled"


def test_identity_change_moves_nothing_at_any_temperature():
    got = probe_fn(RECORDS, lambda r: r)
    assert got.changed == () and got.shift == 0.0


def test_the_result_is_frozen():
    got = probe_fn(SMALL, "length")
    with pytest.raises(FrozenInstanceError):
        got.shift = 0.0
    with pytest.raises(TypeError):
        got.before[1] = "temiz"


# ---------------------------------------------------------------- the yardsticks


# ---------------------------------------------------------------- bad input


def _returns(value):
    return lambda r: value


@pytest.mark.parametrize(
    "call, error, param, allowed",
    [
        (lambda: probe_fn(SMALL, "verbosity"), ValueError, "change", "'length'"),
        (lambda: probe_fn(SMALL, "Length"), ValueError, "change", "'text'"),
        (lambda: probe_fn(SMALL, 5), TypeError, "change", "length"),
        (lambda: probe_fn(SMALL, None), TypeError, "change", "Record -> Record"),
        (lambda: probe_fn(SMALL, _returns("a twin")), TypeError, "change", "Record"),
        (lambda: probe_fn(SMALL, _returns(None)), TypeError, "change", "Record"),
        (
            lambda: probe_fn(SMALL, lambda r: replace(r, no=r.no + 1)),
            ValueError,
            "change",
            "record number",
        ),
        (lambda: probe_fn([], "length"), ValueError, "records", ""),
        (lambda: probe_fn(SMALL[0], "length"), TypeError, "records", ""),
        (lambda: probe_fn(["x"], "length"), TypeError, "records", ""),
        (lambda: probe_fn(SMALL, "length", seed=-1), ValueError, "seed", ""),
        (lambda: probe_fn(SMALL, "length", seed="1"), TypeError, "seed", ""),
        (lambda: probe_fn(SMALL, "length", temperature=-0.1), ValueError, "temperature", ""),
        (
            lambda: probe_fn(SMALL, "length", temprature=0),
            TypeError,
            "temprature",
            "temperature",
        ),
        (lambda: probe_fn(SMALL, "length", spurious=["asiri"]), TypeError, "spurious", ""),
    ],
    ids=[
        "unknown-name",
        "wrong-case",
        "int",
        "none",
        "returns-str",
        "returns-none",
        "renumbers",
        "empty",
        "one-record",
        "not-records",
        "negative-seed",
        "str-seed",
        "negative-temperature",
        "unknown-setting",
        "bad-spurious",
    ],
)
def test_bad_input_meets_a_clear_error(call, error, param, allowed):
    with pytest.raises(error) as caught:
        call()
    assert param in str(caught.value) and allowed in str(caught.value)


def test_a_change_that_fails_is_found_before_the_judge_is_asked(monkeypatch):
    asked = []
    module = sys.modules["lessonlib.probing"]
    monkeypatch.setattr(module, "run_judge", lambda *a, **k: asked.append(1))
    with pytest.raises(ValueError):
        probe_fn(SMALL, lambda r: replace(r, no=0) if r.no == 40 else r)
    assert asked == []


# ---------------------------------------------------------------- the exercise checks


def said(capsys):
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    return " ".join(out.split())


def test_text_against_seed_is_the_seed_by_seed_count():
    seeds = range(L.SEED, L.SEED + 2)
    got = step12._text_against_seed(seeds)
    twins = [twin(r, "text") for r in RECORDS]
    text, new = [], []
    for s in seeds:
        a = L.run_judge(RECORDS, s).labels
        b = L.run_judge(twins, s).labels
        c = L.run_judge(RECORDS, s + 1).labels
        text.append(sum(a[n] != b[n] for n in a))
        new.append(sum(a[n] != c[n] for n in a))
    assert got == {"text": sum(text) / 2, "new seed": sum(new) / 2}
    assert new[0] == 16  # the lesson's two runs


def test_check_text_against_seed(capsys):
    truth = step12._ANSWERS["check_text_against_seed"]()
    assert step12.check_text_against_seed(truth) is True
    assert said(capsys).startswith("PASS: over 200 seeds")
    for wrong in (
        None,
        ...,
        {"text": truth["text"]},
        {**truth, "text": truth["text"] + 0.1},
        {**truth, "new seed": str(truth["new seed"])},
        [1, 2],
    ):
        assert step12.check_text_against_seed(wrong) is False
        out = said(capsys)
        assert out.startswith("Not yet: ")
        assert ("fill in" in out) == (wrong is ...), out  # ... is the one placeholder
        assert f"{truth['text']:.2f}" not in out and f"{truth['new seed']:.2f}" not in out


def test_check_long_twin(capsys):
    right = lambda r: replace(r, features=L.Flags({**r.features, LONG: True}))  # noqa: E731
    assert step12.check_long_twin(right) is True
    expected = probe_fn(RECORDS, right, temperature=0)
    out = said(capsys)
    assert out.startswith("PASS: ") and f"moves {len(expected.changed)} decisions" in out
    for wrong in (
        None,
        ...,
        3,
        toggled,
        lambda r: r,
        lambda r: "x",
        lambda r: replace(right(r), source="user"),
        lambda r: 1 / 0,
    ):
        assert step12.check_long_twin(wrong) is False
        out = said(capsys)
        assert out.startswith("Not yet: ")
        assert ("fill in" in out) == (wrong is ...), out


@pytest.mark.parametrize(
    "call, error, param",
    [
        (lambda: twin(RECORDS[0], "verbosity"), ValueError, "change"),
        (lambda: twin("record", "length"), TypeError, "record"),
    ],
    ids=[
        "twin-name",
        "twin-record",
    ],
)
def test_the_notebook_helpers_check_their_arguments(call, error, param):
    with pytest.raises(error) as caught:
        call()
    assert param in str(caught.value)


@pytest.mark.parametrize("temperature", [0.0, 0.3, 1.5])
def test_the_probes_score_is_the_scoring_rule(temperature):
    # the shift averages judge_probabilities: the lesson's rule written out by hand
    got = L.judge_probabilities(SMALL, temperature=temperature)
    assert list(got) == [r.no for r in SMALL]
    for r in SMALL:
        assert got[r.no] == pytest.approx(p_harmful(r, temperature), abs=1e-12)
    with pytest.raises(TypeError, match="unknown judge setting"):
        L.judge_probabilities(SMALL, seed=1)


def test_the_probe_takes_the_judge_prior_in_its_runs_and_its_shift():
    even = {"temiz": 0.45, "zararli": 0.45}
    got = probe_fn(SMALL, "length", prior=even)
    assert got.before == L.run_judge(SMALL, prior=even).labels
    twins = [twin(r, "length") for r in SMALL]
    p0 = L.judge_probabilities(SMALL, prior=even)
    p1 = L.judge_probabilities(twins, prior=even)
    expected = sum(p1.values()) / len(p1) - sum(p0.values()) / len(p0)
    assert abs(got.shift - expected) < 1e-12
    assert abs(got.shift - probe_fn(SMALL, "length").shift) > 1e-6  # the prior is used
