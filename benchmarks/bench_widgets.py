"""One explorer redraw for the lesson's 240 records must take under 100 ms.

A redraw is what happens when a student moves a control: the explorer's
observer recomputes the text for the new settings (the criteria explorer
measures two rule sets; the judge explorer runs the judge twice; the panel
explorer runs the panel and the lesson's judge alone over PANEL_BAND_SEEDS
panel seeds with the many-seed engine) and puts it in the text pane. We time
the whole thing by setting a control's value, as the browser does, cycling
through settings so every kind of change is timed (for the judge explorer the
free-form guideline is the costliest: more calls, more retries; for the panel
explorer the largest panel - four judges, quorum 5, free-form replies - is the
costliest and is timed on its own as well). Pass/fail uses the median of the
repeats (robust to other jobs on a shared machine); best and worst are printed
too.

Run: .venv/bin/python benchmarks/bench_widgets.py   (or make bench)
"""

import statistics
import sys
from functools import partial

from _timing import timed
from lessonlib import FEATURES, make_records
from lessonlib.panel import JUDGE_NAMES
from lessonlib.widgets import (
    GUIDELINES,
    PANEL_BAND_SEEDS,
    _panel_setup,
    criteria_explorer,
    judge_explorer,
    panel_explorer,
)

TARGET_MS = 100.0
ROUNDS = 5


def time_changes(explorer, changes):
    """Milliseconds of each ``(control, value)`` assignment, which triggers one redraw."""
    times = []
    for _ in range(ROUNDS):
        for name, value in changes:
            before = explorer.pane.value  # names the settings too
            _panel_setup.cache_clear()  # a panel run again, not read from the cache
            seconds, _ = timed(partial(setattr, explorer.controls[name], "value", value))
            times.append(seconds * 1000)
            if explorer.pane.value == before:
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
    judge_changes = [
        ("temperature", 1.0),
        ("seed", 7),
        ("guideline", free),
        ("unreadable_as", "harmful"),
        ("spurious", False),
        ("temperature", 2.0),
        ("guideline", single),
        ("spurious", True),
        ("unreadable_as", "clean"),
        ("seed", 20260218),
        ("temperature", 0.3),
    ]

    panel = panel_explorer(records)
    panel_changes = [
        ("lesson", True),
        ("quorum", 3),
        ("aggregate", "mean"),
        ("min_agreement", 1.0),
        ("guideline", free),
        ("on_unreadable", "clean"),
        ("plain", False),
        ("quorum", 5),
        ("wary", False),
        ("aggregate", "min"),
        ("guideline", single),
        ("on_unreadable", "abstain"),
        ("quorum", 1),
        ("min_agreement", 0.5),
        ("plain", True),
        ("wary", True),
        ("on_unreadable", "harmful"),
        ("aggregate", "median"),
        ("lesson", False),
    ]

    # the costliest redraw: every judge, quorum 5, free-form replies (toggled in and out)
    largest = panel_explorer(records)
    largest.controls["lesson"].value = True
    largest.controls["guideline"].value = free
    largest_changes = [("quorum", 5), ("quorum", 4)]

    failed = False
    print(
        f"one redraw, {len(records)} records, target < {TARGET_MS:.0f} ms (median of repeats);"
        f" panel band over {PANEL_BAND_SEEDS} seeds"
    )
    for name, explorer, changes in (
        ("criteria_explorer", criteria, criteria_changes),
        ("judge_explorer", judge, judge_changes),
        ("panel_explorer", panel, panel_changes),
        (f"  largest ({len(JUDGE_NAMES)}x4, x5)", largest, largest_changes),
    ):
        ms = time_changes(explorer, changes)
        median = statistics.median(ms)
        ok = median < TARGET_MS
        failed |= not ok
        print(
            f"  {name:<20} redraws {len(ms):>3}  best {min(ms):7.1f} ms  median {median:7.1f} ms"
            f"  worst {max(ms):7.1f} ms  {'ok' if ok else 'MISSED'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
