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
generator step, one comparison), run by numpy over blocks of about 2**18
cells: roughly 1 ns a cell.  At 2,000 seeds that is about 0.5 ms; the rest,
about 2-3 ms, is the seed-independent part done once in pure Python (building
240 prompts, tokenizing them, scoring their cue tokens, hashing them), which is
what one ``run_judge`` call repeats for every seed.  So the ratio grows with
the number of seeds until the per-cell work dominates, and it is bounded by
(Python cost of one run) / (numpy cost of 240 cells).  The free-form path adds
one numpy step per record over the vector of seeds (the rate-limit counter
ties each record to the one before), about 15 small array operations per
record and block.

Timings depend on the load: other jobs share the machine's cores.  The script
prints the 1-minute load average next to its numbers.
"""

import os
import sys
import time
import tracemalloc

import lessonlib as L

SEEDS = range(L.SEED, L.SEED + 2000)
TARGET = 1000.0
MEMORY_LIMIT = 1 << 30
FREE_FORM_GUIDELINE = ("Su kaydin ozniteliklerine bak ve etiket yaz : temiz ya da zararli . "
                       "Oznitelikler : ")


def best_of(repeats, fn):
    """Smallest and median wall time of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[0], times[len(times) // 2], result


def compare(records, seeds, guideline, repeats):
    start = time.perf_counter()
    loop = [L.run_judge(records, s, guideline=guideline) for s in seeds]
    loop_time = time.perf_counter() - start
    best, median, runs = best_of(repeats, lambda: L.run_judge_many(records, seeds,
                                                                   guideline=guideline))
    same = all(runs.run(i) == run for i, run in enumerate(loop))
    return loop_time, best, median, same


def main():
    records = L.make_records()
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")

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
    start = time.perf_counter()
    runs = L.run_judge_many(records, big)
    elapsed = time.perf_counter() - start
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
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.2f}")

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
