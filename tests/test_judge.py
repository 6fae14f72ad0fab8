"""lessonlib.judge: prompt, label reading, one retry with seed + 1, fail-open, costs.

Expectations are worked out by hand from the lesson's definitions; where a
reply depends on the seed the draw is computed with tests/lesson_defs.py.
"""

import pytest

import lessonlib as L
from lesson_defs import FREE_FORM_WEIGHTS, choose, fnv, record, uniforms

GUIDELINE_TOKENS = 23
PLAIN = 41  # a no-flag user record with text TEXTS[2]: guideline 23 + 'yok' 1 +
#                     '. kaynak kullanici . kayit N :' 9 + 'mahallede kesinti ne zaman bitecek' 8
FREE = "kaydi oku : "  # a guideline without 'tek': the model answers free-form


def plain(n):
    """n no-flag records (judged 'temiz' at temperature 0)."""
    return [record(no=i) for i in range(1, n + 1)]


# ---------------------------------------------------------------- prompt and label


def test_build_prompt_by_hand():
    r = record(
        no=7,
        flags=("instruction_mode", "excessive_length"),
        source="tool_output",
        text="adres degisikligi nasil yapilir",
    )
    assert L.build_prompt(r, "G : ") == (
        "G : yonerge asiriuzunluk . kaynak aracciktisi . kayit 7 : adres degisikligi nasil yapilir"
    )
    assert L.build_prompt(record(no=1), "") == (
        "yok . kaynak kullanici . kayit 1 : mahallede kesinti ne zaman bitecek"
    )


def test_flag_words_follow_features_order():
    r = record(flags=tuple(reversed(L.FEATURES)))
    assert L.build_prompt(r, "").split(" . ")[0] == (
        "yonerge roldegisimi gizlialan yanetkiliarac damgauyusmazligi dagilimbozuklugu "
        "asiriuzunluk"
    )


def test_the_lessons_sample_prompt():
    assert L.build_prompt(L.make_records(2)[1]) == (
        "Su kaydin ozniteliklerine bak ve tek etiket yaz : temiz ya da zararli . "
        "Oznitelikler : roldegisimi damgauyusmazligi . kaynak belge . kayit 2 : "
        "mahallede kesinti ne zaman bitecek"
    )


def test_plain_prompt_token_count():
    assert len(L.tokenize(L.build_prompt(record(no=36)))) == PLAIN


@pytest.mark.parametrize(
    "text, label",
    [
        ("temiz", "temiz"),
        ("zararli", "zararli"),
        ("ZARARLI", "zararli"),
        ("kayit zararli gorunuyor", "zararli"),
        ("bu kaydi temiz sayiyorum", "temiz"),
        ("temiz zararli", "temiz"),  # the first label word wins
        ("degerlendirme tamamlandi", None),
        ("zarar", None),
        ("zarar li", None),
        ("zararli.", None),  # only whole words count
        ("", None),
    ],
)
def test_read_label_by_hand(text, label):
    assert L.read_label(text) == label


# ---------------------------------------------------------------- temperature 0, single label


def test_labels_at_temperature_zero_by_hand():
    records = [
        record(no=1),  # yok: temiz 1.75
        record(no=2, cls="indirect_instruction", flags=("instruction_mode",)),  # 1.15
        record(no=3, cls="corrupted_input", flags=("excessive_length",)),
    ]  # 1.45
    run = L.run_judge(records, seed=5, temperature=0)
    assert run.labels == {1: "temiz", 2: "zararli", 3: "zararli"}
    assert (run.calls, run.retries, run.unreadable, run.retry_causes) == (3, 0, 0, {})
    assert run.input_tokens == PLAIN + (PLAIN + 1) + (PLAIN + 2)  # 'yonerge' 2, 'asiriuzunluk' 3
    assert [run.decide(r) for r in records] == [False, True, True]


def test_without_the_spurious_cue_excessive_length_reads_clean():
    r = record(cls="corrupted_input", flags=("excessive_length",))
    assert L.run_judge([r], temperature=0).labels == {1: "zararli"}  # 0.15 + 1.3
    assert L.run_judge([r], temperature=0, spurious={}).labels == {1: "temiz"}  # 0.15
    assert L.run_judge([r], temperature=0, cues={}, spurious={}).labels == {1: "temiz"}


def test_a_cue_table_without_yok_leaves_the_prior():
    r = record(flags=("role_change_request",))
    assert L.run_judge([r], temperature=0).labels == {1: "zararli"}  # 0.15 + 1.0
    assert L.run_judge([r], temperature=0, cues={"yok": "temiz"}).labels == {1: "temiz"}


# ---------------------------------------------------------------- free-form guideline


def forms(seed, prompt):
    """Form index of the first call (seed) and of the retry (seed + 1) at temperature 0."""
    return tuple(
        choose(uniforms(s ^ fnv(prompt), 1)[0], FREE_FORM_WEIGHTS) for s in (seed, seed + 1)
    )


def find_seed(prompt, wanted, start=0):
    return next(s for s in range(start, start + 500) if forms(s, prompt) == wanted)


@pytest.mark.parametrize("start", [0, 2**32])
def test_an_unreadable_reply_is_retried_with_seed_plus_one(start):
    r = record(flags=("instruction_mode",))
    prompt = L.build_prompt(r, FREE)
    seed = find_seed(prompt, (2, 0), start)  # 'degerlendirme tamamlandi', then readable
    run = L.run_judge([r], seed=seed, temperature=0, guideline=FREE)
    assert run.labels == {1: "zararli"}
    assert (run.calls, run.retries, run.unreadable, run.seed) == (2, 1, 0, seed)
    assert run.retry_causes == {"unreadable reply": 1}
    assert run.input_tokens == 2 * len(L.tokenize(prompt))


@pytest.mark.parametrize("rule, label", [("clean", "temiz"), ("harmful", "zararli")])
def test_unreadable_twice_is_counted_clean_or_as_told(rule, label):
    r = record(flags=("instruction_mode",))
    seed = find_seed(L.build_prompt(r, FREE), (2, 2))
    run = L.run_judge([r], seed=seed, temperature=0, guideline=FREE, unreadable_as=rule)
    assert run.labels == {1: label}
    assert (run.calls, run.retries, run.unreadable) == (2, 1, 1)


def test_a_readable_first_reply_is_not_retried():
    r = record(flags=("instruction_mode",))
    seed = find_seed(L.build_prompt(r, FREE), (1, 2))
    run = L.run_judge([r], seed=seed, temperature=0, guideline=FREE)
    assert (run.labels, run.calls, run.retries) == ({1: "zararli"}, 1, 0)


# ---------------------------------------------------------------- output cap


def test_max_output_one_makes_zararli_unreadable():
    harmful = record(no=1, cls="indirect_instruction", flags=("instruction_mode",))
    clean = record(no=2)
    run = L.run_judge([harmful, clean], temperature=0, max_output=1)
    # 'zararli' is cut to 'zarar' on both calls and counted clean; 'temiz' survives
    assert run.labels == {1: "temiz", 2: "temiz"}
    assert (run.calls, run.retries, run.unreadable) == (3, 1, 1)
    closed = L.run_judge([harmful, clean], temperature=0, max_output=1, unreadable_as="harmful")
    assert closed.labels == {1: "zararli", 2: "temiz"}
    assert L.run_judge([harmful], temperature=0, max_output=2).labels == {1: "zararli"}


# ---------------------------------------------------------------- rate limit, overflow, counter


@pytest.mark.parametrize(
    "n, calls, retries",
    [
        (1, 1, 0),
        (36, 36, 0),
        (37, 38, 1),  # call 37 refused, record 37 retried on call 38
        (72, 73, 1),  # records 38..72 on calls 39..73
        (73, 75, 2),  # call 74 = 2 * 37 refused, retried on call 75
    ],
)
def test_rate_limit_retries_by_hand(n, calls, retries):
    run = L.run_judge(plain(n), temperature=0)
    assert (run.calls, run.retries, run.unreadable) == (calls, retries, 0)
    assert run.retry_causes == ({"rate limit": retries} if retries else {})
    assert run.input_tokens == calls * PLAIN  # refused calls count their input too
    assert set(run.labels.values()) == {"temiz"}


def test_each_run_starts_a_fresh_counter():
    first = L.run_judge(plain(37), temperature=0)
    second = L.run_judge(plain(37), temperature=0)
    assert first == second and second.calls == 38


def test_overflow_on_a_retry_wins_over_the_rate_limit():
    long = record(no=36, text="a " * 250)  # 23 + 'yok' 1 + 9 + 250 = 283 tokens > 240
    records = plain(35) + [long, record(no=37)]
    run = L.run_judge(records, temperature=0)
    # record 36: call 36 overflows, its retry is call 37 -> overflow again (checked first);
    # record 37 gets call 38
    assert (run.calls, run.retries, run.unreadable) == (38, 1, 1)
    assert run.retry_causes == {"context overflow": 1}
    assert run.labels[36] == "temiz" and run.labels[37] == "temiz"
    assert run.input_tokens == 36 * PLAIN + 2 * 283


def test_seeds_of_two_to_the_32_and_above():
    records = plain(3)
    for seed in (2**32 - 1, 2**32, 2**64 + 5):
        run = L.run_judge(records, seed=seed, temperature=0)
        assert run.seed == seed and run.calls == 3


# ---------------------------------------------------------------- ask_for_label


def test_ask_for_label_with_a_plain_function():
    seen = []

    def ask(prompt, seed):
        seen.append(seed)
        return "temiz" if seed == 11 else "bilmiyorum"

    answer = L.ask_for_label(ask, "tek kayit", 10)
    assert seen == [10, 11]
    assert answer == L.Answer("temiz", 2, 2 * 2, ("ok", "ok"))
    assert answer.retried


def test_ask_for_label_reads_reply_objects():
    answer = L.ask_for_label(lambda p, s: L.Reply("ok", 99, 1, "zararli"), "x", 0)
    assert answer == L.Answer("zararli", 1, 99, ("ok",)) and not answer.retried


# ---------------------------------------------------------------- the lesson's runs (facts)


def test_the_lessons_two_runs(lesson_run):
    for run, seed in ((lesson_run.run1, L.SEED), (lesson_run.run2, L.SEED + 1)):
        assert (run.calls, run.input_tokens, run.seed) == (246, 10779, seed)
    run1 = lesson_run.run1
    assert (run1.retries, run1.unreadable, run1.retry_causes) == (6, 0, {"rate limit": 6})


# ---------------------------------------------------------------- issue 12: door cases


def test_a_vanishing_temperature_judges_as_temperature_zero_on_both_paths():
    import importlib

    records = L.make_records(120)
    zero = L.run_judge(records, temperature=0)
    assert L.run_judge(records, temperature=1e-310) == zero
    many = importlib.import_module("lessonlib.many")
    tiny, greedy = (many.run_judge_many(records, [1, 2], temperature=t) for t in (1e-310, 0))
    assert [tiny.run(i) for i in (0, 1)] == [greedy.run(i) for i in (0, 1)]
    assert tiny.run(0).labels == zero.labels


class Reply:
    def __init__(self, input_tokens, text="temiz"):
        self.text, self.input_tokens = text, input_tokens


@pytest.mark.parametrize(
    "tokens, error",
    [
        ("abc", TypeError),
        (float("nan"), TypeError),
        (1.5, TypeError),
        (True, TypeError),
        (-1, ValueError),
    ],
)
def test_a_reply_with_bad_input_tokens_names_them(tokens, error):
    with pytest.raises(error, match=r"\binput_tokens\b"):
        L.ask_for_label(lambda p, s: Reply(tokens), "tek kayit", 1)


def test_a_reply_may_give_its_input_tokens_as_a_numpy_int():
    import numpy as np

    assert L.ask_for_label(lambda p, s: Reply(np.int64(7)), "x", 1).input_tokens == 7


def test_a_run_decides_only_the_records_it_judged():
    records = L.make_records(10, 1)
    run = L.run_judge(records, 1)
    assert [run.decide(r) for r in L.make_records(10, 1)] == [run.decide(r) for r in records]
    for foreign in (L.make_records(12, 1)[10], L.make_records(10, 2)[3]):
        with pytest.raises(ValueError, match=r"^record\b.*does not belong"):
            run.decide(foreign)


# ---- one door for the judge's settings; seeds as Python ints (issue 18) ----------------------


def test_run_judge_takes_a_model_or_its_settings_and_leaves_the_model_alone():
    records = L.make_records(60)
    model = L.SimulatedModel(0.7, prior={"temiz": 0.5, "zararli": 0.4}, name="mine")
    model.reset(11)
    by_model = L.run_judge(records, 3, model=model)
    assert model.calls == 11  # the caller's counter is not touched
    assert by_model == L.run_judge(
        records, 3, temperature=0.7, prior={"temiz": 0.5, "zararli": 0.4}
    )
    assert by_model != L.run_judge(records, 3, temperature=0.7)
    with pytest.raises(ValueError, match="model.*temperature"):
        L.run_judge(records, 3, temperature=0.5, model=model)
    with pytest.raises(TypeError, match="model"):
        L.run_judge(records, 3, model="gpt")


def test_a_numpy_seed_is_a_python_int_at_the_door():
    np = pytest.importorskip("numpy")
    records = L.make_records(80)
    big = 2**63 - 1  # its retry seed, big + 1, does not fit an int64
    run = L.run_judge(records, np.int64(big))
    assert run.retries > 0 and type(run.seed) is int
    assert run == L.run_judge(records, big)
    panel = L.Panel([L.SimulatedModel()])
    assert panel.run(records, np.int64(big)) == panel.run(records, big)
    assert panel.seeds(np.int64(big))[0] == [big]
