"""Benchmark: the many-seed engine (notebook 06) against a Python loop of run_judge.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_many.py``).

1. ``run_judge_many`` over 2,000 seeds (the lesson's 240 records, default
   arguments; best of 21) against a loop of ``run_judge`` (best of 3 loops over
   200 of those seeds, scaled to 2,000: with the lesson's arguments every run
   makes the same 246 calls, so a run's cost does not depend on its seed).
   Every one of the 2,000 seeds must give the same labels and counters as
   ``run_judge``.  Fails below 3,000x.
2. Seeds per second and peak memory (tracemalloc sees numpy's buffers) over
   100,000 seeds; fails at 1 GiB or more.
3. Peak memory over many records and one seed: fails when it grows by more
   than 200 bytes a record (the result keeps two bools a cell and the record
   numbers; the rest is planned and decided in blocks).
4. For information, the free-form guideline (readability depends on the seed).

Where the time goes: with the lesson's arguments a (seed, record) cell costs
about ten 32-bit numpy operations; most of the rest is the per-record plan
(prompts, tokens, hashes) that one run of ``run_judge`` also does, so the
ratio grows with the number of seeds.  Other jobs share the machine's cores:
the 1-minute load average is printed next to the numbers, and best-of times
are used on both sides.
"""

import sys
import tracemalloc

import lessonlib as L
from _timing import best_of, load_line, timed
from lessonlib.panel_study import FREE_FORM_GUIDELINE

SEEDS = range(L.SEED, L.SEED + 2000)
LOOP_SEEDS = 200
TARGET = 3000.0
MEMORY_LIMIT = 1 << 30
BYTES_PER_RECORD = 200


def loop_time(records, seeds, guideline, repeats):
    """Best time of a run_judge loop over ``LOOP_SEEDS`` seeds, scaled to ``len(seeds)``."""
    part = seeds[:LOOP_SEEDS]
    best, _, _ = best_of(
        repeats, lambda: [L.run_judge(records, s, guideline=guideline) for s in part]
    )
    return best * len(seeds) / len(part)


def same(records, seeds, guideline, runs):
    return all(
        runs.run(i) == L.run_judge(records, s, guideline=guideline) for i, s in enumerate(seeds)
    )


def peak_memory(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    records = L.make_records()
    print(load_line("start", cores=True))
    L.run_judge_many(records, range(10))  # warm up imports
    loop = loop_time(records, SEEDS, L.GUIDELINE, 3)
    best, median, runs = best_of(21, lambda: L.run_judge_many(records, SEEDS))
    exact = same(records, SEEDS, L.GUIDELINE, runs)
    ratio = loop / best
    print(f"{len(SEEDS)} seeds, 240 records, lesson arguments:")
    print(f"  loop of run_judge      {loop:8.3f} s (best of 3 over {LOOP_SEEDS} seeds, scaled)")
    print(f"  run_judge_many         {best * 1e3:8.2f} ms best of 21 (median {median * 1e3:.2f})")
    print(f"  same labels and counters for all {len(SEEDS)} seeds: {exact}")
    print(f"  ratio {ratio:,.0f}x (best; {loop / median:,.0f}x median)  target >= {TARGET:,.0f}x")

    big = range(100_000)
    elapsed, _ = timed(lambda: L.run_judge_many(records, big))
    peak = peak_memory(lambda: L.run_judge_many(records, big))
    print(
        f"{len(big):,} seeds: {elapsed:.3f} s, {len(big) / elapsed:,.0f} seeds per second, "
        f"peak memory {peak / 2**20:.1f} MiB (result {2 * len(big) * 240 / 2**20:.1f} MiB)"
    )

    small, many = L.make_records(10_000), L.make_records(110_000)
    grow = (
        peak_memory(lambda: L.run_judge_many(many, [1]))
        - peak_memory(lambda: L.run_judge_many(small, [1]))
    ) / (len(many) - len(small))
    print(
        f"one seed over 10,000 and 110,000 records: peak memory grows {grow:.0f} bytes a "
        f"record (limit {BYTES_PER_RECORD})"
    )

    ff = range(500)
    f_loop = loop_time(records, ff, FREE_FORM_GUIDELINE, 1)
    f_best, _, f_runs = best_of(
        5, lambda: L.run_judge_many(records, ff, guideline=FREE_FORM_GUIDELINE)
    )
    f_same = same(records, ff, FREE_FORM_GUIDELINE, f_runs)
    print(
        f"free-form guideline, 500 seeds, for information: loop {f_loop:.3f} s, engine "
        f"{f_best * 1e3:.2f} ms, ratio {f_loop / f_best:,.0f}x, same: {f_same}"
    )
    print(load_line("end"))

    failures = []
    if not (exact and f_same):
        failures.append("run_judge_many disagrees with run_judge")
    if ratio < TARGET:
        failures.append(f"ratio {ratio:,.0f}x is below the target {TARGET:,.0f}x")
    if peak >= MEMORY_LIMIT:
        failures.append(f"peak memory {peak / 2**20:.0f} MiB is not under 1 GiB")
    if grow > BYTES_PER_RECORD:
        failures.append(f"memory grows {grow:.0f} bytes a record")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
