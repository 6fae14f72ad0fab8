"""Notebook 02 - the criteria-based approach: a hand-written rule filter."""

from __future__ import annotations

from ._checks import check_names
from .records import FEATURES, check_record

DEFAULT_RULES = ("instruction_mode", "hidden_field_name", "side_effect_tool_name",
                 "source_stamp_mismatch")
"""The lesson's four rules.  Note what is missing: the two flags of corrupted_input."""


def rule_filter(record, rules=DEFAULT_RULES):
    """True (block) when ``record`` has any of the flags named in ``rules`` (notebook 02)."""
    check_record(record)
    return any(record.features[name] for name in check_names("rules", rules, FEATURES))


def make_rule_filter(rules=DEFAULT_RULES):
    """A one-argument decision function for ``measure`` using the given rules (notebook 02)."""
    rules = check_names("rules", rules, FEATURES)

    def decide(record):
        return any(record.features[name] for name in rules)

    decide.__name__ = "rule_filter[" + ",".join(rules) + "]"
    return decide
