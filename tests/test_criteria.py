"""lessonlib.criteria: the rule filter blocks a record when any chosen flag is set."""

import pytest

import lessonlib as L
from lesson_defs import record

FOUR = ("instruction_mode", "hidden_field_name", "side_effect_tool_name", "source_stamp_mismatch")


def test_default_rules_are_the_lessons_four():
    assert L.DEFAULT_RULES == FOUR


@pytest.mark.parametrize(
    "flags, blocked",
    [
        ((), False),
        (("instruction_mode",), True),
        (("hidden_field_name",), True),
        (("side_effect_tool_name",), True),
        (("source_stamp_mismatch",), True),
        (("role_change_request",), False),  # not one of the four rules
        (("unusual_stamp_distribution", "excessive_length"), False),  # corrupted_input's flags
        (("role_change_request", "source_stamp_mismatch"), True),  # the lesson's sample record
    ],
)
def test_default_rules_by_hand(flags, blocked):
    r = record(flags=flags)
    assert L.rule_filter(r) is blocked
    assert L.make_rule_filter()(r) is blocked


def test_a_wider_rule_set_reads_the_corrupted_input_flags():
    rules = FOUR + ("unusual_stamp_distribution",)
    r = record(cls="corrupted_input", flags=("unusual_stamp_distribution",))
    assert not L.rule_filter(r)
    assert L.rule_filter(r, rules) and L.make_rule_filter(rules)(r)


def test_rules_may_be_any_collection_and_empty_blocks_nothing():
    r = record(flags=("excessive_length",))
    assert L.rule_filter(r, ["excessive_length"]) and L.rule_filter(r, {"excessive_length"})
    assert not L.rule_filter(r, ())
    assert not L.make_rule_filter([])(r)


def test_make_rule_filter_names_its_rules():
    assert L.make_rule_filter(("instruction_mode", "hidden_field_name")).__name__ == (
        "rule_filter[instruction_mode,hidden_field_name]"
    )


def test_make_rule_filter_copies_the_rules():
    rules = ["instruction_mode"]
    decide = L.make_rule_filter(rules)
    rules.append("excessive_length")
    assert not decide(record(flags=("excessive_length",)))


def test_lesson_criteria_counts():
    # criteria row of the lesson: precision 0.7629 = 74/97, recall 0.7957 = 74/93,
    # false block rate 0.1565 = 23/147 on 93 harmful and 147 clean records
    scores = L.measure(L.make_records(), L.rule_filter)
    assert (scores["tp"], scores["fp"], scores["fn"], scores["tn"]) == (74, 23, 19, 124)
    assert (scores["precision"], scores["recall"], scores["false_block_rate"]) == (
        0.7629,
        0.7957,
        0.1565,
    )
