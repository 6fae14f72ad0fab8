"""Exercise checks for notebooks/03_judge_simulator.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from ..judge import run_judge
from ..metrics import measure
from ..records import FEATURES, make_records
from ..simulator import CUE_TABLE, FLAG_WORD, SPURIOUS, label_scores, tokenize
from ._common import _is_whole, _say


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
