"""Exercise checks for notebooks/04_two_seed_variance.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in.
"""

from __future__ import annotations

from ..criteria import make_rule_filter
from ..judge import run_judge
from ..metrics import disagreements, measure
from ..records import FEATURES, SEED, is_harmful, make_records
from ..simulator import TEMPERATURE
from ._common import _is_number, _say


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
    usual = measure(records, run_judge(records, SEED, TEMPERATURE).decide)
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
               f"{usual:.4f} at {TEMPERATURE:.2f}), and its spurious length cue decides "
               f"the same way every time ({length_only} records blocked on the excessive_length "
               "flag alone, whatever their class).")
    if like_filter:
        message += " It now decides exactly like a rule filter over all seven flags."
    return _say(True, message)
