"""Exercise checks for notebooks/07_judge_panel.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from ..criteria import DEFAULT_RULES, rule_filter
from ..panel import DIVERSE, ON_UNREADABLE, Panel, judge_models
from ..panel_study import FREE_FORM_GUIDELINE
from ..records import SEED, make_records
from ..simulator import FLAG_WORD
from ._common import _say

CHANGE_SEEDS = 200
"""Panel seeds (from the lesson's seed on) over which 07's exercise 2 averages."""


def check_rule_ask(ask):
    """07, exercise 1: an ask that answers like the rule filter, run as a one-judge panel."""
    records = make_records()
    if not callable(ask):
        return _say(False, f"give a function ask(prompt, seed) that returns 'zararli' or "
                           f"'temiz' (got {type(ask).__name__}).")
    try:
        run = Panel([ask]).run(records, SEED)
    except Exception as error:      # the student's code may fail in any way: give a hint
        return _say(False, f"calling your ask failed ({type(error).__name__}: {error}). It is "
                           "called as ask(prompt, seed) with the prompt text and a whole "
                           "number, and must return text.")
    wrong = [r.no for r in records if run.decide(r) != rule_filter(r)]
    if run.unreadable:
        return _say(False, f"{run.unreadable} replies had no label in them (read as harmful, "
                           "the panel's default). Return exactly 'zararli' or 'temiz'.")
    if wrong:
        words = ", ".join(FLAG_WORD[f] for f in DEFAULT_RULES)
        return _say(False, f"{len(wrong)} records are decided unlike the rule filter (first: "
                           f"record {wrong[0]}). The four rules appear in the prompt as the "
                           f"words {words}.")
    return _say(True, f"your ask decides all {len(records)} records as the rule filter does, "
                      f"for {run.calls} calls: the panel needs nothing but a callable, so a "
                      "rule, a simulator or a real model client can sit in the same seat.")


def changed_by_rule(seeds=None):
    """Mean number of records the diverse quorum-3 panel decides differently with the
    free-form guideline than with the lesson's guideline, per ``on_unreadable`` rule."""
    import numpy as np

    records = make_records()
    seeds = range(SEED, SEED + CHANGE_SEEDS) if seeds is None else seeds
    readable = Panel(judge_models(*DIVERSE), quorum=3).run_many(records, seeds).harmful
    out = {}
    for rule in ON_UNREADABLE:
        panel = Panel(judge_models(*DIVERSE), quorum=3, on_unreadable=rule)
        free = panel.run_many(records, seeds, FREE_FORM_GUIDELINE).harmful
        out[rule] = float(np.mean((free != readable).sum(axis=1)))
    return out


def check_unreadable_rule(rule):
    """07, exercise 2: the rule that keeps the panel closest to its decisions without
    unreadable replies."""
    if not isinstance(rule, str) or rule not in ON_UNREADABLE:
        return _say(False, f"answer with one of {', '.join(map(repr, ON_UNREADABLE))} "
                           f"(got {rule!r}).")
    changed = changed_by_rule()
    best = min(changed, key=changed.get)
    table = ", ".join(f"{k} {v:.2f}" for k, v in changed.items())
    if rule == best:
        return _say(True, f"'{rule}' moves the fewest decisions on average over "
                          f"{CHANGE_SEEDS} panel seeds ({table} records). A sample that "
                          "cannot be read says nothing; dropping it lets the judge's other "
                          "samples and the other judges decide.")
    return _say(False, f"'{rule}' moves {changed[rule]:.2f} records on average; another rule "
                       "moves fewer. Which rule treats an unreadable sample as no evidence "
                       "either way?")
