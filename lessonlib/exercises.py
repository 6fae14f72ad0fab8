"""Checks for the exercises at the end of each step notebook.

Every check takes the student's answer, prints one message that starts with
``PASS:`` or ``Not yet:`` (a hint), and returns True or False.  The right
answer is always computed here from lessonlib on the lesson's record set -
never typed in - so a check stays right if the library's definitions change.

A wrong answer, including one of the wrong kind (a string where a number is
expected, an unknown flag name), never raises: it gets a hint.

This module is the one home of every notebook's checks (01 to 07); the
helpers that compute a right answer (e.g. :func:`lowest_overlap_temperature`,
:func:`changed_by_rule`) live next to the check that uses them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping

from ._checks import check_int, check_number
from .criteria import DEFAULT_RULES, make_rule_filter, rule_filter
from .judge import run_judge
from .many import run_judge_many
from .metrics import class_recall, disagreements, measure, resolution, steps
from .records import CLASSES, FEATURES, RECORD_STRIDE, SEED, Record, draw_record, is_harmful
from .records import make_records
from .panel import DIVERSE, ON_UNREADABLE, Panel, judge_models
from .panel_study import FREE_FORM_GUIDELINE
from .simulator import CUE_TABLE, FLAG_WORD, SPURIOUS, TEMPERATURE, label_scores, tokenize
from .variance import criteria_figures, fbr_comparison, temperature_sweep

WIDTH = 88
LESSON_TEMPERATURE = TEMPERATURE


def _say(passed, message):
    """Print 'PASS: message' or 'Not yet: message' (wrapped) and return ``passed``."""
    head = "PASS: " if passed else "Not yet: "
    print(textwrap.fill(head + message, width=WIDTH, subsequent_indent="  "))
    return passed


def _is_whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _names(value):
    """A collection of names as a tuple, or None when ``value`` is not one."""
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        return None
    value = tuple(value)
    return value if all(isinstance(v, str) for v in value) else None


def _names_hint(names, allowed, unknown, required=(), missing=""):
    """The hint for an answer's names, or None when they are fine.

    Names not in ``allowed`` come first: ``unknown`` with ``{}`` replaced by
    them (quoted).  Then the ``required`` names the answer left out:
    ``missing`` with ``{}`` replaced by them.
    """
    bad = [n for n in names if n not in allowed]
    if bad:
        return unknown.format(", ".join(map(repr, bad)))
    left = [n for n in required if n not in names]
    if left:
        return missing.format(", ".join(left))
    return None


# ---------------------------------------------------------------- 01 records

def check_flagged_clean_count(answer):
    """01, exercise 1: how many clean records carry at least one flag?"""
    records = make_records()
    clean = [r for r in records if not is_harmful(r)]
    truth = sum(1 for r in clean if r.features.on())
    flagged = sum(1 for r in records if r.features.on())
    if not _is_whole(answer):
        return _say(False, f"give a whole number (got {answer!r}). Hint: keep the rows of df "
                           "whose cls is 'clean', then count those with any flag set.")
    if answer == truth:
        return _say(True, f"{truth} of the {len(clean)} clean records carry at least one flag. "
                          "Any approach that reads every flag as a sign of harm is at risk of "
                          "blocking them - notebook 04 meets them again.")
    if answer == len(clean):
        return _say(False, "that is every clean record; count only those with at least one "
                           "flag set.")
    if answer == flagged:
        return _say(False, "that counts the harmful records too; keep only the clean ones.")
    return _say(False, f"{answer} is not it. Try df[df['cls'] == 'clean'][list(L.FEATURES)]"
                       ".any(axis=1).sum().")


def check_record(record, no=200):
    """01, exercise 2: build record number ``no`` on its own, without the ones before it."""
    check_int("no", no, minimum=1)
    truth = draw_record(no - 1)
    if not isinstance(record, Record):
        return _say(False, f"give a Record (got {type(record).__name__}). Hint: "
                           "lessonlib.records.draw_record(index) builds one record.")
    if record == truth:
        return _say(True, f"record {no} ({truth.cls}, source {truth.source}) comes from the "
                          f"generator seeded with SEED + {RECORD_STRIDE} * {no - 1} = "
                          f"{SEED + RECORD_STRIDE * (no - 1)} alone, so it never depends on "
                          "the records before it.")
    if record.no == no + 1:
        return _say(False, f"you built record {record.no}, one too far: draw_record(i) builds "
                           "record number i + 1 (record numbers start at 1, indexes at 0).")
    if record.no != no:
        return _say(False, f"you built record {record.no}; the exercise asks for record {no}.")
    return _say(False, f"right record number, but not the lesson's record {no}: was it drawn "
                       "from another seed? Use the lesson's SEED.")


# ------------------------------------------------------- 02 criteria filter

def check_corrupted_rule(rules, max_fbr=0.20):
    """02: add ONE rule that closes most of the corrupted_input gap, FBR <= ``max_fbr``."""
    max_fbr = check_number("max_fbr", max_fbr, minimum=0.0)
    records = make_records()
    names = _names(rules)
    if names is None:
        return _say(False, "give the rules as a tuple of flag names, e.g. "
                           "DEFAULT_RULES + ('a_flag_name',).")
    hint = _names_hint(names, FEATURES,
                       "unknown flag name(s) {}; the flags are: " + ", ".join(FEATURES) + ".",
                       DEFAULT_RULES, "keep the four default rules (missing: {}) and add one.")
    if hint:
        return _say(False, hint)
    extra = list(dict.fromkeys(n for n in names if n not in DEFAULT_RULES))
    if not extra:
        return _say(False, "these are the four default rules only: add one flag name, e.g. "
                           "DEFAULT_RULES + ('a_flag_name',).")
    if len(extra) > 1:
        return _say(False, f"you added {len(extra)} rules ({', '.join(extra)}); the exercise "
                           "asks for exactly one.")

    def score(flag):
        decide = make_rule_filter(DEFAULT_RULES + (flag,))
        return (class_recall(records, decide)["corrupted_input"][1],
                measure(records, decide)["false_block_rate"])

    base = class_recall(records, make_rule_filter(DEFAULT_RULES))["corrupted_input"][1]
    candidates = {f: score(f) for f in FEATURES if f not in DEFAULT_RULES}
    allowed = {f: s for f, s in candidates.items() if s[1] <= max_fbr}
    best = max((s[0] for s in allowed.values()), default=None)
    recall, fbr = candidates[extra[0]]
    if fbr > max_fbr:
        return _say(False, f"with {extra[0]} corrupted_input recall rises to {recall:.4f}, but "
                           f"the false block rate becomes {fbr:.4f}, above {max_fbr:.2f}. "
                           "The class carries another flag: try that one.")
    if recall <= base:
        return _say(False, f"{extra[0]} leaves corrupted_input recall at {recall:.4f}. Which "
                           "flags does this class carry? Look at PROFILE['corrupted_input'].")
    if recall < best:
        return _say(False, f"{extra[0]} lifts corrupted_input recall to {recall:.4f}; another "
                           f"single rule gets further within the {max_fbr:.2f} limit.")
    return _say(True, f"adding {extra[0]} lifts corrupted_input recall from {base:.4f} to "
                      f"{recall:.4f} while the false block rate stays at {fbr:.4f} "
                      f"(<= {max_fbr:.2f}). The gap was in the rules, not in the data.")


# ------------------------------------------------------ 03 judge simulator

def _single_flag_weight(flag):
    """The weight one flag word alone adds to 'zararli' (prior taken off)."""
    scores = label_scores(tokenize(FLAG_WORD[flag]), {"temiz": 0.0, "zararli": 0.0},
                          CUE_TABLE, SPURIOUS)
    return scores["zararli"]


def check_strongest_single_flag(flag):
    """03, exercise 1: which single flag pushes the judge's 'zararli' score up the most?"""
    weights = {f: _single_flag_weight(f) for f in FEATURES}
    top = max(weights.values())
    if flag not in FEATURES:
        return _say(False, f"give one flag name (got {flag!r}); the flags are: "
                           f"{', '.join(FEATURES)}.")
    if weights[flag] == top:
        piece = tokenize(FLAG_WORD[flag])[0]
        return _say(True, f"{flag}: its word {FLAG_WORD[flag]!r} starts with the piece "
                          f"{piece!r}, which the spurious table weighs {weights[flag]:.1f} - "
                          "more than any real cue. Weak evidence counted as heavy, and nothing "
                          "outside the model can turn it down.")
    return _say(False, f"{flag} adds {weights[flag]:.1f} to 'zararli'. One flag adds more: "
                       "tokenize each flag word (FLAG_WORD) and look its first piece up in "
                       "CUE_TABLE and SPURIOUS.")


def check_output_cap_unreadable(answer, max_output=1):
    """03, exercise 2: with ``max_output`` = 1, how many records stay unreadable?"""
    records = make_records()
    run = run_judge(records, max_output=max_output)
    if not _is_whole(answer):
        return _say(False, f"give a whole number (got {answer!r}). Hint: "
                           f"L.run_judge(records, max_output={max_output}).unreadable.")
    if answer == run.unreadable:
        recall = measure(records, run.decide)["recall"]
        return _say(True, f"{run.unreadable} records stay unreadable after the retry. "
                          f"'zararli' is {len(tokenize('zararli'))} tokens "
                          f"({' + '.join(tokenize('zararli'))}), so a cap of {max_output} cuts "
                          f"it; fail-open counts each such record clean and recall falls to "
                          f"{recall:.4f}.")
    if answer == run.retries:
        return _say(False, "that is the number of retries; some retried records were read on "
                           "the second try. Count the ones that stayed unreadable.")
    return _say(False, f"{answer} is not it. Run L.run_judge(records, max_output={max_output}) "
                       "and read its .unreadable count.")


# ---------------------------------------------------- 04 two-seed variance

def check_agreeing_temperature(temperature):
    """04, exercise 1: a temperature at which runs with SEED and SEED + 1 agree on every record."""
    if not _is_number(temperature) or temperature < 0:
        return _say(False, f"give a temperature, a number >= 0 (got {temperature!r}).")
    records = make_records()
    run1 = run_judge(records, SEED, temperature)
    run2 = run_judge(records, SEED + 1, temperature)
    changed = len(disagreements(run1.labels, run2.labels))
    if changed:
        return _say(False, f"at temperature {temperature:g} the two runs still differ on "
                           f"{changed} records. Lower the temperature.")
    usual = measure(records, run_judge(records, SEED, LESSON_TEMPERATURE).decide)
    usual = usual["false_block_rate"]
    fbr = measure(records, run1.decide)["false_block_rate"]
    both = sum(1 for r in records if not is_harmful(r) and run1.decide(r) and run2.decide(r))
    length_only = sum(1 for r in records
                      if r.features.on() == ("excessive_length",) and run1.decide(r))
    seven = make_rule_filter(FEATURES)
    like_filter = all(run1.decide(r) == seven(r) for r in records)
    message = (f"at temperature {temperature:g} both runs agree on all {len(records)} records: "
               f"the band is zero. The cost: the judge now repeats its mistakes. It blocks the "
               f"same {both} clean records in both runs (false block rate {fbr:.4f}, against "
               f"{usual:.4f} at {LESSON_TEMPERATURE:.2f}), and its spurious length cue decides "
               f"the same way every time ({length_only} records blocked on the excessive_length "
               "flag alone, whatever their class).")
    if like_filter:
        message += " It now decides exactly like a rule filter over all seven flags."
    return _say(True, message)


# ---------------------------------------------------- 05 class breakdown

def _class_counts(records):
    return {c: n for c, (n, _) in class_recall(records, lambda r: False).items()}


def check_class_resolutions(answer):
    """05, exercise 1: every harmful class's recall resolution (1 / its record count)."""
    counts = _class_counts(make_records())
    wanted = [c for c in CLASSES[1:] if c in counts]
    if not isinstance(answer, Mapping):
        return _say(False, "give a dict class name -> resolution, e.g. "
                           "{'hidden_field_request': 1 / 17, ...}.")
    hint = _names_hint(tuple(answer), CLASSES,
                       "unknown class name(s) {}; the harmful classes are: "
                       + ", ".join(wanted) + ".",
                       wanted, "still missing: {}. The resolution of a class is "
                               "1 / (its number of records).")
    if hint:
        return _say(False, hint)
    for cls in list(wanted) + (["clean"] if "clean" in answer else []):
        value = answer[cls]
        if not _is_number(value) or abs(value - resolution(counts[cls])) > 5e-5:
            return _say(False, f"{cls}: {value!r} is not its resolution. Divide 1 by the number "
                               "of records in the class (the 'records' column of the table).")
    coarsest = max(wanted, key=lambda c: resolution(counts[c]))
    return _say(True, f"the coarsest class is {coarsest} ({counts[coarsest]} records, one step "
                      f"= {resolution(counts[coarsest]):.4f}): a recall difference there needs "
                      "several steps before it means anything.")


def check_classes_beyond_one_step(classes):
    """05, exercise 2: the harmful classes whose criteria/judge recall gap exceeds one step."""
    records = make_records()
    run = run_judge(records, SEED)
    by_rule = class_recall(records, make_rule_filter(DEFAULT_RULES))
    by_judge = class_recall(records, run.decide)
    gap = {c: abs(steps(by_judge[c][1] - by_rule[c][1], by_rule[c][0]))
           for c in CLASSES[1:] if c in by_rule}
    truth = {c for c, n in gap.items() if n > 1}
    names = _names(classes)
    if names is None:
        return _say(False, "give a set of class names, e.g. {'corrupted_input'}.")
    hint = _names_hint(names, tuple(gap), "unknown or non-harmful class name(s) {}; the "
                                          "harmful classes are: " + ", ".join(gap) + ".")
    if hint:
        return _say(False, hint)
    extra = [c for c in gap if c in names and c not in truth]
    if extra:
        return _say(False, "; ".join(f"{c} differs by {gap[c]} step(s)" for c in extra)
                    + " - that is not more than one.")
    if set(names) != truth:
        return _say(False, f"you have {len(set(names))} of the {len(truth)} classes. Use "
                           "L.metrics.steps(judge - criteria, records_in_class) on every row.")
    detail = ", ".join(f"{c} {gap[c]} steps" for c in gap if c in truth)
    rest = max((n for c, n in gap.items() if c not in truth), default=0)
    return _say(True, f"{detail}. Every other row differs by at most {rest} step(s) of its "
                      "class's resolution - too little to count as a finding.")


# ------------------------------------------------------- 06 many seeds

EXERCISE_SEEDS = range(SEED, SEED + 1000)
"""Notebook 06's 1,000 seeds: the lesson's seed and the 999 after it."""


def fbr_below_share_without_spurious(records=None, seeds=EXERCISE_SEEDS):
    """Share of runs whose FBR is below the criteria's when the judge has no spurious cue."""
    records = make_records() if records is None else records
    return fbr_comparison(records, run_judge_many(records, seeds, spurious={}))[
        "share judge below"]


def check_fbr_without_spurious(answer):
    """06, exercise 1: the share of the 1,000 runs (spurious cue off) with FBR below the
    criteria filter's."""
    truth = fbr_below_share_without_spurious()
    if _is_number(answer) and answer >= 0 and abs(answer - truth) < 5e-4:
        return _say(True, f"without its spurious cue the judge blocks fewer clean records than "
                          f"the criteria filter in a share of {truth:.3f} of the "
                          f"{len(EXERCISE_SEEDS):,} runs.")
    return _say(False, "run run_judge_many(records, seeds, spurious={}) and compare each run's "
                       "false block rate (or its fp count) with the criteria filter's; give a "
                       "share between 0 and 1, not a percentage")


def lowest_overlap_temperature(records=None, seeds=EXERCISE_SEEDS, step=0.05, top=2.0):
    """Lowest temperature on a ``step`` grid whose 95% recall interval reaches the criteria's."""
    step = check_number("step", step)
    if step <= 0:
        raise ValueError(f"step must be a number > 0, got {step!r}")
    top = check_number("top", top, minimum=0.0)
    records = make_records() if records is None else records
    criteria = criteria_figures(records)["recall"]
    grid = [round(k * step, 10) for k in range(int(round(top / step)) + 1)]
    for row in temperature_sweep(records, grid, seeds):
        if row["recall low"] <= criteria:
            return row["temperature"]
    return None


def check_overlap_temperature(answer):
    """06, exercise 2: lowest temperature (steps of 0.05) where the recall gap is no longer
    clear."""
    truth = lowest_overlap_temperature()
    if _is_number(answer) and answer >= 0 and abs(answer - truth) < 1e-9:
        return _say(True, f"{truth:.2f} is the lowest temperature on the 0.05 grid at which "
                          "the low end of the judge's 95% recall interval reaches the criteria "
                          "filter's recall: there the judge's advantage in recall is no longer "
                          "clear.")
    return _say(False, "sweep the temperature in steps of 0.05 from 0 and stop at the first one "
                       "where the low end of the judge's 95% recall interval is at or below the "
                       "criteria filter's recall")


# ------------------------------------------------------- 07 judge panel

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
