"""Benchmark: notebook 16's coverage study of one design over simulated weeks
(``labelling.simulate_designs``).

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_labelling.py``).

For each design on its own: 1,000 simulated weeks of 5,000 records, the person's 360 labels
chosen by the design, the estimate and its interval for every week (the random sample with
PPI++ and the score, the stratified designs with the stratified difference estimator), then
the coverage of the true harmful share; best of 3 and median.  Fails when the best time of any
design is 5 s or more.  Other jobs share the machine's cores: the 1-minute load average is
printed next to the numbers, and best-of times are used.
"""

import sys
from functools import partial

from _timing import best_of, load_line
from lessonlib import labelling as B
from lessonlib import strata as S
from lessonlib import weeks as W

TARGET = 5.0
WEEKS, SIZE, BUDGET = 1000, 5000, 360


def coverage(design):
    est = B.simulate_designs((design,), weeks=WEEKS, size=SIZE, budget=BUDGET)
    return W.coverage_rows(est, W.true_rates()["harmful"])[0]["coverage"]


def main():
    print(load_line("start", cores=True))
    B.simulate_designs(weeks=2, size=400, budget=60)  # warm up (the population table)
    worst = 0.0
    print(f"{WEEKS:,} weeks of {SIZE:,} records, {BUDGET} labelled, one design at a time:")
    for design in S.DESIGNS:
        best, median, covered = best_of(3, partial(coverage, design))
        worst = max(worst, best)
        print(
            f"  {design:<14} {best:6.2f} s best of 3 (median {median:.2f})  coverage {covered:.3f}"
        )
    print(load_line("end"))
    ok = worst < TARGET
    print(f"slowest best time {worst:.2f} s, target < {TARGET} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
