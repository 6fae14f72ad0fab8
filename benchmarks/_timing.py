"""Timing helpers shared by the benchmarks.

Each benchmark runs as a script (``python benchmarks/bench_x.py``), so this
folder is on ``sys.path`` and ``import _timing`` finds this file.  The leading
underscore keeps it out of ``make bench``, which runs ``bench_*.py`` only.
"""

import os
import time


def timed(fn):
    """Wall time in seconds of one call ``fn()``, and its result."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def best_of(repeats, fn):
    """Smallest and median wall time of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        seconds, result = timed(fn)
        times.append(seconds)
    times.sort()
    return times[0], times[len(times) // 2], result


def load_line(when, cores=False):
    """'load average (1 min) at WHEN: X' (and the number of cores): other jobs share the
    machine, so every benchmark prints it next to its numbers."""
    line = f"load average (1 min) at {when}: {os.getloadavg()[0]:.2f}"
    return line + f" on {os.cpu_count()} cores" if cores else line
