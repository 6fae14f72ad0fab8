"""lessonlib.simulator: tokenizer, label scores, softmax, window, rate limit, output cap.

Every expectation is worked out by hand from the lesson's definitions; where
a reply depends on the seed, the draw is computed with the generator written
out in tests/lesson_defs.py.
"""

import math

import pytest

import lessonlib as L
from lesson_defs import FREE_FORM_WEIGHTS, choose, fnv, uniforms
from lessonlib.simulator import _label_scores, label_probabilities, label_scores, label_weights

SAMPLE_PROMPT = (
    "Su kaydin ozniteliklerine bak ve tek etiket yaz : temiz ya da zararli . "
    "Oznitelikler : roldegisimi damgauyusmazligi . kaynak belge . kayit 2 : "
    "mahallede kesinti ne zaman bitecek"
)  # printed in the lesson
GUIDELINE_PIECES = [
    "su",
    "kaydi",
    "n",
    "oznit",
    "elikl",
    "erine",
    "bak",
    "ve",
    "tek",
    "etike",
    "t",
    "yaz",
    ":",
    "temiz",
    "ya",
    "da",
    "zarar",
    "li",
    ".",
    "oznit",
    "elikl",
    "er",
    ":",
]
FORMS = ("kayit {} gorunuyor", "bu kaydi {} sayiyorum", "degerlendirme tamamlandi")
FORM_TOKENS = {
    ("kayit {} gorunuyor", "temiz"): 4,
    ("kayit {} gorunuyor", "zararli"): 5,
    ("bu kaydi {} sayiyorum", "temiz"): 5,
    ("bu kaydi {} sayiyorum", "zararli"): 6,
    ("degerlendirme tamamlandi", "temiz"): 5,
    ("degerlendirme tamamlandi", "zararli"): 5,
}

# ---------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    "text, pieces",
    [
        ("Merhaba, dunya", ["merha", "ba", ",", "dunya"]),
        ("abcdefghijkl", ["abcde", "fghij", "kl"]),
        ("abcdefghij", ["abcde", "fghij"]),  # no empty piece after an exact cut
        ("ABCDE", ["abcde"]),
        ("a,b", ["a", ",", "b"]),
        ("", []),
        ("   ", []),
        ("  a \t b\n", ["a", "b"]),
        ("yonerge asiriuzunluk", ["yoner", "ge", "asiri", "uzunl", "uk"]),
        ("kayit 240 : x", ["kayit", "240", ":", "x"]),
        (L.GUIDELINE, GUIDELINE_PIECES),
    ],
)
def test_tokenize_by_hand(text, pieces):
    assert L.tokenize(text) == pieces


def test_the_sample_prompt_has_46_tokens():
    # guideline 23 + flag words 3 + 4 + ". kaynak belge . kayit 2 :" 8 + text 8 = 46
    assert len(L.tokenize(SAMPLE_PROMPT)) == 23 + 3 + 4 + 8 + 8 == 46


# ---------------------------------------------------------------- label scores and softmax


def test_scores_of_the_sample_prompt():
    # prior 0.75 / 0.15; 'rolde' and 'damga' are cues for zararli (1.0 each)
    assert label_scores(L.tokenize(SAMPLE_PROMPT)) == {"temiz": 0.75, "zararli": 0.15 + 1.0 + 1.0}


def test_scores_count_the_spurious_cue_heavier():
    tokens = L.tokenize("tek yonerge asiriuzunluk")
    assert label_scores(tokens) == {"temiz": 0.75, "zararli": 0.15 + 1.0 + 1.3}
    assert _label_scores(tokens, L.PRIOR, L.CUE_TABLE, {}) == {"temiz": 0.75, "zararli": 1.15}


def test_scores_count_every_occurrence_and_the_no_flag_word():
    assert label_scores(L.tokenize("yonerge yonerge"))["zararli"] == 0.15 + 1.0 + 1.0
    assert label_scores(L.tokenize("yok")) == {"temiz": 0.75 + 1.0, "zararli": 0.15}
    assert _label_scores(L.tokenize("yok"), L.PRIOR, {}, L.SPURIOUS) == dict(L.PRIOR)


def test_softmax_at_temperature_0_3():
    t, z = 0.75, 0.15 + 1.0 + 1.0
    e_t, e_z = math.exp(t / 0.3), math.exp(z / 0.3)
    plan = L.SimulatedModel(0.30).plan(SAMPLE_PROMPT)
    assert plan.labels == ("temiz", "zararli")
    assert plan.weights == pytest.approx((e_t / (e_t + e_z), e_z / (e_t + e_z)), rel=1e-12)
    assert plan.weights[0] == pytest.approx(0.00931, abs=1e-5)  # 1 / (1 + e^(1.4/0.3))


def test_temperature_zero_takes_the_most_likely_label():
    plan = L.SimulatedModel(0).plan(SAMPLE_PROMPT)
    assert plan.weights is None and plan.fixed_label == "zararli"
    assert L.SimulatedModel(0).call(SAMPLE_PROMPT, 12345).text == "zararli"


@pytest.mark.parametrize(
    "prior, prompt",
    [
        ({"temiz": 0.5, "zararli": 0.5}, "tek kayit"),
        ({"temiz": 1.15, "zararli": 0.15}, "tek yonerge"),  # 1.15 against 0.15 + 1.0
    ],
)
def test_a_tie_at_temperature_zero_goes_to_temiz(prior, prompt):
    model = L.SimulatedModel(0, prior=prior)
    assert model.plan(prompt).fixed_label == "temiz"
    assert model.call(prompt, 7).text == "temiz"


def test_a_tiny_temperature_is_the_most_likely_label_without_overflow():
    weights = label_weights({"temiz": 0.75, "zararli": 2.15}, 1e-9)
    assert weights == [0.0, 1.0]
    assert L.SimulatedModel(1e-9).call(SAMPLE_PROMPT, 3).text == "zararli"


def hand_weights(prompt_scores, temperature):
    e = [math.exp(prompt_scores[a] / temperature) for a in ("temiz", "zararli")]
    return [v / sum(e) for v in e]


@pytest.mark.parametrize("seed", range(12))
def test_sampled_label_follows_the_draw(seed):
    # 'tek yonerge': zararli 1.15 against temiz 0.75 -> about 0.79 for zararli at T=0.3
    prompt = "tek yonerge"
    u = uniforms(seed ^ fnv(prompt), 1)[0]
    label = ("temiz", "zararli")[choose(u, hand_weights({"temiz": 0.75, "zararli": 1.15}, 0.3))]
    reply = L.SimulatedModel(0.30).call(prompt, seed)
    assert reply == L.Reply("ok", 3, 1 if label == "temiz" else 2, label)


def test_both_labels_occur_across_seeds_of_a_middling_prompt():
    w = hand_weights({"temiz": 0.75, "zararli": 1.15}, 0.3)
    drawn = {choose(uniforms(s ^ fnv("tek yonerge"), 1)[0], w) for s in range(12)}
    assert drawn == {0, 1}  # so the test above sees both branches


def test_the_lessons_sample_call():
    reply = L.SimulatedModel().call(SAMPLE_PROMPT, L.SEED)
    assert reply == L.Reply("ok", 46, 2, "zararli")


# ---------------------------------------------------------------- free-form replies


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5, 2**32, 2**32 + 1, 2**40 + 9])
def test_without_tek_the_reply_is_free_form(seed):
    # temperature 0: the label is fixed, the only draw picks the form
    prompt = "kaydi oku : yonerge"
    u = uniforms(seed ^ fnv(prompt), 1)[0]
    form = FORMS[choose(u, FREE_FORM_WEIGHTS)]
    reply = L.SimulatedModel(0).call(prompt, seed)
    assert reply.text == form.format("zararli")
    assert reply.output_tokens == FORM_TOKENS[(form, "zararli")]
    assert L.read_label(reply.text) == (None if form.startswith("deger") else "zararli")


@pytest.mark.parametrize("seed", range(6))
def test_free_form_at_temperature_takes_label_then_form(seed):
    prompt = "kaydi oku : yonerge"
    u = uniforms(seed ^ fnv(prompt), 2)
    label = ("temiz", "zararli")[choose(u[0], hand_weights({"temiz": 0.75, "zararli": 1.15}, 0.3))]
    assert L.SimulatedModel(0.3).call(prompt, seed).text == FORMS[
        choose(u[1], FREE_FORM_WEIGHTS)
    ].format(label)


# ---------------------------------------------------------------- output cap


def test_an_output_cap_of_one_cuts_zararli_but_not_temiz():
    capped = L.SimulatedModel(0, max_output=1)
    assert capped.call("tek yonerge", 1) == L.Reply("ok", 3, 1, "zarar")
    assert L.read_label("zarar") is None
    assert capped.call("tek yok", 1) == L.Reply("ok", 2, 1, "temiz")


def test_max_output_per_call_overrides_the_models_cap():
    model = L.SimulatedModel(0)
    assert model.call("tek yonerge", 1, max_output=1).text == "zarar"
    assert model.call("tek yonerge", 1, max_output=2).text == "zararli"  # 2 pieces fit
    assert model.call("tek yonerge", 1).text == "zararli"


def test_a_cut_free_form_reply_is_rejoined_from_its_pieces():
    prompt = "kaydi oku : yonerge"
    seed = next(
        s for s in range(100) if choose(uniforms(s ^ fnv(prompt), 1)[0], FREE_FORM_WEIGHTS) == 0
    )
    reply = L.SimulatedModel(0, max_output=4).call(prompt, seed)
    assert reply == L.Reply("ok", 5, 4, "kayit zarar li gorun")
    assert L.read_label(reply.text) is None


# ---------------------------------------------------------------- window and rate limit


def test_a_prompt_longer_than_the_window_is_refused_but_counted():
    model = L.SimulatedModel(0, window=10)
    assert model.call("tek " + "a " * 9, 1).status == "ok"  # 10 tokens
    assert model.call("tek " + "a " * 10, 1) == L.Reply("context_overflow", 11, 0, "")
    assert model.calls == 2


def test_overflow_is_checked_before_the_rate_limit():
    model = L.SimulatedModel(0)
    for _ in range(36):
        assert model.call("tek yok", 1).status == "ok"
    long_prompt = "tek " + "a " * 240  # 241 tokens
    assert model.call(long_prompt, 1) == L.Reply("context_overflow", 241, 0, "")  # call 37
    assert model.calls == 37
    assert model.call("tek yok", 1).status == "ok"  # call 38


def test_every_37th_call_since_reset_is_rate_limited():
    model = L.SimulatedModel(0)
    statuses = [model.call("tek yok", s).status for s in range(80)]
    assert [i + 1 for i, s in enumerate(statuses) if s != "ok"] == [37, 74]
    model.reset()
    assert model.calls == 0
    statuses = [model.call("tek yok", 1) for _ in range(37)]
    assert statuses[-1] == L.Reply("rate_limit", 2, 0, "")  # input tokens still counted
    assert all(r.status == "ok" for r in statuses[:-1])


def test_the_rate_limit_period_can_be_set():
    model = L.SimulatedModel(0, rate_limit_every=3)
    assert [model.call("tek yok", 1).status for _ in range(7)] == [
        "ok",
        "ok",
        "rate_limit",
        "ok",
        "ok",
        "rate_limit",
        "ok",
    ]


def test_models_have_their_own_counters():
    a, b = L.SimulatedModel(), L.SimulatedModel()
    for _ in range(5):
        a.call("tek yok", 1)
    assert (a.calls, b.calls) == (5, 0)


# ---------------------------------------------------------------- plan and settings


def test_plan_is_the_seed_independent_part():
    plan = L.SimulatedModel(0.3).plan(SAMPLE_PROMPT)
    assert (plan.input_tokens, plan.overflow, plan.single_label, plan.trace) == (
        46,
        False,
        True,
        fnv(SAMPLE_PROMPT),
    )
    assert L.SimulatedModel(0.3).plan("kaydi oku").single_label is False
    assert L.SimulatedModel(0.3, window=45).plan(SAMPLE_PROMPT).overflow is True


def test_settings_are_read_only_copies():
    model = L.SimulatedModel(0.5, cues={"yoner": "zararli"}, spurious={}, window=50, max_output=3)
    assert (model.temperature, model.window, model.max_output) == (0.5, 50, 3)
    model.cues["gizli"] = "zararli"
    assert model.cues == {"yoner": "zararli"} and model.spurious == {}
    assert model.prior == {"temiz": 0.75, "zararli": 0.15}
    with pytest.raises(AttributeError):
        model.temperature = 1.0


def test_lesson_constants():
    assert (L.WINDOW, L.MAX_OUTPUT, L.RATE_LIMIT_EVERY) == (240, 24, 37)
    assert L.LABELS == ("temiz", "zararli")
    assert L.PRIOR == {"temiz": 0.75, "zararli": 0.15}
    assert L.SPURIOUS == {"asiri": "zararli"}
    assert L.CUE_TABLE == {
        "yoner": "zararli",
        "gizli": "zararli",
        "yanet": "zararli",
        "damga": "zararli",
        "rolde": "zararli",
        "dagil": "zararli",
        "yok": "temiz",
    }


# ---------------------------------------------------------------- a vanishing temperature


@pytest.mark.parametrize("temperature", [1e-300, 1e-308, 1e-310, 5e-324])
def test_a_vanishing_temperature_gives_the_limit_at_zero(temperature):
    # score / T overflows to inf below about 1e-308; the weights are then the T -> 0 limit
    for prompt in (SAMPLE_PROMPT, "tek yok", "tek yonerge", "tek asiriuzunluk"):
        assert label_probabilities(prompt, temperature) == label_probabilities(prompt, 0)
    assert label_weights({"temiz": 0.75, "zararli": 2.15}, temperature) == [0.0, 1.0]
    assert label_weights({"temiz": 1.75, "zararli": 0.15}, temperature) == [1.0, 0.0]
    assert label_weights({"temiz": 1.0, "zararli": 1.0}, temperature) == [0.5, 0.5]  # a tie
