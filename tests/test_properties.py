"""Property tests (hypothesis, derandomized profile 'course' in conftest.py)."""

import string

from hypothesis import given
from hypothesis import strategies as st

import lessonlib as L
from lessonlib.simulator import PIECE

seeds = st.integers(min_value=0, max_value=2**70)


@given(t=st.integers(min_value=-(2**70), max_value=2**70), k=st.integers(1, 50))
def test_generator_values_stay_in_unit_interval(t, k):
    draw = L.generator(t)
    values = [draw() for _ in range(k)]
    assert all(0.0 <= v < 1.0 for v in values)


@given(text=st.text(max_size=80) | st.text(alphabet=string.ascii_letters + " ,\t\n", max_size=80))
def test_tokenize_pieces_are_short_and_lose_only_spaces(text):
    pieces = L.tokenize(text)
    assert all(0 < len(p) <= 5 for p in pieces)
    assert "".join(pieces) == "".join(text.lower().split())


@given(n=st.integers(1, 60), seed=seeds, blocked=st.sets(st.integers(1, 60)))
def test_measure_totals_and_rates(n, seed, blocked):
    records = L.make_records(n, seed)
    scores = L.measure(records, lambda r: r.no in blocked)
    assert scores["tp"] + scores["fp"] + scores["fn"] + scores["tn"] == n
    for key in ("precision", "recall", "false_block_rate"):
        assert 0.0 <= scores[key] <= 1.0
    agree = L.agreement(records, lambda r: r.no in blocked)
    assert 0.0 <= agree <= 1.0
    assert agree == (scores["tp"] + scores["tn"]) / n


def lesson_tokenize(text):
    """The lesson's definition of the tokenizer, word by word (notebook 03): lower-case, set
    commas apart, split on whitespace, cut each word into PIECE-character pieces."""
    pieces = []
    for word in text.lower().replace(",", " , ").split():
        pieces += [word[i : i + PIECE] for i in range(0, len(word), PIECE)]
    return pieces


# every character str.split() takes for whitespace (and some it does not), commas, letters
# whose lower case is longer (U+0130) or is another letter, digits and punctuation
SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
TRICKY = SPACES + ",,\u0130I\u00dfA\u03a3z09:.\u200b\ufeff-"


@given(
    text=st.text(max_size=120)
    | st.text(alphabet=TRICKY, max_size=120)
    | st.text(alphabet=string.ascii_letters + " ,", max_size=120)
)
def test_tokenize_equals_the_lessons_definition(text):
    assert L.tokenize(text) == lesson_tokenize(text)


def test_tokenize_equals_the_lessons_definition_on_every_prompt_of_the_lesson():
    prompts = [L.build_prompt(r) for r in L.make_records()]
    assert [L.tokenize(p) for p in prompts] == [lesson_tokenize(p) for p in prompts]


guidelines = st.sampled_from([L.GUIDELINE, "kaydi oku : ", "tek etiket : ", "a " * 230, ""])


@given(
    n=st.integers(1, 45),
    seed=seeds,
    temperature=st.floats(0, 3),
    guideline=guidelines,
    max_output=st.integers(1, 30),
    spurious=st.booleans(),
    cues=st.sets(st.sampled_from(sorted(L.CUE_TABLE))),
    unreadable_as=st.sampled_from(["clean", "harmful"]),
)
def test_judge_run_accounting(
    n, seed, temperature, guideline, max_output, spurious, cues, unreadable_as
):
    records = L.make_records(n, seed % 1000)
    run = L.run_judge(
        records,
        seed,
        temperature=temperature,
        guideline=guideline,
        cues={k: L.CUE_TABLE[k] for k in cues},
        spurious=L.SPURIOUS if spurious else {},
        max_output=max_output,
        unreadable_as=unreadable_as,
    )
    assert run.calls == len(records) + run.retries
    assert run.unreadable <= run.retries <= len(records)
    assert sum(run.retry_causes.values()) == run.retries
    assert sorted(run.labels) == [r.no for r in records]
    assert set(run.labels.values()) <= set(L.LABELS)


@given(n=st.integers(1, 40), k=st.integers(0, 40), seed=seeds)
def test_make_records_is_a_prefix_of_a_longer_set(n, k, seed):
    assert L.make_records(n, seed) == L.make_records(n + k, seed)[:n]


def old_tokenize(text):
    """The tokenizer as first written (quadratic in a word's length): the reference."""
    pieces = []
    for word in text.lower().replace(",", " , ").split():
        while len(word) > 5:
            pieces.append(word[:5])
            word = word[5:]
        pieces.append(word)
    return pieces


@given(
    text=st.text(max_size=300)
    | st.text(alphabet="abcİI ,\t", max_size=300)
    | st.lists(st.sampled_from(["a" * 23, "x" * 5, "yy" * 31, ",", " "]), max_size=12).map("".join)
)
def test_tokenize_gives_the_tokens_of_its_first_definition(text):
    assert L.tokenize(text) == old_tokenize(text)
