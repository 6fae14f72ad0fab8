"""Benchmark: notebook 07's near-duplicates check (``truth.cluster_coverage``) at full size.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_cluster.py``).

The notebook runs 200 sets of 48 distinct records x 5 copies (about a second); here 1,000
sets, so the two coverages are known to about +/- 0.03 and +/- 0.016: the records' band near
2 Phi(1.96 / sqrt(5)) - 1 = 0.62, the cluster band a little under 0.95 (48 groups are few for
a percentile bootstrap).  Target: the 200 sets of the notebook in at most 2 s of CPU, so 07's
execution grows by no more than a few seconds (issue 35).
"""

import sys
import time

from _timing import load_line
from lessonlib import truth as T

TARGET = 2.0


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def main():
    T.cluster_coverage(n_sets=2, n_resamples=10)  # warm up: the population's cells
    print(load_line("start", cores=True))
    seconds, small = cpu(lambda: T.cluster_coverage(48, 5, n_sets=200))
    print(f"  200 sets (the notebook's): CPU {seconds:5.2f} s, {small}  target {TARGET:g} s")
    big_seconds, big = cpu(lambda: T.cluster_coverage(48, 5, n_sets=1000, seed=1))
    errors = {k: round(T.mc_error(v, 1000), 4) for k, v in big.items()}
    print(f"  1,000 sets: CPU {big_seconds:5.2f} s, {big}, +/- MC {errors}")
    print(load_line("end"))
    if seconds > TARGET:
        print(f"FAIL: the notebook's 200 sets took {seconds:.2f} s of CPU (over {TARGET:g} s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
