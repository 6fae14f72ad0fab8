"""Benchmark: the lesson's 240 records through the official SDK, one call at a time and side
by side.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_client.py``).

The course's server stands in for a real model answering in ``LATENCY``
seconds (``SimulatorServer(latency=0.2, rate_limit=False)``); one
:class:`~lessonlib.client.OpenAIAsk` (one shared SDK client) judges the
lesson's 240 records with :func:`~lessonlib.client.judge_records` at 1 and at
32 connections.  Printed: wall time, calls, the speed-up, and the CPU time per
call (client and server share this process, so it is both sides' CPU).

Target: at least 10x at 32 connections, with the same labels and cost as one
connection.  The ideal is about 32x (240 x 0.2 s = 48 s against 8 passes of
0.2 s); the target leaves room for a loaded machine, and the script exits
non-zero when it is missed.  Timings depend on the load: other jobs share the
machine's cores.
"""

import sys
import time

import lessonlib as L
from _timing import load_line
from lessonlib import client

LATENCY = 0.2
CONNECTIONS = (1, 32)
TARGET_SPEEDUP = 10.0


def measure(server, records, connections):
    ask = server.ask("lesson", timeout=30.0)
    wall, cpu = time.perf_counter(), time.process_time()
    run = client.judge_records(ask, records, max_connections=connections)
    return run, time.perf_counter() - wall, time.process_time() - cpu


def main():
    records = L.make_records()
    print(load_line("start", cores=True))
    with client.SimulatorServer(latency=LATENCY, rate_limit=False) as server:
        results = {n: measure(server, records, n) for n in CONNECTIONS}
    one, many = (results[n][0] for n in CONNECTIONS)
    for n, (run, wall, cpu) in results.items():
        print(f"{len(records)} records, {n:>2} connection(s): {wall:6.2f} s wall, "
              f"{run.calls} calls, {1000 * cpu / run.calls:.2f} ms CPU a call")
    speedup = results[CONNECTIONS[0]][1] / results[CONNECTIONS[-1]][1]
    same = one == many
    print(f"speed-up {CONNECTIONS[-1]} vs {CONNECTIONS[0]}: {speedup:.1f}x "
          f"(target >= {TARGET_SPEEDUP:.0f}x); same labels and cost: {same}")
    print(load_line("end"))
    return 0 if same and speedup >= TARGET_SPEEDUP else 1


if __name__ == "__main__":
    sys.exit(main())
