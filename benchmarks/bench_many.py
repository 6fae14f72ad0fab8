"""Benchmark: the many-seed engine against a Python loop of run_judge.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_many.py``).

What it does, in one process:

1. A Python loop of ``run_judge`` over 2,000 seeds (the lesson's 240 records,
   default arguments) and ``run_judge_many`` over the same 2,000 seeds; every
   seed must give the same labels and counters.  It prints the ratio of the two
   times and fails (exit 1) below the target of 1,000x.
2. Seeds per second and the peak memory (tracemalloc, which sees numpy's
   buffers) of ``run_judge_many`` over 100,000 seeds; fails at 1 GiB or more.
3. For information, the same ratio on the free-form path (a guideline without
   'tek', where readability depends on the seed and the records are scanned in
   order over a vector of seeds), on 500 seeds.

What bounds the speed.  With the lesson's arguments the call schedule is the
same for every seed, so per (seed, record) only about ten 32-bit integer
operations remain (mix the seed word with the record's hash word, one
generator step, one comparison), run by numpy over blocks of 2**18 cells:
about 1 ns a cell, so 2,000 seeds x 240 records take well under a millisecond.
The rest of the ~4 ms is the seed-independent part, done once in pure Python:
building the 240 prompts, tokenizing them, scoring their cue tokens and hashing
them (one run_judge call repeats all of it for every seed, ~6.5 ms).  So the
ratio grows with the number of seeds, and is bounded by (Python cost of one
run) / (numpy cost of 240 cells), some 20,000x.  On the free-form path the
readability of a reply depends on the seed, so the records are scanned in
order (the rate-limit counter ties each record to the one before) with about
eight numpy calls per record and block of seeds: there the per-call overhead of
numpy bounds the speed for small numbers of seeds.

Timings depend on the load: other jobs share the machine's cores.  The script
prints the 1-minute load average next to its numbers.
"""

import sys
import tracemalloc

import lessonlib as L
from _timing import best_of, load_line, timed
from lessonlib.panel_study import FREE_FORM_GUIDELINE

SEEDS = range(L.SEED, L.SEED + 2000)
TARGET = 1000.0
MEMORY_LIMIT = 1 << 30


def compare(records, seeds, guideline, repeats):
    loop_time, loop = timed(lambda: [L.run_judge(records, s, guideline=guideline)
                                     for s in seeds])
    best, median, runs = best_of(repeats, lambda: L.run_judge_many(records, seeds,
                                                                   guideline=guideline))
    same = all(runs.run(i) == run for i, run in enumerate(loop))
    return loop_time, best, median, same


def main():
    records = L.make_records()
    print(load_line("start", cores=True))

    loop_time, best, median, same = compare(records, SEEDS, L.GUIDELINE, 21)
    ratio = loop_time / median
    print(f"{len(SEEDS)} seeds, 240 records, lesson arguments:")
    print(f"  python loop of run_judge   {loop_time:8.3f} s")
    print(f"  run_judge_many             {median * 1e3:8.2f} ms (median of 21; best "
          f"{best * 1e3:.2f} ms)")
    print(f"  same labels and counters for every seed: {same}")
    print(f"  ratio {ratio:,.0f}x (median; {loop_time / best:,.0f}x best)  target >= "
          f"{TARGET:,.0f}x")

    big = range(100_000)
    L.run_judge_many(records, range(10))                 # warm up imports
    tracemalloc.start()
    elapsed, runs = timed(lambda: L.run_judge_many(records, big))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{len(big):,} seeds: {elapsed:.3f} s, {len(big) / elapsed:,.0f} seeds per second, "
          f"peak memory {peak / 2**20:.1f} MiB (tracemalloc; result alone "
          f"{(runs.harmful.nbytes + runs.unreadable_mask.nbytes) / 2**20:.1f} MiB)")
    del runs

    f_loop, f_best, f_median, f_same = compare(records, range(500), FREE_FORM_GUIDELINE, 11)
    print(f"free-form path (guideline without 'tek'), 500 seeds, for information: loop "
          f"{f_loop:.3f} s, engine {f_median * 1e3:.2f} ms, ratio {f_loop / f_median:,.0f}x, "
          f"same: {f_same}")
    print(load_line("end"))

    failures = []
    if not (same and f_same):
        failures.append("run_judge_many disagrees with run_judge")
    if ratio < TARGET:
        failures.append(f"ratio {ratio:,.0f}x is below the target {TARGET:,.0f}x")
    if peak >= MEMORY_LIMIT:
        failures.append(f"peak memory {peak / 2**20:.0f} MiB is not under 1 GiB")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
