"""Checks for the exercises at the end of each step notebook.

Every check takes the student's answer, prints one message that starts with
``PASS:`` or ``Not yet:`` (a hint), and returns True or False.  The right
answer is always computed here from lessonlib on the lesson's record set -
never typed in - so a check stays right if the library's definitions change.

A wrong answer, including one of the wrong kind (a string where a number is
expected, an unknown flag name), never raises: it gets a hint.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping

from .criteria import DEFAULT_RULES, make_rule_filter
from .judge import run_judge
from .metrics import class_recall, disagreements, measure, resolution, steps
from .records import CLASSES, FEATURES, RECORD_STRIDE, SEED, Record, draw_record, is_harmful
from .records import make_records
from .simulator import CUE_TABLE, FLAG_WORD, SPURIOUS, label_scores, tokenize

WIDTH = 88
LESSON_TEMPERATURE = 0.30


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
    records = make_records()
    names = _names(rules)
    if names is None:
        return _say(False, "give the rules as a tuple of flag names, e.g. "
                           "DEFAULT_RULES + ('a_flag_name',).")
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        return _say(False, f"unknown flag name(s) {', '.join(map(repr, unknown))}; the flags "
                           f"are: {', '.join(FEATURES)}.")
    missing = [r for r in DEFAULT_RULES if r not in names]
    if missing:
        return _say(False, f"keep the four default rules (missing: {', '.join(missing)}) and "
                           "add one.")
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
    unknown = [c for c in answer if c not in CLASSES]
    if unknown:
        return _say(False, f"unknown class name(s) {', '.join(map(repr, unknown))}; the "
                           f"harmful classes are: {', '.join(wanted)}.")
    missing = [c for c in wanted if c not in answer]
    if missing:
        return _say(False, f"still missing: {', '.join(missing)}. The resolution of a class is "
                           "1 / (its number of records).")
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
    unknown = [c for c in names if c not in gap]
    if unknown:
        return _say(False, f"unknown or non-harmful class name(s) {', '.join(map(repr, unknown))}"
                           f"; the harmful classes are: {', '.join(gap)}.")
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
