"""Benchmark: a panel of judges over 1,000 panel seeds (notebook 10's band).

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_panel.py``).

For the most expensive setup of notebook 10 - the diverse panel (three
fictional judges) with quorum 3, i.e. nine passes a run - on the lesson's 240
records, in one process:

1. ``Panel.run_many`` over 1,000 panel seeds (the many-seed engine of notebook
   06 runs each judge's samples; best of 3); target: under 10 seconds ("in
   seconds"), and every seed equal to ``Panel.run`` (checked on 50 of them);
2. the same on the free-form guideline (replies that may be unreadable, fail-
   closed rule), for information;
3. the ratio against ``Panel.run`` in a Python loop, timed on 50 seeds and
   scaled to 1,000 (the loop's time per seed does not depend on the seed).

Timings depend on the load: other jobs share the machine's cores.
"""

import sys

import lessonlib as L
from _timing import best_of, load_line, timed
from lessonlib.panel_study import FREE_FORM_GUIDELINE

SEEDS = range(L.SEED, L.SEED + 1000)
LOOP_SEEDS = 50
TARGET_SECONDS = 10.0


def measure(panel, records, guideline):
    engine_time, _, many = best_of(3, lambda: panel.run_many(records, SEEDS, guideline))
    loop_seeds = SEEDS[:LOOP_SEEDS]
    loop_time, loop = timed(lambda: [panel.run(records, s, guideline) for s in loop_seeds])
    same = all(many.run(i) == run for i, run in enumerate(loop))
    scaled = loop_time * len(SEEDS) / LOOP_SEEDS
    return engine_time, scaled, same


def main():
    records = L.make_records()
    panel = L.Panel(L.judge_models(*L.DIVERSE), quorum=3)
    print(load_line("start", cores=True))
    L.Panel([L.SimulatedModel()]).run_many(records, range(3))  # warm up imports
    failures = []
    for title, guideline in (
        ("lesson guideline", L.GUIDELINE),
        ("free-form guideline", FREE_FORM_GUIDELINE),
    ):
        engine, loop, same = measure(panel, records, guideline)
        print(f"diverse panel, quorum 3 (9 passes a run), {len(SEEDS)} seeds, {title}:")
        print(
            f"  Panel.run_many             {engine:8.3f} s "
            f"({len(SEEDS) / engine:,.0f} panel seeds per second)"
        )
        print(f"  loop of Panel.run          {loop:8.1f} s (timed on {LOOP_SEEDS} seeds, scaled)")
        print(f"  ratio {loop / engine:,.0f}x; same as Panel.run on {LOOP_SEEDS} seeds: {same}")
        if not same:
            failures.append(f"run_many disagrees with Panel.run ({title})")
        if title == "lesson guideline" and engine >= TARGET_SECONDS:
            failures.append(f"{engine:.1f} s is not under the target {TARGET_SECONDS:.0f} s")
    print(load_line("end"))
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
