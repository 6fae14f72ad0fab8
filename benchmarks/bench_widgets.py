"""One explorer redraw for the lesson's 240 records must take under 100 ms.

A redraw is what happens when a student moves a control: the explorer's
observer recomputes the text for the new settings (the criteria explorer
measures two rule sets; the judge explorer runs the judge twice) and puts it
in the text pane.  We time the whole thing by setting a control's value, as
the browser does, cycling through settings so every kind of change is timed
(for the judge explorer the free-form guideline is the costliest: more calls,
more retries).  Pass/fail uses the median of the repeats (robust to other
jobs on a shared machine); best and worst are printed too.

Run: .venv/bin/python benchmarks/bench_widgets.py   (or make bench)
"""

import statistics
import sys
import time

from lessonlib import FEATURES, make_records
from lessonlib.widgets import GUIDELINES, criteria_explorer, judge_explorer

TARGET_MS = 100.0
ROUNDS = 5


def time_changes(explorer, changes):
    """Milliseconds of each ``(control, value)`` assignment, which triggers one redraw."""
    times = []
    for _ in range(ROUNDS):
        for name, value in changes:
            before = explorer.text
            start = time.perf_counter()
            explorer.controls[name].value = value
            times.append((time.perf_counter() - start) * 1000)
            if explorer.text == before:
                raise SystemExit(f"setting {name}={value!r} did not redraw")
    return times


def main():
    records = make_records(240)
    criteria = criteria_explorer(records)
    # every flag but the first is toggled, then toggled back
    criteria_changes = [(f, not criteria.controls[f].value) for f in FEATURES[1:]]
    criteria_changes += [(f, criteria.controls[f].value) for f in FEATURES[1:]]

    judge = judge_explorer(records)
    free, single = list(GUIDELINES)[1], list(GUIDELINES)[0]
    judge_changes = [("temperature", 1.0), ("seed", 7), ("guideline", free),
                     ("unreadable_as", "harmful"), ("spurious", False), ("temperature", 2.0),
                     ("guideline", single), ("spurious", True), ("unreadable_as", "clean"),
                     ("seed", 20260218), ("temperature", 0.3)]

    failed = False
    print(f"one redraw, {len(records)} records, target < {TARGET_MS:.0f} ms (median of repeats)")
    for name, explorer, changes in (("criteria_explorer", criteria, criteria_changes),
                                    ("judge_explorer", judge, judge_changes)):
        ms = time_changes(explorer, changes)
        median = statistics.median(ms)
        ok = median < TARGET_MS
        failed |= not ok
        print(f"  {name:<18} redraws {len(ms):>3}  best {min(ms):7.1f} ms  median {median:7.1f} ms"
              f"  worst {max(ms):7.1f} ms  {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
