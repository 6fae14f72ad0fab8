"""Notebook 02 - the criteria-based approach: a hand-written rule filter."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ._checks import check_names
from .records import FEATURES, Record, check_record

DEFAULT_RULES = (
    "instruction_mode",
    "hidden_field_name",
    "side_effect_tool_name",
    "source_stamp_mismatch",
)
"""The lesson's four rules.  Note what is missing: the two flags of corrupted_input."""

__all__ = ["DEFAULT_RULES", "make_rule_filter", "rule_filter"]


def rule_filter(record: Record, rules: Iterable[str] = DEFAULT_RULES) -> bool:
    """True (block) when ``record`` has any of the flags named in ``rules`` (notebook 02)."""
    check_record(record)
    if rules is not DEFAULT_RULES:  # the lesson's rules are known to be good
        rules = check_names("rules", rules, FEATURES)
    return _blocks(record, rules)


def _blocks(record, rules):
    """:func:`rule_filter` for a checked record and checked rules."""
    return any(record.features[name] for name in rules)


def make_rule_filter(rules: Iterable[str] = DEFAULT_RULES) -> Callable[[Record], bool]:
    """A one-argument decision function for ``measure`` using the given rules (notebook 02)."""
    rules = check_names("rules", rules, FEATURES)

    def decide(record):
        return _blocks(record, rules)

    decide.__name__ = "rule_filter[" + ",".join(rules) + "]"
    return decide


# the decision protocol (metrics.trusted): the lesson's rules, no check per checked record
_lesson_rules = make_rule_filter()
rule_filter.decider = lambda records: _lesson_rules  # type: ignore[attr-defined]
