"""lessonlib.records: generator, pick, trace id, the record set, the human label.

Expectations are worked out by hand from the lesson's definitions
(tests/lesson_defs.py writes them out in plain integer arithmetic).
"""

import csv

import pytest

import lessonlib as L
from lesson_defs import STRIDE, choose, fnv, record, scramble, uniforms
from lessonlib._rng import mix32
from lessonlib.records import draw_record

# ---------------------------------------------------------------- the lesson's tables (facts)


def test_constants_are_the_lessons():
    assert L.SEED == 20260218
    assert L.CLASSES == (
        "clean",
        "indirect_instruction",
        "hidden_field_request",
        "privilege_escalation",
        "source_spoofing",
        "corrupted_input",
    )
    assert L.SOURCES == ("user", "retrieved_document", "tool_output")
    assert L.FEATURES == (
        "instruction_mode",
        "role_change_request",
        "hidden_field_name",
        "side_effect_tool_name",
        "source_stamp_mismatch",
        "unusual_stamp_distribution",
        "excessive_length",
    )
    assert L.CLASS_SHARE == (0.62, 0.10, 0.07, 0.07, 0.07, 0.07)
    assert L.PROFILE["corrupted_input"] == (0.05, 0.03, 0.04, 0.03, 0.06, 0.80, 0.62)
    assert L.PROFILE["clean"] == (0.06, 0.02, 0.05, 0.03, 0.02, 0.04, 0.05)
    assert L.SOURCE_SHARE["indirect_instruction"] == (0.05, 0.70, 0.25)
    assert len(L.TEXTS) == 6 and L.TEXTS[2] == "mahallede kesinti ne zaman bitecek"


# ---------------------------------------------------------------- generator


def test_seed_zero_worked_by_hand():
    # t = 0: every xorshift and product is 0, so the state starts at 0 and the
    # first step gives the LCG's increment.
    assert mix32(0) == 0
    draw = L.generator(0)
    first = 1013904223
    second = (first * 1664525 + 1013904223) % 2**32
    assert draw() == first / 2**32
    assert draw() == second / 2**32


def test_seed_one_worked_by_hand():
    x = 1 * 2246822507 % 2**32  # 1 ^ (1 >> 16) == 1
    x = ((x ^ (x >> 13)) * 3266489909) % 2**32
    start = x ^ (x >> 16)
    assert mix32(1) == start
    assert L.generator(1)() == ((start * 1664525 + 1013904223) % 2**32) / 2**32


@pytest.mark.parametrize(
    "t", [0, 1, 6151, L.SEED, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 3, 2**64, 10**30]
)
def test_generator_follows_the_definition(t):
    draw = L.generator(t)
    assert [draw() for _ in range(6)] == uniforms(t, 6)


def test_seeds_of_two_to_the_32_are_distinct_from_their_low_bits():
    # the high bits enter through t >> 16, so 2**32 is not the same stream as 0
    assert scramble(2**32) != scramble(0)
    assert L.generator(2**32)() == uniforms(2**32, 1)[0] != L.generator(0)()


def test_generator_streams_are_independent():
    a, b = L.generator(7), L.generator(7)
    a(), a()
    assert b() == uniforms(7, 1)[0]


# ---------------------------------------------------------------- pick


@pytest.mark.parametrize(
    "u, weights, index",
    [
        (0.0, (0.5, 0.5), 0),
        (0.4999, (0.5, 0.5), 0),
        (0.5, (0.5, 0.5), 1),  # u < running sum is strict
        (0.3, (0.0, 0.3, 0.7), 2),  # a zero weight is never chosen
        (0.99, (0.2, 0.3), 1),  # past the total: the last index
        (0.61, (0.62, 0.10, 0.07, 0.07, 0.07, 0.07), 0),
        (0.62, (0.62, 0.10, 0.07, 0.07, 0.07, 0.07), 1),
        (0.95, (0.62, 0.10, 0.07, 0.07, 0.07, 0.07), 5),
        (0.0, (1.0,), 0),
    ],
)
def test_pick_on_hand_chosen_weights(u, weights, index):
    assert L.pick(u, weights) == index
    assert choose(u, weights) == index


def test_pick_takes_any_iterable_of_weights():
    assert L.pick(0.7, [0.25, 0.25, 0.25, 0.25]) == 2
    assert L.pick(0.7, iter([0.25, 0.25, 0.25, 0.25])) == 2


# ---------------------------------------------------------------- trace id


def test_trace_id_worked_by_hand():
    offset, prime = 2166136261, 16777619
    assert L.trace_id("") == offset
    assert L.trace_id("a") == ((offset ^ 97) * prime) % 2**32 == 0xE40C292C
    assert L.trace_id("ab") == (((((offset ^ 97) * prime) % 2**32) ^ 98) * prime) % 2**32
    assert L.trace_id(12) == L.trace_id("12")  # the str() of the message is hashed
    assert L.trace_id("kayit 2") == fnv("kayit 2")


# ---------------------------------------------------------------- the record set


def hand_record(seed, i):
    """Record i+1 of the set drawn from seed, worked out from the lesson's definition."""
    u = uniforms(seed + STRIDE * i, 11)
    cls = L.CLASSES[choose(u[0], L.CLASS_SHARE)]
    source = L.SOURCES[choose(u[1], L.SOURCE_SHARE[cls])]
    flags = tuple(u[2 + j] < p for j, p in enumerate(L.PROFILE[cls]))
    return (i + 1, cls, source, flags, L.TEXTS[int(u[9] * 6)], 40 + int(u[10] * 260))


def as_tuple(r):
    return (r.no, r.cls, r.source, tuple(r.features.values()), r.text, r.length)


@pytest.mark.parametrize("seed", [0, 1, 7, L.SEED, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 10**30])
def test_records_follow_the_definition_for_any_seed(seed):
    records = L.make_records(5, seed)
    assert [as_tuple(r) for r in records] == [hand_record(seed, i) for i in range(5)]


@pytest.mark.parametrize("n", [1, 2, 17, 241])
def test_other_record_counts(n):
    records = L.make_records(n, 11)
    assert len(records) == n
    assert [r.no for r in records] == list(range(1, n + 1))
    assert as_tuple(records[-1]) == hand_record(11, n - 1)


def test_make_records_n_is_a_prefix_of_a_longer_set():
    assert L.make_records(3, 5) == L.make_records(10, 5)[:3]
    assert L.make_records(240) == L.make_records(300)[:240]


def test_record_i_uses_seed_plus_6151_i():
    # record 5 of seed s is record 1 of seed s + 4 * 6151 (apart from its number)
    shifted = L.make_records(1, 99 + 4 * 6151)[0]
    fifth = L.make_records(5, 99)[4]
    assert as_tuple(shifted)[1:] == as_tuple(fifth)[1:]
    assert draw_record(4, 99) == fifth


def test_default_set_is_the_lessons():
    records = L.make_records()
    assert records == L.make_records(240, L.SEED)
    counts = {c: sum(r.cls == c for r in records) for c in L.CLASSES}
    # class sizes printed in the lesson's class table
    assert counts == {
        "clean": 147,
        "indirect_instruction": 24,
        "hidden_field_request": 17,
        "privilege_escalation": 10,
        "source_spoofing": 23,
        "corrupted_input": 19,
    }
    sample = records[1]  # the lesson's sample call
    assert (sample.no, sample.cls, sample.source, sample.text) == (
        2,
        "source_spoofing",
        "retrieved_document",
        "mahallede kesinti ne zaman bitecek",
    )
    assert sample.features.on() == ("role_change_request", "source_stamp_mismatch")


def test_lengths_and_texts_stay_in_range():
    for r in L.make_records(300, 3):
        assert 40 <= r.length < 300
        assert r.text in L.TEXTS


# ---------------------------------------------------------------- human label, Flags, Record


@pytest.mark.parametrize("cls", L.CLASSES)
def test_is_harmful_reads_the_class(cls):
    assert L.is_harmful(record(cls=cls)) is (cls != "clean")


def test_flags_is_a_read_only_mapping_in_features_order():
    flags = L.Flags([False, True, False, False, True, False, False])
    assert list(flags) == list(L.FEATURES)
    assert flags["role_change_request"] and not flags["instruction_mode"]
    assert flags.on() == ("role_change_request", "source_stamp_mismatch")
    assert repr(flags) == "Flags(role_change_request, source_stamp_mismatch)"
    with pytest.raises(KeyError):
        flags["no_such_flag"]
    with pytest.raises(TypeError, match="read-only"):
        flags["instruction_mode"] = True
    with pytest.raises(AttributeError):
        flags._values = (True,) * 7
    assert flags == {f: f in flags.on() for f in L.FEATURES}
    assert hash(flags) == hash(L.Flags(flags))


def test_flags_from_a_mapping_uses_the_names_not_the_order():
    mapping = {f: f == "excessive_length" for f in reversed(L.FEATURES)}
    assert L.Flags(mapping).on() == ("excessive_length",)


def test_as_row_has_one_column_per_flag():
    row = record(no=4, cls="source_spoofing", flags=("source_stamp_mismatch",), length=77).as_row()
    assert list(row) == ["no", "cls", "source", *L.FEATURES, "text", "length"]
    assert row["source_stamp_mismatch"] is True and row["instruction_mode"] is False


def test_write_records_csv_worked_by_hand(tmp_path):
    path = tmp_path / "r.csv"
    L.write_records_csv(path, [record(no=1, flags=("hidden_field_name",), text="a, b", length=41)])
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows == [
        ["no", "cls", "source", *L.FEATURES, "text", "length"],
        ["1", "clean", "user", "0", "0", "1", "0", "0", "0", "0", "a, b", "41"],
    ]


def test_by_class_groups_in_classes_order_and_drops_empty_classes():
    from lessonlib.records import by_class

    records = L.make_records(30)
    groups = by_class(records)
    assert list(groups) == [c for c in L.CLASSES if any(r.cls == c for r in records)]
    assert sum(len(m) for m in groups.values()) == 30
    assert all(r.cls == cls for cls, members in groups.items() for r in members)
    # order inside a class is the records' own order
    assert all([r.no for r in m] == sorted(r.no for r in m) for m in groups.values())


def test_flags_take_zero_and_one_and_numpy_bools():
    import numpy as np

    assert L.Flags([1, 0, 0, 0, 0, 0, 1]).on() == ("instruction_mode", "excessive_length")
    assert L.Flags(np.array([True] + [False] * 6)).on() == ("instruction_mode",)
