"""Benchmark: coverage of notebook 15's estimates over simulated weeks (``simulate_estimates``).

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_production.py``).

1. For each method on its own: 1,000 simulated weeks of 5,000 records (200 labelled by the
   person, the judge's label as the stand-in), the weeks drawn and the estimate computed for
   every week, then its coverage of the true harmful share (best of 3 and median); and PPI++
   on the false block rate, a ratio.  Fails when the best time of any of them is 5 s or more.
2. For information: all five methods on the same 1,000 weeks in one call, and the peak memory
   of that call (tracemalloc sees numpy's buffers; weeks are drawn in chunks of 100).

Other jobs share the machine's cores: the 1-minute load average is printed next to the
numbers, and best-of times are used.
"""

import sys
import tracemalloc
from functools import partial

from _timing import best_of, load_line, timed
from lessonlib import production as P
from lessonlib import weeks as W

TARGET = 5.0
WEEKS, SIZE, LABELLED = 1000, 5000, 200


def coverage(method, quantity="harmful"):
    est = W.simulate_estimates(
        weeks=WEEKS, size=SIZE, labelled=LABELLED, methods=(method,), quantity=quantity
    )
    return W.coverage_rows(est, W.true_rates()[quantity])[0]["coverage"]


def main():
    print(load_line("start", cores=True))
    W.simulate_estimates(weeks=2, size=100, labelled=20)  # warm up (the population table)
    worst = 0.0
    print(f"{WEEKS:,} weeks of {SIZE:,} records, {LABELLED} labelled, one method at a time:")
    cases = [(m, "harmful") for m in P.METHODS] + [("ppi++", W.RATIO)]
    for method, quantity in cases:
        best, median, covered = best_of(3, partial(coverage, method, quantity))
        worst = max(worst, best)
        name = method if quantity == "harmful" else f"{method}, {quantity}"
        print(
            f"  {name:<24} {best:6.2f} s best of 3 (median {median:.2f})  coverage {covered:.3f}"
        )
    tracemalloc.start()
    elapsed, _ = timed(lambda: W.simulate_estimates(weeks=WEEKS, size=SIZE, labelled=LABELLED))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"all five methods on the same weeks: {elapsed:.2f} s ; peak memory {peak / 2**20:.0f} MiB"
    )
    print(load_line("end"))
    ok = worst < TARGET
    print(f"slowest best time {worst:.2f} s, target < {TARGET} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
