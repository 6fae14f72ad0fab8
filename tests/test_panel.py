"""The panel of judges (lessonlib.panel): every rule, checked on small hand-worked cases.

The judges here are fake asks: deterministic callables that answer from a
script (record number, seed) -> reply and log every call.  Expectations are
worked out by hand from the rules in the Panel docstring (notebook 10).
"""

import math
import re
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lessonlib as L
from lessonlib.panel import (
    DIVERSE,
    JUDGE_NAMES,
    JUDGES,
    MAX_SAMPLES,
    SLOT_STRIDE,
    AskReply,
    JudgeError,
    Panel,
    judge_models,
)

STRIDE = 2**32  # the documented slot stride, written out by hand
H, C = "zararli", "temiz"
NOISE = "degerlendirme tamamlandi"  # a reply with no label in it


def record_no(prompt):
    return int(re.search(r"kayit (\d+) :", prompt).group(1))


class FakeAsk:
    """Answers ``script(no, seed)`` (text, or an object); logs (no, seed); counts; resettable."""

    def __init__(self, script, tokens=None):
        self.script = script
        self.tokens = tokens
        self.log = []
        self.resets = 0
        self.calls = 0

    def __call__(self, prompt, seed):
        self.calls += 1
        no = record_no(prompt)
        self.log.append((no, seed))
        text = self.script(no, seed)
        return text if self.tokens is None else AskReply(text, self.tokens)

    def reset(self):
        self.resets += 1
        self.calls = 0


def always(text):
    return FakeAsk(lambda no, seed: text)


def by_seed(table, default=C):
    """Reply by the slot number k = seed // STRIDE of a run with seed 0 (retry seeds too)."""
    return FakeAsk(lambda no, seed: table.get(seed // STRIDE, default))


@pytest.fixture(scope="module")
def records():
    return L.make_records(4)


@pytest.fixture(scope="module")
def lesson_records():
    return L.make_records()


def one(records):
    return records[:1]


# --- bad input at the doors: the parameter is named, nothing is asked -----------

SIM = L.SimulatedModel()


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"asks": []}, ValueError, "asks"),
        ({"asks": None}, TypeError, "asks"),
        ({"asks": "abc"}, TypeError, "asks"),
        ({"asks": 3}, TypeError, "asks"),
        ({"asks": SIM}, TypeError, "asks"),  # one ask, not a list of them
        ({"asks": [SIM, "not a judge"]}, TypeError, r"asks\[1\]"),
        ({"quorum": 2.0}, TypeError, "quorum"),
        ({"quorum": "3"}, TypeError, "quorum"),
        ({"quorum": None}, TypeError, "quorum"),
        ({"quorum": True}, TypeError, "quorum"),
        ({"quorum": 10**9}, ValueError, "quorum must be at most 1000"),
        ({"asks": [SIM] * 3, "quorum": 334}, ValueError, "quorum must be at most 333"),
        ({"aggregate": "max"}, ValueError, "aggregate must be one of 'median', 'mean', 'min'"),
        ({"aggregate": None}, ValueError, "aggregate"),
        ({"min_agreement": "0.5"}, TypeError, "min_agreement"),
        ({"min_agreement": True}, TypeError, "min_agreement"),
        ({"min_agreement": math.nan}, ValueError, "min_agreement"),
        (
            {"on_unreadable": "ignore"},
            ValueError,
            "on_unreadable must be one of 'harmful', 'clean', 'abstain'",
        ),
        ({"on_unreadable": 0}, ValueError, "on_unreadable"),
        ({"on_error": "skip"}, ValueError, "on_error must be one of 'raise', 'unreadable'"),
        ({"timeout": 0}, ValueError, "timeout"),
        ({"timeout": -1.0}, ValueError, "timeout"),
        ({"timeout": math.nan}, ValueError, "timeout"),
        ({"timeout": math.inf}, ValueError, "timeout"),
        ({"timeout": "1"}, TypeError, "timeout"),
        ({"timeout": True}, TypeError, "timeout"),
    ],
)
def test_bad_panel_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        Panel(**{"asks": [SIM], **kwargs})


def test_the_quorum_bound_is_the_documented_one():
    assert MAX_SAMPLES == 1000 < 2**16  # below 2**16 every sample seed is distinct
    assert Panel([SIM], quorum=MAX_SAMPLES).quorum == MAX_SAMPLES
    assert Panel([SIM] * 4, quorum=250).quorum == 250
    with pytest.raises(ValueError, match="quorum"):
        Panel([SIM] * 4, quorum=251)


@pytest.mark.parametrize("value", [0, 0.0, 0.34, 1, 1.0])
def test_min_agreement_takes_every_share(value):
    assert Panel([SIM], min_agreement=value).min_agreement == float(value)


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"records": []}, ValueError, "records"),
        ({"records": ["not a record"]}, TypeError, "records"),
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 1.5}, TypeError, "seed"),
        ({"guideline": None}, TypeError, "guideline"),
    ],
)
def test_bad_run_arguments_ask_nothing(records, kwargs, error, name):
    ask = always(H)
    with pytest.raises(error, match=name):
        Panel([ask]).run(**{"records": records, **kwargs})
    assert ask.log == [] and ask.resets == 0


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"records": []}, ValueError, "records"),
        ({"seeds": []}, ValueError, "seeds"),
        ({"seeds": [-1]}, ValueError, "seeds"),
        ({"seeds": 5}, TypeError, "seeds"),
        ({"seeds": [1.5]}, TypeError, "seeds"),
        ({"guideline": None}, TypeError, "guideline"),
    ],
)
def test_bad_run_many_arguments(records, kwargs, error, name):
    with pytest.raises(error, match=name):
        Panel([SIM]).run_many(**{"records": records, "seeds": [1], **kwargs})


def test_run_many_needs_simulated_models(records):
    ask = always(H)
    with pytest.raises(TypeError, match=r"asks\[1\] is FakeAsk"):
        Panel([SIM, ask]).run_many(records, [0])
    assert ask.log == []


def test_an_ask_returning_the_wrong_type_is_a_type_error(records):
    with pytest.raises(TypeError, match="ask"):
        Panel([lambda prompt, seed: 42]).run(records)


@pytest.mark.parametrize(
    "tokens, error",
    [
        ("abc", TypeError),
        (math.nan, TypeError),
        (-3, ValueError),
        (2.0, TypeError),
        (True, TypeError),
    ],
)
def test_an_ask_reply_with_bad_input_tokens_is_named(records, tokens, error):
    where = r"\(from judge 0 \(<lambda>\) on record 1\)"
    with pytest.raises(error, match="input_tokens .* " + where):
        Panel([lambda prompt, seed: AskReply(H, tokens)]).run(records)


def test_numpy_whole_numbers_are_fine_as_input_tokens(records):
    run = Panel([lambda prompt, seed: AskReply(H, np.int64(7))]).run(records)
    assert run.input_tokens == 7 * len(records)


# --- a judge that raises or does not answer ----------------------------------------


class Flaky(FakeAsk):
    """Raises on the records in ``bad`` (every call), answers ``H`` otherwise."""

    name = "flaky"

    def __init__(self, bad):
        super().__init__(lambda no, seed: H)
        self.bad = bad

    def __call__(self, prompt, seed):
        if record_no(prompt) in self.bad:
            self.log.append((record_no(prompt), seed))
            raise ConnectionError("the server went away")
        return super().__call__(prompt, seed)


def test_a_judge_that_raises_is_named_with_the_record(records):
    with pytest.raises(
        JudgeError,
        match=r"judge 1 \(flaky\) on record 3: ConnectionError: "
        r"the server went away",
    ) as info:
        Panel([always(C), Flaky({3})]).run(records)
    assert (info.value.judge, info.value.record) == (1, 3)
    assert isinstance(info.value.__cause__, ConnectionError)


@pytest.mark.parametrize("rule, label", [("harmful", H), ("clean", C), ("abstain", H)])
def test_a_raising_call_can_count_as_unreadable(records, rule, label):
    ask = Flaky({3})
    run = Panel([ask], on_error="unreadable", on_unreadable=rule).run(records)
    assert ask.log.count((3, L.SEED)) == 1 and ask.log.count((3, L.SEED + 1)) == 1
    assert (run.calls, run.retries, run.unreadable) == (5, 1, 1)  # retried once, then lost
    assert run.labels[3] == label and run.labels[1] == H
    assert run.input_tokens == sum(
        len(L.tokenize(L.build_prompt(r))) for r in records if r.no != 3
    )  # a failed call costs nothing


def test_a_raising_judge_beside_good_ones_follows_the_unreadable_rule(records):
    panel = Panel(
        [always(C), Flaky({1, 2, 3, 4}), always(C)],
        on_error="unreadable",
        on_unreadable="abstain",
        aggregate="mean",
    )
    run = panel.run(records)
    assert set(run.judge_scores.values()) == {(0.0, None, 0.0)}
    assert set(run.labels.values()) == {C} and run.judge_unreadable == (0, 4, 0)


def test_a_judge_that_does_not_answer_in_time(records):
    release = threading.Event()

    def stuck(prompt, seed):
        if record_no(prompt) == 2:
            release.wait(10)
            return C
        return H

    stuck.name = "stuck"
    try:
        with pytest.raises(JudgeError, match=r"judge 0 \(stuck\) on record 2: TimeoutError"):
            Panel([stuck], timeout=0.5).run(records)
        run = Panel([stuck], timeout=0.5, on_error="unreadable", on_unreadable="clean").run(
            records
        )
        assert (run.calls, run.unreadable, run.labels[2], run.labels[3]) == (5, 1, C, H)
    finally:
        release.set()  # lets the abandoned threads end


def test_a_timeout_passes_the_answer_and_the_error_through(records):
    def fails(prompt, seed):
        raise KeyError("nope")

    assert Panel([always(H)], timeout=5).run(records).labels == {r.no: H for r in records}
    with pytest.raises(JudgeError, match="KeyError"):
        Panel([fails], timeout=5).run(records)


# --- a run belongs to its records ------------------------------------------------


def test_a_run_refuses_records_it_did_not_judge(records):
    run = Panel([always(H)]).run(records)
    other = L.make_records(4, seed=L.SEED + 1)  # the same numbers, other records
    assert [r.no for r in other] == [r.no for r in records] and other != records
    with pytest.raises(ValueError, match="record 1 .* not one this panel run judged"):
        run.decide(other[0])
    with pytest.raises(ValueError, match="panel run"):
        L.measure(other, run.decide)
    with pytest.raises(ValueError, match="record 9"):
        run.decide(L.make_records(9)[8])
    assert L.measure(records[:2], run.decide)["tp"] >= 0  # a part of its records is fine


# --- seeds ------------------------------------------------------------------


def test_seeds_are_the_documented_slots():
    assert SLOT_STRIDE == STRIDE
    # two judges, quorum 2, run seed 7: slot k = q * 2 + j uses 7 + k * 2**32
    assert Panel([always(C), always(C)], quorum=2).seeds(7) == [
        [7, 7 + 2 * STRIDE],
        [7 + STRIDE, 7 + 3 * STRIDE],
    ]
    assert Panel([always(C)] * 3, quorum=3).seeds(7)[1][2] == 7 + 7 * STRIDE


def test_judge_zero_sample_zero_uses_the_run_seed(records):
    asks = [always(C), always(C)]
    Panel(asks, quorum=3).run(records, seed=123)
    assert {seed for _, seed in asks[0].log} == {123, 123 + 2 * STRIDE, 123 + 4 * STRIDE}
    assert {seed for _, seed in asks[1].log} == {123 + STRIDE, 123 + 3 * STRIDE, 123 + 5 * STRIDE}
    assert asks[0].log[0] == (records[0].no, 123)


def test_a_retry_uses_the_sample_seed_plus_one(records):
    # first call of each sample unreadable, the retry (seed + 1) says harmful
    ask = FakeAsk(lambda no, seed: NOISE if seed % 2 == 0 else H)
    run = Panel([ask], quorum=2).run(one(records), seed=10)
    assert ask.log == [
        (records[0].no, 10),
        (records[0].no, 11),
        (records[0].no, 10 + STRIDE),
        (records[0].no, 11 + STRIDE),
    ]
    assert run.labels == {records[0].no: H}
    assert (run.calls, run.retries, run.unreadable) == (4, 2, 0)


@given(seed=st.integers(0, 2**40), judges=st.integers(1, 4), quorum=st.integers(1, 6))
def test_no_sample_seed_meets_another_samples_seed_or_retry_seed(seed, judges, quorum):
    seeds = [s for row in Panel([always(C)] * judges, quorum=quorum).seeds(seed) for s in row]
    every = seeds + [s + 1 for s in seeds]
    assert len(set(every)) == 2 * judges * quorum


def test_different_slots_draw_differently():
    # the same model asked with two slot seeds of one run must not copy its draws
    model = L.SimulatedModel(temperature=5.0)
    prompt = L.build_prompt(L.make_records(1)[0])
    a = [model.call(prompt, s).text for s in range(200)]
    b = [model.call(prompt, s + STRIDE).text for s in range(200)]
    assert sum(x != y for x, y in zip(a, b)) > 40


# --- a judge's score: the median of its samples ------------------------------


@pytest.mark.parametrize(
    "votes, score, flag",
    [
        ("HCH", 1.0, True),
        ("HCC", 0.0, False),
        ("CCH", 0.0, False),
        ("HHH", 1.0, True),
        ("HC", 0.5, True),
        ("CC", 0.0, False),
        ("HHCC", 0.5, True),
        ("HCCC", 0.0, False),
        ("HHHC", 1.0, True),
        ("HCCCH", 0.0, False),
        ("HCHCH", 1.0, True),
    ],
)
def test_a_judge_scores_the_median_of_its_samples(records, votes, score, flag):
    ask = by_seed({k: H if v == "H" else C for k, v in enumerate(votes)})
    run = Panel([ask], quorum=len(votes)).run(one(records), seed=0)
    no = records[0].no
    assert run.judge_scores[no] == (score,)
    assert run.scores[no] == score
    assert run.labels[no] == (H if flag else C)
    assert run.calls == len(votes)


# --- the panel's verdict: min_agreement ---------------------------------------


def panel_of(labels, **kw):
    """One judge per letter (H harmful, C clean), each always answering that label."""
    return Panel([always({"H": H, "C": C}[x]) for x in labels], **kw)


@pytest.mark.parametrize(
    "labels, min_agreement, flagged",
    [
        ("HHC", 0.5, True),  # 2/3 >= 0.5
        ("HHC", 1.0, False),  # 2/3 <  1
        ("HHH", 1.0, True),  # unanimous
        ("HHC", 0.67, False),  # 0.6667 < 0.67
        ("HHC", 0.66, True),
        ("HCC", 0.5, False),  # 1/3 < 0.5
        ("HHCC", 0.5, True),  # a tie is a majority of at least half
        ("HCCC", 0.5, False),
        ("CCC", 0.0, True),  # 0/3 >= 0: a panel that needs no judge flags everything
    ],
)
def test_the_panel_flags_when_enough_judges_flag(records, labels, min_agreement, flagged):
    run = panel_of(labels, min_agreement=min_agreement).run(one(records))
    assert run.labels[records[0].no] == (H if flagged else C)


# --- aggregate: the reported score --------------------------------------------


@pytest.mark.parametrize("aggregate, score", [("median", 1.0), ("mean", 2.5 / 3), ("min", 0.5)])
def test_aggregate_combines_the_judges_scores(records, aggregate, score):
    # quorum 2: judges A and B say H, H (score 1); judge C says H then C (score 0.5)
    asks = [always(H), always(H), by_seed({2: H, 5: C})]  # C's slots: k = 2 and k = 5
    run = Panel(asks, quorum=2, aggregate=aggregate).run(one(records), seed=0)
    no = records[0].no
    assert run.judge_scores[no] == (1.0, 1.0, 0.5)
    assert run.scores[no] == pytest.approx(score, abs=0)
    assert run.labels[no] == H  # every judge flags (0.5 >= 0.5)


def test_aggregate_does_not_decide_the_verdict(records):
    # scores 1, 0, 0: median 0 and min 0 but mean 1/3; majority says clean either way
    for aggregate, score in (("median", 0.0), ("mean", 1 / 3), ("min", 0.0)):
        run = panel_of("HCC", aggregate=aggregate).run(one(records))
        assert run.scores[records[0].no] == score
        assert run.labels[records[0].no] == C
    run = panel_of("HHC", aggregate="min").run(one(records))
    assert (run.scores[records[0].no], run.labels[records[0].no]) == (0.0, H)


# --- unreadable after the retry -------------------------------------------------


@pytest.mark.parametrize(
    "rule, label, score", [("harmful", H, 1.0), ("clean", C, 0.0), ("abstain", H, 1.0)]
)
def test_a_lone_unreadable_judge(records, rule, label, score):
    ask = always(NOISE)
    run = Panel([ask], on_unreadable=rule).run(records)
    assert set(run.labels.values()) == {label}
    assert set(run.scores.values()) == {score}
    assert (run.calls, run.retries, run.unreadable) == (8, 4, 4)
    if rule == "abstain":
        assert set(run.judge_scores.values()) == {(None,)}


def test_the_default_fails_closed(records):
    assert Panel([always(C)]).on_unreadable == "harmful"
    assert set(Panel([always(NOISE)]).run(records).labels.values()) == {H}


@pytest.mark.parametrize(
    "rule, judge_scores, label",
    [
        ("harmful", (1.0, 0.0, 0.0), C),  # unreadable counts as a harmful vote: 1/3 flag
        ("clean", (0.0, 0.0, 0.0), C),
        ("abstain", (None, 0.0, 0.0), C),  # the vote drops out: 0/2 flag
    ],
)
def test_an_unreadable_judge_among_clean_ones(records, rule, judge_scores, label):
    run = Panel([always(NOISE), always(C), always(C)], on_unreadable=rule).run(one(records))
    assert run.judge_scores[records[0].no] == judge_scores
    assert run.labels[records[0].no] == label


@pytest.mark.parametrize(
    "rule, judge_scores, label, score",
    [
        ("harmful", (1.0, 1.0), H, 1.0),  # 2/2 flag
        ("clean", (0.0, 1.0), H, 0.5),  # 1/2 flag, a tie is enough at 0.5
        ("abstain", (None, 1.0), H, 1.0),  # the only vote left flags
    ],
)
def test_an_unreadable_judge_beside_a_flagging_one(records, rule, judge_scores, label, score):
    run = Panel([always(NOISE), always(H)], on_unreadable=rule).run(one(records))
    assert run.judge_scores[records[0].no] == judge_scores
    assert (run.labels[records[0].no], run.scores[records[0].no]) == (label, score)


@pytest.mark.parametrize(
    "rule, votes_left, score, label",
    [
        ("harmful", "HCH", 1.0, H),  # votes 1, 0, 1 -> median 1
        ("clean", "CCH", 0.0, C),  # votes 0, 0, 1 -> median 0
        ("abstain", "CH", 0.5, H),  # the unreadable sample drops out: median of 0, 1 = 0.5
    ],
)
def test_some_samples_unreadable_under_each_rule(records, rule, votes_left, score, label):
    ask = by_seed({0: NOISE, 1: C, 2: H})
    run = Panel([ask], quorum=3, on_unreadable=rule).run(one(records), seed=0)
    assert run.judge_scores[records[0].no] == (score,)
    assert run.labels[records[0].no] == label
    assert (run.calls, run.retries, run.unreadable) == (4, 1, 1)


def test_abstain_every_vote_out_flags_the_record(records):
    run = Panel(
        [always(NOISE), always(NOISE)], quorum=2, on_unreadable="abstain", aggregate="mean"
    ).run(one(records))
    assert run.judge_scores[records[0].no] == (None, None)
    assert (run.labels[records[0].no], run.scores[records[0].no]) == (H, 1.0)


def test_abstain_aggregates_only_the_judges_left(records):
    # judge scores: abstained, 1, 0 -> mean over the two left = 0.5, min 0
    asks = [always(NOISE), always(H), always(C)]
    for aggregate, score in (("mean", 0.5), ("min", 0.0), ("median", 0.5)):
        run = Panel(asks, on_unreadable="abstain", aggregate=aggregate).run(one(records))
        assert run.scores[records[0].no] == score
        assert run.labels[records[0].no] == H  # 1 of 2 flag: 0.5 >= 0.5


# --- counters, tokens and resets ------------------------------------------------


def test_totals_and_per_judge_counters(records):
    # judge A: every first call unreadable (retry readable) -> 2 calls a record;
    # judge B: always unreadable -> 2 calls a record, all unreadable; quorum 2, 4 records
    a = FakeAsk(lambda no, seed: NOISE if seed % 2 == 0 else H, tokens=10)
    b = FakeAsk(lambda no, seed: NOISE, tokens=3)
    run = Panel([a, b], quorum=2).run(records, seed=0)
    assert run.judge_calls == (16, 16) and run.calls == 32
    assert run.judge_retries == (8, 8) and run.retries == 16
    assert run.judge_unreadable == (0, 8) and run.unreadable == 8
    assert run.judge_input_tokens == (160, 48) and run.input_tokens == 208


def test_plain_text_replies_count_tokens_with_the_course_tokenizer(records):
    run = Panel([always(H)]).run(one(records))
    assert run.input_tokens == len(L.tokenize(L.build_prompt(records[0])))


@pytest.mark.parametrize("quorum, read", [(0, 1), (-5, 1), (1, 1), (3, 3)])
def test_quorum_below_one_reads_as_one_as_in_seed_003(records, quorum, read):
    # the production panel (seed 003): @quorum = [quorum.to_i, 1].max
    panel = Panel([always(H)], quorum=quorum)
    assert panel.quorum == read
    assert panel.run(records).calls == read * len(records)


@pytest.mark.parametrize(
    "given, read",
    [
        (7, 1.0),
        (50, 1.0),
        (1.7, 1.0),
        (math.inf, 1.0),
        (-0.2, 0.0),
        (-math.inf, 0.0),
        (0.5, 0.5),
        (0, 0.0),
    ],
)
def test_min_agreement_is_clamped_into_0_1_as_in_seed_003(records, given, read):
    # the production panel (seed 003): @min_agreement = min_agreement.to_f.clamp(0.0, 1.0)
    assert Panel([SIM], min_agreement=given).min_agreement == read
    one_of_two = Panel([always(H), always(C)], min_agreement=given).run(records)
    assert set(one_of_two.labels.values()) == {H if read <= 0.5 else C}


def test_a_panel_run_leaves_the_callers_models_unchanged(records):
    models = L.judge_models(*DIVERSE)
    for m in models:
        m.reset(5)
        m.call("kayit", 1)
    before = [(m.calls, repr(m)) for m in models]
    panel = Panel(models, quorum=2)
    first = panel.run(records)
    panel.run_many(records, [L.SEED, L.SEED + 1])
    assert [(m.calls, repr(m)) for m in models] == before
    # and the run is the one from a fresh clock, run after run
    assert panel.run(records) == first
    assert first == Panel(L.judge_models(*DIVERSE), quorum=2).run(records)


def test_reply_objects_with_only_text_are_accepted(records):
    class Bare:
        def __init__(self, text):
            self.text = text

    run = Panel([lambda prompt, seed: Bare(H)]).run(one(records))
    assert run.labels == {records[0].no: H}


def test_each_judge_is_reset_once_a_run(records):
    asks = [always(C), always(C)]
    panel = Panel(asks, quorum=3)
    panel.run(records)
    assert [a.resets for a in asks] == [1, 1]
    panel.run(records)
    assert [a.resets for a in asks] == [2, 2]


class Limited:
    """A fake with its own rate limit: every 3rd call since reset is refused (no text)."""

    def __init__(self, label):
        self.label, self.count = label, 0

    def __call__(self, prompt, seed):
        self.count += 1
        return AskReply(
            "" if self.count % 3 == 0 else self.label,
            1,
            "rate_limit" if self.count % 3 == 0 else "ok",
        )

    def reset(self):
        self.count = 0


def test_each_judge_has_its_own_rate_limit_clock(records):
    # 4 records, one judge alone: calls 1, 2, [3 refused, 4 its retry], 5 -> 5 calls
    alone = Panel([Limited(H)]).run(records)
    assert (alone.calls, alone.retries, alone.unreadable) == (5, 1, 0)
    # two judges: each keeps its own clock, so each makes the same 5 calls
    # (one shared clock would refuse calls 3, 6 and 9 of the ten)
    pair = Panel([Limited(H), Limited(H)]).run(records)
    assert pair.judge_calls == (5, 5) and pair.judge_retries == (1, 1)
    # quorum 2: the clock runs on into the second pass (reset once a run), so that
    # pass's calls 6 and 9 are refused too: 1, 2, [3, 4], 5 | [6, 7], 8, [9, 10], 11
    twice = Panel([Limited(H)], quorum=2).run(records)
    assert (twice.calls, twice.retries, twice.unreadable) == (11, 3, 0)
    # and a second run starts afresh
    panel = Panel([Limited(H)])
    assert panel.run(records).calls == panel.run(records).calls == 5


def test_asks_without_reset_still_work(records):
    run = Panel([lambda prompt, seed: H], quorum=2).run(records)
    assert run.calls == 8 and set(run.labels.values()) == {H}


def test_decide_reads_the_label(records):
    run = panel_of("H").run(records)
    assert all(run.decide(r) for r in records)
    run = panel_of("C").run(records)
    assert not any(run.decide(r) for r in records)
    assert run.seed == L.SEED


# --- the one-judge panel is the lesson's judge ----------------------------------


def test_one_judge_panel_is_the_lessons_judge(lesson_records):
    for seed in (L.SEED, L.SEED + 1):
        want = L.run_judge(lesson_records, seed)
        got = Panel([L.SimulatedModel()], on_unreadable="clean").run(lesson_records, seed)
        assert got.labels == want.labels
        assert (got.calls, got.retries, got.unreadable, got.input_tokens) == (
            want.calls,
            want.retries,
            want.unreadable,
            want.input_tokens,
        )
    assert want.calls == 246 and want.input_tokens == 10779


FREE_FORM = L.GUIDELINE.replace("tek ", "")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**40),
    temperature=st.sampled_from([0.0, 0.05, 0.3, 1.0, 3.0]),
    guideline=st.sampled_from([L.GUIDELINE, FREE_FORM, "kisa : "]),
    max_output=st.sampled_from([1, 2, 24]),
    spurious=st.sampled_from([L.SPURIOUS, {}]),
    rule=st.sampled_from(["clean", "harmful"]),
)
def test_one_judge_panel_equals_run_judge_for_any_seed(
    lesson_records, seed, temperature, guideline, max_output, spurious, rule
):
    records = lesson_records[:40]  # over 37 calls: the rate limit strikes
    model = L.SimulatedModel(temperature, L.CUE_TABLE, spurious, max_output=max_output)
    got = Panel([model], on_unreadable=rule).run(records, seed, guideline)
    want = L.run_judge(
        records,
        seed,
        temperature=temperature,
        guideline=guideline,
        cues=L.CUE_TABLE,
        spurious=spurious,
        max_output=max_output,
        unreadable_as=rule,
    )
    assert got.labels == want.labels
    assert (got.calls, got.retries, got.unreadable, got.input_tokens) == (
        want.calls,
        want.retries,
        want.unreadable,
        want.input_tokens,
    )
    assert all(got.scores[no] == (1.0 if got.labels[no] == H else 0.0) for no in got.labels)


def test_a_prompt_over_the_window_is_unreadable_twice(records):
    # a window of 10 tokens refuses every prompt of the course: two calls, no label
    run = Panel([L.SimulatedModel(window=10)]).run(records)
    assert (run.calls, run.retries, run.unreadable) == (8, 4, 4)
    assert set(run.labels.values()) == {H}


# --- the fictional judge models -------------------------------------------------


def test_fictional_judges_are_the_documented_configurations():
    assert JUDGE_NAMES == ("lesson", "plain", "wary", "greedy")
    assert DIVERSE == ("plain", "wary", "greedy")
    lesson, plain, wary, greedy = judge_models(*JUDGE_NAMES)
    assert (lesson.temperature, lesson.spurious, lesson.prior) == (
        0.30,
        {"asiri": H},
        {C: 0.75, H: 0.15},
    )
    assert (plain.temperature, plain.spurious, plain.prior) == (0.30, {}, {C: 0.75, H: 0.15})
    assert (wary.temperature, wary.spurious, wary.prior) == (
        0.30,
        {"asiri": H},
        {C: 0.55, H: 0.35},
    )
    assert (greedy.temperature, greedy.spurious, greedy.prior) == (
        0.0,
        {"asiri": H},
        {C: 0.75, H: 0.15},
    )
    for m in (lesson, plain, wary, greedy):
        assert m.cues == L.CUE_TABLE and m.calls == 0
    assert [m.name for m in (lesson, plain, wary, greedy)] == list(JUDGE_NAMES)
    assert all(spec.differs for spec in JUDGES)


def test_judge_models_are_fresh_each_time():
    (a,) = judge_models("lesson")
    a.call("kisa", 1)
    (b,) = judge_models("lesson")
    assert a is not b and b.calls == 0 and a.calls == 1


def test_the_lesson_judge_spec_reproduces_run_judge(lesson_records):
    run = Panel(judge_models("lesson"), on_unreadable="clean").run(lesson_records, L.SEED)
    assert run.labels == L.run_judge(lesson_records, L.SEED).labels


# --- the combination of votes, by hand ----------------------------------------------


def combine(votes, harmful, aggregate="median", min_agreement=0.5):
    """_combine on one seed: votes and harmful votes given as (judges, records) lists."""
    from lessonlib.panel import _combine

    shape = (len(votes), 1, len(votes[0]))
    judge, verdict, score = _combine(
        np.array(votes).reshape(shape), np.array(harmful).reshape(shape), aggregate, min_agreement
    )
    return judge[:, 0].tolist(), verdict[0].tolist(), score[0].tolist()


def test_a_judge_score_from_its_vote_counts():
    # one judge, one record a column: (votes, harmful) -> median of the sorted votes
    cases = [
        (4, 2, 0.5),
        (4, 1, 0.0),
        (4, 3, 1.0),
        (2, 1, 0.5),
        (1, 1, 1.0),
        (0, 0, None),
        (3, 2, 1.0),
        (3, 1, 0.0),
        (5, 3, 1.0),
    ]
    judge, _, _ = combine([[c[0] for c in cases]], [[c[1] for c in cases]])
    for got, (_, _, want) in zip(judge[0], cases):
        assert math.isnan(got) if want is None else got == want


def test_verdicts_and_scores_from_judge_scores():
    # three judges (rows), four records: scores 1,1,0 | 0,0.5,0 | -,0,1 | -,-,-
    votes = [[1, 1, 0, 0], [1, 2, 1, 0], [1, 1, 1, 0]]
    harmful = [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0]]
    judge, verdict, score = combine(votes, harmful, "median", 0.5)
    assert verdict == [True, False, True, True]  # 2/3, 1/3, 1/2, no judge left
    assert score == [1.0, 0.0, 0.5, 1.0]
    _, verdict, score = combine(votes, harmful, "mean", 1.0)
    assert verdict == [False, False, False, True]
    assert score == [2 / 3, 0.5 / 3, 0.5, 1.0]
    _, verdict, score = combine(votes, harmful, "min", 0.0)
    assert verdict == [True, True, True, True] and score == [0.0, 0.0, 0.0, 1.0]


# --- many seeds: Panel.run_many equals a loop of Panel.run -----------------------------

FF = L.GUIDELINE.replace("tek ", "")  # no 'tek': free-form replies, some unreadable

PANEL_SETUPS = st.fixed_dictionaries(
    {
        "judges": st.lists(st.sampled_from(JUDGE_NAMES), min_size=1, max_size=3),
        "quorum": st.integers(1, 4),
        "aggregate": st.sampled_from(["median", "mean", "min"]),
        "min_agreement": st.sampled_from([0.0, 0.34, 0.5, 0.67, 1.0]),
        "on_unreadable": st.sampled_from(["harmful", "clean", "abstain"]),
    }
)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    setup=PANEL_SETUPS,
    seeds=st.lists(
        st.one_of(st.integers(0, 2**40), st.integers(2**63, 2**70)), min_size=1, max_size=3
    ),
    guideline=st.sampled_from([L.GUIDELINE, FF]),
    window=st.sampled_from([45, 240]),
    max_output=st.sampled_from([1, 4, 24]),
    every=st.sampled_from([5, 37]),
)
def test_run_many_equals_run_seed_by_seed(
    lesson_records, setup, seeds, guideline, window, max_output, every
):
    """24 records: a judge's clock passes 37 in its second sample (5: in every sample); a
    window of 45 tokens refuses some of their prompts."""
    records = lesson_records[:24]
    models = [
        L.SimulatedModel(
            m.temperature, m.cues, m.spurious, m.prior, window, max_output, rate_limit_every=every
        )
        for m in judge_models(*setup["judges"])
    ]
    panel = Panel(
        models, setup["quorum"], setup["aggregate"], setup["min_agreement"], setup["on_unreadable"]
    )
    many = panel.run_many(records, seeds, guideline)
    assert len(many) == len(seeds) and many.records == tuple(records)
    for i, seed in enumerate(seeds):
        assert many.run(i) == panel.run(records, seed, guideline)


@pytest.mark.slow  # about 1 s of CPU or more: make test runs it, make check does not
def test_run_many_on_the_lesson_records(lesson_records):
    panel = Panel(judge_models(*DIVERSE), quorum=2, on_unreadable="abstain")
    seeds = [L.SEED, L.SEED + 1, 7]
    many = panel.run_many(lesson_records, seeds, FF)
    for i, seed in enumerate(seeds):
        run = panel.run(lesson_records, seed, FF)
        assert many.run(i) == run
        assert many.judge_calls[:, i].tolist() == list(run.judge_calls)
    assert many.harmful.shape == (3, 240) and many.judge_scores.shape == (3, 3, 240)
    assert many.calls.dtype == np.int64
    with pytest.raises(ValueError):
        many.harmful[0, 0] = True  # read-only


def test_one_judge_run_many_equals_run_judge_many(lesson_records):
    seeds = range(L.SEED, L.SEED + 20)
    many = Panel([L.SimulatedModel()], on_unreadable="clean").run_many(lesson_records, seeds)
    want = L.run_judge_many(lesson_records, seeds)
    assert np.array_equal(many.harmful, want.harmful)
    assert np.array_equal(many.calls, want.calls)
    assert np.array_equal(many.input_tokens, want.input_tokens)


def test_the_clock_runs_on_across_samples_in_run_many_too(lesson_records):
    # 30 records, quorum 2, lesson guideline: sample 1 makes calls 1..30; sample 2 starts at
    # 31, so its 7th record is call 37 (refused, retried as call 38): 61 calls in all.
    panel = Panel([L.SimulatedModel()], quorum=2, on_unreadable="clean")
    run = panel.run(lesson_records[:30], L.SEED)
    assert (run.calls, run.retries) == (61, 1)
    many = panel.run_many(lesson_records[:30], [L.SEED, 3])
    assert many.calls.tolist() == [61, 61] and many.run(0) == run


def test_run_many_plans_each_judge_once_not_each_sample(lesson_records, monkeypatch):
    from lessonlib import many as many_mod

    planned = []
    real = many_mod.plan_blocks
    monkeypatch.setattr(
        many_mod, "plan_blocks", lambda *a, **k: planned.append(a[1]) or real(*a, **k)
    )
    models = judge_models("lesson", "wary")
    panel = Panel(models, quorum=3)
    many = panel.run_many(lesson_records[:50], [L.SEED, 9])
    assert planned == models
    for i, seed in enumerate([L.SEED, 9]):
        assert many.run(i) == panel.run(lesson_records[:50], seed)


def test_run_many_takes_the_seed_collections_the_engine_takes(records):
    panel = Panel([L.SimulatedModel()])
    want = panel.run_many(records, [3, 4]).harmful.tolist()
    for seeds in (
        np.array([3, 4], dtype=np.uint64),
        range(3, 5),
        (s for s in [3, 4]),
        [np.int64(3), 4],
    ):
        many = panel.run_many(records, seeds)
        assert many.seeds == (3, 4) and all(type(s) is int for s in many.seeds)
        assert many.harmful.tolist() == want


def test_a_many_run_refuses_records_it_did_not_judge(records):
    run = Panel([L.SimulatedModel()]).run_many(records, [1, 2]).run(1)
    with pytest.raises(ValueError, match="not one this panel run judged"):
        run.decide(L.make_records(4, seed=5)[0])


def test_judge_models_names_an_unknown_judge():
    with pytest.raises(ValueError, match=r"names .*'gpt'.*allowed: lesson, plain, wary, greedy"):
        judge_models("lesson", "gpt")
