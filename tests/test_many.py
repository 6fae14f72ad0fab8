"""run_judge_many and its engine equal run_judge seed by seed, on every path (notebook 06)."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lessonlib as L
import reference
from lessonlib import many
from lessonlib.judge import build_prompt

RECORDS = L.make_records()
FAST = settings(
    derandomize=True, deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)

NO_SINGLE = "Su kaydin ozniteliklerine bak ve etiket yaz : temiz ya da zararli . "
"""Like the lesson's guideline but without 'tek': the model answers free-form."""


def long_guideline(words, single=True):
    """A guideline of roughly ``words`` extra tokens, to push prompts past the window."""
    return ("tek " if single else "") + "uzun " * words


def engine(
    records,
    seeds,
    model,
    guideline=L.GUIDELINE,
    start=None,
    unreadable_as="clean",
    chunk=None,
    block=many.RECORD_BLOCK,
):
    """The engine with any SimulatedModel, each seed's call counter at ``start`` (default 0)."""
    start = np.zeros(len(seeds), dtype=np.int64) if start is None else np.array(start)
    return many.run_plans(
        many.plan_blocks(records, model, guideline, block),
        records,
        tuple(seeds),
        start,
        unreadable_as,
        chunk,
    )


def assert_same(many_runs, i, expected):
    got = many_runs.run(i)
    assert got == expected
    assert list(got.retry_causes.items()) == list(expected.retry_causes.items())
    # a record asked twice in one run may get two labels; a run's labels keep the last one
    once = [k for k, no in enumerate(many_runs.record_nos) if many_runs.record_nos.count(no) == 1]
    row = [expected.labels[many_runs.record_nos[k]] == "zararli" for k in once]
    assert many_runs.harmful[i][once].tolist() == row
    assert int(many_runs.unreadable_mask[i].sum()) == expected.unreadable
    assert (
        many_runs.calls[i],
        many_runs.retries[i],
        many_runs.unreadable[i],
        many_runs.input_tokens[i],
    ) == (expected.calls, expected.retries, expected.unreadable, expected.input_tokens)


# ---------------------------------------------------------------------------------------------
# Property tests: random seeds and arguments against run_judge
# ---------------------------------------------------------------------------------------------

seeds_st = st.lists(
    st.one_of(
        st.integers(0, 2**32 + 100),
        st.integers(2**32, 2**70),
        st.sampled_from([0, 2**32 - 1, 2**32, 2**64 - 2, 2**64 - 1, 2**64, L.SEED]),
    ),
    min_size=1,
    max_size=3,
)
records_st = st.one_of(  # 40 records: over 37 calls (the rate limit) with retries
    st.builds(L.make_records, st.integers(1, 40), st.integers(0, 2**40)),
    st.lists(st.sampled_from(RECORDS), min_size=1, max_size=40),
)
guideline_st = st.one_of(  # "kisa": no space between the guideline and the flags
    st.sampled_from([L.GUIDELINE, NO_SINGLE, "", "tek ", "kisa", long_guideline(300)]),
    st.builds(long_guideline, st.integers(206, 224), st.booleans()),  # some records overflow
)
temperature_st = st.one_of(st.just(0.0), st.floats(0.001, 2.5), st.sampled_from([1e-9, 0.3]))
cues_st = st.sampled_from(
    [
        L.CUE_TABLE,
        {},
        {"yok": "zararli", "kaynak": "temiz"},
        {"yoner": "zararli", "asiri": "temiz"},
    ]
)
spurious_st = st.sampled_from([L.SPURIOUS, {}, {"belge": "zararli"}])


@pytest.mark.slow  # many-seed runs against the judge loop: about 1.4 s of CPU
@FAST
@given(
    records=records_st,
    seeds=seeds_st,
    temperature=temperature_st,
    guideline=guideline_st,
    cues=cues_st,
    spurious=spurious_st,
    max_output=st.integers(1, 24),
    unreadable_as=st.sampled_from(["clean", "harmful"]),
)
@example(
    RECORDS[:40], [L.SEED, 2**64 - 1], 0.3, NO_SINGLE, L.CUE_TABLE, L.SPURIOUS, 24, "harmful"
)  # free-form retries push the 37th call around
@example(RECORDS[:40], [1, 2**40], 1.0, long_guideline(212), {}, L.SPURIOUS, 24, "clean")
def test_run_judge_many_equals_run_judge(
    records, seeds, temperature, guideline, cues, spurious, max_output, unreadable_as
):
    runs = L.run_judge_many(
        records,
        seeds,
        temperature=temperature,
        guideline=guideline,
        cues=cues,
        spurious=spurious,
        max_output=max_output,
        unreadable_as=unreadable_as,
        chunk=2,
    )
    assert runs.seeds == tuple(seeds)
    assert runs.record_nos == tuple(r.no for r in records)
    for i, seed in enumerate(seeds):
        assert_same(
            runs,
            i,
            L.run_judge(
                records,
                seed,
                temperature=temperature,
                guideline=guideline,
                cues=cues,
                spurious=spurious,
                max_output=max_output,
                unreadable_as=unreadable_as,
            ),
        )


@FAST
@given(
    records=records_st,
    seeds=seeds_st,
    temperature=temperature_st,
    guideline=st.sampled_from([L.GUIDELINE, NO_SINGLE, "", "tek ", "kisa"]),
    prior=st.sampled_from(
        [L.PRIOR, {"temiz": 0.2, "zararli": 0.9}, {"temiz": 1.0, "zararli": 1.0}]
    ),
    window=st.sampled_from([1, 20, 45, 240]),
    every=st.sampled_from([1, 2, 5, 37]),
    max_output=st.integers(1, 24),
    unreadable_as=st.sampled_from(["clean", "harmful"]),
    block=st.sampled_from([1, 7, many.RECORD_BLOCK]),
    chunk=st.sampled_from([None, 1, 3]),
    starts=st.lists(st.integers(0, 80), min_size=4, max_size=4),
)
@example(
    RECORDS[:40],
    [0, L.SEED, 2**64 - 1],
    0.3,
    NO_SINGLE,
    L.PRIOR,
    45,
    5,
    24,
    "harmful",
    7,
    1,
    [0, 3, 36, 0],
)  # refusals, refused retries, overflow, free form, blocks
@example(
    RECORDS[:40],
    [5, 2**40],
    0.0,
    L.GUIDELINE,
    L.PRIOR,
    240,
    37,
    1,
    "clean",
    many.RECORD_BLOCK,
    None,
    [35, 0, 0, 0],
)  # temperature 0, 'zararli' cut unreadable
def test_the_engine_equals_the_judge_loop_for_any_model(
    records,
    seeds,
    temperature,
    guideline,
    prior,
    window,
    every,
    max_output,
    unreadable_as,
    block,
    chunk,
    starts,
):
    """Any model (prior, window, rate limit, cap), record and seed blocks of any size, call
    counters not at 0 (a short window makes some or all prompts overflow)."""
    model = L.SimulatedModel(
        temperature, prior=prior, window=window, max_output=max_output, rate_limit_every=every
    )
    start = starts[: len(seeds)]
    runs = engine(records, seeds, model, guideline, start, unreadable_as, chunk, block)
    for i, seed in enumerate(seeds):
        assert_same(
            runs,
            i,
            reference.model_run(
                records, seed, model, guideline, unreadable_as, calls_before=start[i]
            ),
        )


# ---------------------------------------------------------------------------------------------
# Focused tests, one path each (expectations from the lesson's definitions)
# ---------------------------------------------------------------------------------------------


def test_the_lessons_two_runs():
    """The lesson: 246 calls, 10779 input tokens, 6 rate-limit retries, 16 records changed."""
    runs = L.run_judge_many(RECORDS, [L.SEED, L.SEED + 1])
    assert runs.calls.tolist() == [246, 246]
    assert runs.input_tokens.tolist() == [10779, 10779]
    assert runs.retries.tolist() == [6, 6]
    assert runs.retry_causes["rate limit"].tolist() == [6, 6]
    assert runs.unreadable.tolist() == [0, 0]
    assert int((runs.harmful[0] != runs.harmful[1]).sum()) == 16
    m = runs.measure()
    assert m["precision"].tolist() == [0.7876, 0.7478]
    assert m["recall"].tolist() == [0.9570, 0.9247]
    assert m["false_block_rate"].tolist() == [0.1633, 0.1973]
    assert runs.agreement()[0] == pytest.approx(0.8833, abs=5e-5)


def test_mix32_splits_into_a_seed_word_and_a_record_word():
    """low32(t ^ t>>16) for t = seed ^ h (h < 2**32) = low32(seed ^ seed>>16) ^ (h ^ h>>16)."""
    for seed in (0, 5, 2**32 - 1, 2**32, 2**40 + 12345, 2**64 - 1, 2**64, 3**50):
        for h in (0, 1, 0xFFFF, 0x10000, 2166136261, 2**32 - 1):
            t = seed ^ h
            left = (t ^ (t >> 16)) & 0xFFFFFFFF
            right = ((seed ^ (seed >> 16)) & 0xFFFFFFFF) ^ (h ^ (h >> 16))
            assert left == right
    seeds = (0, 1, 2**32, 2**64 - 2, 2**64 - 1, 2**64, 3**50)
    words, words_next = many._seed_words(seeds)
    assert words.tolist() == [(s ^ (s >> 16)) & 0xFFFFFFFF for s in seeds]
    assert words_next.tolist() == [((s + 1) ^ ((s + 1) >> 16)) & 0xFFFFFFFF for s in seeds]


def test_states_follow_the_lessons_generator():
    """One and two steps of the LCG from mix32(seed ^ h), written out by hand."""

    def state_after(t, k):
        x = ((t ^ (t >> 16)) * 2246822507) & 0xFFFFFFFF
        x = ((x ^ (x >> 13)) * 3266489909) & 0xFFFFFFFF
        x = (x ^ (x >> 16)) & 0xFFFFFFFF
        for _ in range(k):
            x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
        return x

    seeds, traces = (7, 2**33 + 9, L.SEED), (0, 123456789, 2**32 - 1)
    a = many._seed_words(seeds)[0]
    g = np.array([h ^ (h >> 16) for h in traces], dtype=np.uint32)
    first, second = many._states(a, g, 2)
    for j, h in enumerate(traces):
        for i, s in enumerate(seeds):
            assert first[i, j] == state_after(s ^ h, 1)
            assert second[i, j] == state_after(s ^ h, 2)


def test_a_draw_is_an_integer_comparison():
    """state / 2**32 < w exactly when state < ceil(w * 2**32)."""
    assert many._threshold(0.0) == 0
    assert many._threshold(1.0) == 2**32
    assert many._threshold(0.5) == 2**31
    w = 0.0034474513015635
    cut = many._threshold(w)
    assert (cut - 1) / 2**32 < w <= cut / 2**32


def test_readability_table_for_small_output_caps():
    """max_output 1: 'zararli' (two pieces) is cut to 'zarar' and cannot be read; 'temiz' can."""

    def table(cap):
        model = L.SimulatedModel(max_output=cap)
        return next(many.plan_blocks(RECORDS[:1], model, L.GUIDELINE)).table

    bare = many.BARE
    assert table(1)[:, bare].tolist() == [True, False]
    assert not table(1)[:, :bare].any()  # 'kayit', 'bu', 'degerlendirme' come first
    # 'kayit zararli gorunuyor' is five pieces; four keep 'zarar li' (cut, so unreadable)
    assert table(4)[:, 0].tolist() == [True, False]
    assert table(5)[:, 0].tolist() == [True, True]
    assert table(5)[:, 2].tolist() == [False, False]  # 'degerlendirme tamamlandi': no label


def test_max_output_one_makes_every_harmful_reply_unreadable():
    runs = L.run_judge_many(RECORDS[:50], range(5), max_output=1)
    assert not runs.harmful.any()  # read as clean or counted clean
    assert (runs.unreadable > 0).all()
    runs_h = L.run_judge_many(RECORDS[:50], range(5), max_output=1, unreadable_as="harmful")
    assert np.array_equal(runs_h.harmful, runs_h.unreadable_mask)


def test_temperature_zero_gives_the_same_run_for_every_seed():
    runs = L.run_judge_many(RECORDS, [0, 1, 2**40, 2**70], temperature=0.0)
    assert (runs.harmful == runs.harmful[0]).all()
    assert runs.run(3) == L.run_judge(RECORDS, 2**70, temperature=0.0)


def test_every_prompt_overflowing_the_window():
    """Both calls overflow: two calls and its tokens twice per record, all unreadable."""
    records = RECORDS[:40]
    runs = L.run_judge_many(records, [3, 4], guideline=long_guideline(300))
    tokens = sum(len(L.tokenize(build_prompt(r, long_guideline(300)))) for r in records)
    assert runs.calls.tolist() == [80, 80] and runs.retries.tolist() == [40, 40]
    assert runs.input_tokens.tolist() == [2 * tokens] * 2
    assert runs.unreadable_mask.all() and not runs.harmful.any()
    assert runs.run(0).retry_causes == {"context overflow": 40}


def test_rate_limit_on_every_call():
    runs = engine(RECORDS[:10], [1, 2], L.SimulatedModel(rate_limit_every=1))
    assert runs.calls.tolist() == [20, 20]
    assert runs.unreadable_mask.all()
    assert runs.run(1).retry_causes == {"rate limit": 10}


def test_rate_limit_counts_retries_of_free_form_replies():
    """Free-form replies: retries shift the 37th call, so calls differ between seeds."""
    runs = L.run_judge_many(RECORDS, range(40), guideline=NO_SINGLE)
    assert len(set(runs.calls.tolist())) > 1
    for i in (0, 17, 39):
        assert_same(runs, i, L.run_judge(RECORDS, i, guideline=NO_SINGLE))
    causes = runs.run(0).retry_causes
    assert set(causes) == {"unreadable reply", "rate limit"}


def test_chunk_size_does_not_change_the_result():
    seeds = list(range(100, 123))
    a = L.run_judge_many(RECORDS[:30], seeds, temperature=0.7, guideline=NO_SINGLE, chunk=1)
    b = L.run_judge_many(RECORDS[:30], seeds, temperature=0.7, guideline=NO_SINGLE)
    assert np.array_equal(a.harmful, b.harmful) and np.array_equal(a.calls, b.calls)


def test_numpy_seed_arrays_and_scalars_are_accepted():
    want = L.run_judge_many(RECORDS[:20], [5, 6, 7])
    for seeds in (
        np.array([5, 6, 7]),
        np.array([5, 6, 7], dtype=np.uint64),
        range(5, 8),
        (np.int32(5), 6, np.uint8(7)),
    ):
        got = L.run_judge_many(RECORDS[:20], seeds)
        assert got.seeds == (5, 6, 7) and all(type(s) is int for s in got.seeds)
        assert np.array_equal(got.harmful, want.harmful)


def test_result_is_read_only():
    runs = L.run_judge_many(RECORDS[:5], [1])
    with pytest.raises(ValueError):
        runs.harmful[0, 0] = True
    with pytest.raises(ValueError):
        runs.calls[0] = 0


def test_run_index():
    runs = L.run_judge_many(RECORDS[:5], [1, 2])
    assert runs.run(-1) == runs.run(1) == L.run_judge(RECORDS[:5], 2)
    assert runs.run(np.int64(0)).seed == 1


# ---------------------------------------------------------------------------------------------
# Vectorised metrics
# ---------------------------------------------------------------------------------------------


def test_many_runs_confusion_by_hand():
    """Three records (harmful, clean, harmful), two runs."""
    actual = np.array([True, False, True])
    harmful = np.array(
        [
            [True, True, False],  # tp 1, fp 1, fn 1, tn 0
            [False, False, False],
        ]
    )  # tp 0, fp 0, fn 2, tn 1
    runs = many.ManyRuns((1, 2), (1, 2, 3), harmful, harmful, *[None] * 6, actual)
    tp, fp, fn, tn = runs.confusion()
    assert (tp.tolist(), fp.tolist(), fn.tolist(), tn.tolist()) == ([1, 0], [1, 0], [1, 2], [0, 1])


def test_measure_matches_lessonlib_measure_per_seed():
    runs = L.run_judge_many(RECORDS, range(30), temperature=1.2)
    m, agree = runs.measure(), runs.agreement()
    for i in range(30):
        run = runs.run(i)
        want = L.measure(RECORDS, run.decide)
        assert {k: m[k][i].item() for k in want} == want
        assert agree[i] == L.agreement(RECORDS, run.decide)


# ---------------------------------------------------------------------------------------------
# The plan equals the simulator's own; hashes equal trace_id
# ---------------------------------------------------------------------------------------------


@settings(derandomize=True, deadline=None, max_examples=40)
@given(
    records=records_st,
    guideline=st.sampled_from([L.GUIDELINE, NO_SINGLE, "", long_guideline(220)]),
    temperature=temperature_st,
    cues=cues_st,
    spurious=spurious_st,
)
def test_the_plan_equals_model_plan(records, guideline, temperature, cues, spurious):
    model = L.SimulatedModel(temperature, cues, spurious)
    plan = next(many.plan_blocks(records, model, guideline, block=len(records)))
    want = [model.plan(build_prompt(r, guideline)) for r in records]
    assert plan.tokens.tolist() == [p.input_tokens for p in want]
    assert plan.overflow.tolist() == [p.overflow for p in want]
    assert plan.single.tolist() == [p.single_label for p in want]
    assert plan.word.tolist() == [p.trace ^ (p.trace >> 16) for p in want]
    if temperature == 0.0:
        assert plan.fixed.tolist() == [p.fixed_label == "zararli" for p in want]
    else:
        cuts = [math.ceil(p.weights[0] * 2**32) for p in want]
        assert plan.never.tolist() == [c == 2**32 for c in cuts]
        assert plan.cut.tolist() == [min(c, 2**32 - 1) for c in cuts]


@settings(derandomize=True, deadline=None, max_examples=40)
@given(texts=st.lists(st.text(max_size=40), min_size=1, max_size=6), prefix=st.text(max_size=8))
def test_traces_equal_trace_id(texts, prefix):
    prompts = [prefix + t for t in texts]
    assert many._traces(prompts, prefix).tolist() == [L.trace_id(p) for p in prompts]


def test_traces_by_hand_and_for_long_prompts():
    """FNV-1a: h = 2166136261, then h = (h ^ ord(c)) * 16777619 mod 2**32 per character."""
    h = ((2166136261 ^ ord("a")) * 16777619) % 2**32
    assert many._traces(["", "a"], "").tolist() == [2166136261, h]
    long = ["x" + "ab" * many.LONG_PROMPT, "x", "x\ud800y"]  # trace_id itself; a surrogate
    assert many._traces(long, "x").tolist() == [L.trace_id(p) for p in long]


def test_a_lone_surrogate_in_a_record_text():
    """Row 9: a text Python can hold but not encode as UTF-8 judges as run_judge judges it."""
    import dataclasses

    records = [dataclasses.replace(r, text=r.text + "\ud83d") for r in RECORDS[:30]]
    runs = L.run_judge_many(records, [L.SEED, 5])
    assert runs.run(0) == L.run_judge(records, L.SEED)
    assert runs.run(1) == L.run_judge(records, 5)


@pytest.mark.slow  # about 1 s of CPU or more: make test runs it, make check does not
def test_memory_is_bounded_whatever_the_number_of_records():
    """Row 6: beyond the result (two bools a cell, the record numbers) memory does not grow
    with the records: planned RECORD_BLOCK at a time."""
    import tracemalloc

    def peak(records):
        tracemalloc.start()
        runs = L.run_judge_many(records, [1])
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert runs.harmful.shape == (1, len(records))
        return peak

    small, big = L.make_records(many.RECORD_BLOCK), L.make_records(3 * many.RECORD_BLOCK)
    per_record = (peak(big) - peak(small)) / (len(big) - len(small))
    assert per_record < 200, f"{per_record:.0f} bytes a record"  # 1,700 before blocks


# ---------------------------------------------------------------------------------------------
# Validation: the parameter is named, nothing is computed
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seeds, error",
    [
        ([], ValueError),
        (range(0), ValueError),
        (np.array([], dtype=int), ValueError),
        ([-1], ValueError),
        (range(-2, 3), ValueError),
        (np.array([3, -1]), ValueError),
        ([1.0], TypeError),
        ([True], TypeError),
        (np.array([1.5]), TypeError),
        (np.array([True]), TypeError),
        (np.zeros((2, 2), dtype=int), TypeError),
        ("12", TypeError),
        (5, TypeError),
        ({1: 2}, TypeError),
        ([1, "2"], TypeError),
    ],
)
def test_bad_seeds(seeds, error):
    with pytest.raises(error, match="seeds"):
        L.run_judge_many(RECORDS[:3], seeds)


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"temperature": -0.1}, ValueError, "temperature"),
        ({"temperature": math.nan}, ValueError, "temperature"),
        ({"guideline": 3}, TypeError, "guideline"),
        ({"max_output": 0}, ValueError, "max_output"),
        ({"max_output": 2.0}, TypeError, "max_output"),
        ({"cues": {"yok": "belki"}}, ValueError, "cues"),
        ({"spurious": ["asiri"]}, TypeError, "spurious"),
        ({"unreadable_as": "skip"}, ValueError, "unreadable_as"),
        ({"chunk": 0}, ValueError, "chunk"),
        ({"chunk": 1.5}, TypeError, "chunk"),
        ({"records": []}, ValueError, "records"),
        ({"records": [1, 2]}, TypeError, "records"),
        ({"records": "abc"}, TypeError, "records"),
    ],
)
def test_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        L.run_judge_many(**{"records": RECORDS[:3], "seeds": [1], **kwargs})


# ---------------------------------------------------------------------------------------------
# Draws exactly on a threshold (states built backwards through the generator)
# ---------------------------------------------------------------------------------------------

M = 2**32


def seed_word_for(state, record_word, steps=1):
    """The seed word whose generator reaches ``state`` after ``steps`` draws (inverted by hand)."""
    for _ in range(steps):
        state = ((state - 1013904223) * pow(1664525, -1, M)) % M
    x = state ^ (state >> 16)  # undo x ^= x >> 16
    x = (x * pow(3266489909, -1, M)) % M
    x = x ^ (x >> 13) ^ (x >> 26)  # undo x ^= x >> 13
    x = (x * pow(2246822507, -1, M)) % M
    return x ^ record_word


def test_label_draw_on_its_threshold():
    """pick: 'temiz' when u < w_temiz, so the state ceil(w * 2**32) is the first 'zararli'."""
    model = L.SimulatedModel()
    plan = next(many.plan_blocks(RECORDS[:1], model, L.GUIDELINE))
    w = model.plan(build_prompt(RECORDS[0])).weights[0]
    cut = math.ceil(w * M)
    assert int(plan.cut[0]) == cut
    g = int(plan.word[0])
    words = np.array([seed_word_for(cut - 1, g), seed_word_for(cut, g)], dtype=np.uint32)
    assert many._states(words, plan.word, 1)[0][:, 0].tolist() == [cut - 1, cut]
    harmful, readable = many._replies(plan, words, np.array([0]))
    assert harmful[:, 0].tolist() == [False, True] and readable.all()
    # the whole engine on seeds whose word is exactly these (x ^ x >> 16 undoes itself)
    seeds = [int(w) ^ (int(w) >> 16) for w in words]
    runs = L.run_judge_many(RECORDS[:1], seeds)
    assert runs.harmful[:, 0].tolist() == [False, True]
    assert [L.run_judge(RECORDS[:1], s).labels[1] for s in seeds] == ["temiz", "zararli"]


def test_free_form_draw_on_its_thresholds():
    """The forms split [0, 1) at 0.42 and 0.42 + 0.26; the second draw picks the form, and
    the third form ('degerlendirme tamamlandi') cannot be read."""
    plan = next(many.plan_blocks(RECORDS[:1], L.SimulatedModel(), NO_SINGLE))
    cuts = [math.ceil(0.42 * M), math.ceil((0.42 + 0.26) * M)]
    assert [int(c) for c in plan.form_cuts] == cuts
    g = int(plan.word[0])
    states = [cuts[0] - 1, cuts[0], cuts[1] - 1, cuts[1], M - 1]
    words = np.array([seed_word_for(s, g, steps=2) for s in states], dtype=np.uint32)
    _, readable = many._replies(plan, words, np.array([0]))
    assert readable[:, 0].tolist() == [True, True, True, False, False]


# --- a counter that does not start at zero (the panel's later samples) ----------------


def test_a_counter_start_moves_the_rate_limit_clock():
    # counter at 35 before the first call: record 1 is call 36, record 2 is call 37
    # (refused, its retry is call 38), record 3 is call 39 -> 4 calls, 1 retry.
    runs = engine(RECORDS[:3], (L.SEED, 9), L.SimulatedModel(), start=[35, 35])
    assert runs.calls.tolist() == [4, 4] and runs.retries.tolist() == [1, 1]
    assert runs.run(0).retry_causes == {"rate limit": 1}
    fresh = engine(RECORDS[:3], (L.SEED, 9), L.SimulatedModel())
    assert fresh.calls.tolist() == [3, 3] and fresh.retries.tolist() == [0, 0]


def test_a_run_of_many_refuses_another_seeds_records():
    # the README promises a run refuses records it did not judge; run(i) once accepted any
    # record with a known number
    records, other = L.make_records(30), L.make_records(30, seed=L.SEED + 99)
    run = L.run_judge_many(records, [L.SEED, L.SEED + 1]).run(1)
    assert run == L.run_judge(records, L.SEED + 1)
    assert [run.decide(r) for r in records] == [run.labels[r.no] == "zararli" for r in records]
    changed = [o for r, o in zip(records, other) if r != o]
    assert changed
    with pytest.raises(ValueError, match="does not belong"):
        run.decide(changed[0])
    with pytest.raises(ValueError, match="does not belong"):
        L.measure(other, run.decide)


def test_run_judge_many_takes_a_model_like_run_judge():
    model = L.SimulatedModel(0.9, spurious={})
    runs = L.run_judge_many(RECORDS[:40], [4, 5], model=model)
    assert runs.run(1) == L.run_judge(RECORDS[:40], 5, model=model)
    assert model.calls == 0
