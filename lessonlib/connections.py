"""Notebook 13 - calls side by side: up to ``max_connections`` asks at once, answers in order.

A hosted model answers in about a second, so :func:`map_calls` runs one pass's calls in a
thread pool and hands the answers back in the records' order: the run adds them up exactly
as it would one at a time.  Used by ``judge.ask_each`` (``client.judge_records``,
``Panel.run(..., max_connections=N)``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ._checks import check_int
from .simulator import SimulatedModel

__all__ = ["Progress", "check_connections", "map_calls"]

T = TypeVar("T")
R = TypeVar("R")


def check_connections(max_connections: int, asks: Iterable[object] = ()) -> int:
    """``max_connections`` as an int >= 1; more than one is refused for an in-process
    SimulatedModel (its call counter makes its answers depend on call order)."""
    max_connections = check_int("max_connections", max_connections, minimum=1)
    for i, ask in enumerate(asks if max_connections > 1 else ()):
        if isinstance(ask, SimulatedModel) or isinstance(
            getattr(ask, "__self__", None), SimulatedModel
        ):
            raise ValueError(
                f"max_connections must be 1 for an in-process SimulatedModel (ask {i}, "
                f"{getattr(ask, 'name', '?')!r}): its call counter makes its answers depend "
                f"on call order; serve it with client.SimulatorServer and ask it over HTTP "
                f"to run calls side by side, got max_connections={max_connections}"
            )
    return max_connections


def map_calls(
    fn: Callable[[T], R],
    items: Iterable[T],
    max_connections: int,
    on_done: Callable[[], object] | None = None,
) -> list[R]:
    """``[fn(x) for x in items]``, up to ``max_connections`` calls at once, in ``items`` order;
    ``on_done()`` after each.  An error stops the pass: calls not started are cancelled."""
    items, out = list(items), []
    if max_connections == 1 or len(items) <= 1:
        for x in items:
            out.append(fn(x))
            if on_done is not None:
                on_done()
        return out
    pool = ThreadPoolExecutor(min(max_connections, len(items)), "lessonlib-call")
    try:
        for future in [pool.submit(fn, x) for x in items]:
            out.append(future.result())
            if on_done is not None:
                on_done()
        return out
    finally:  # an error or Ctrl-C: start nothing new
        pool.shutdown(wait=True, cancel_futures=True)


class Progress:
    """A text bar on standard output, ``judging [#####-----] 120/240``, redrawn in place at
    each twentieth of the run (a stable stored output); nothing when not ``enabled``."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done, self._shown = total, enabled, 0, -1
        self.step(0)

    def step(self, done: int = 1) -> None:
        self.done += done
        tick = self.done * 20 // max(self.total, 1)
        if not self.enabled or self.total == 0 or tick == self._shown:
            return
        self._shown, full = tick, self.done * 30 // self.total
        end = "\n" if self.done == self.total else ""
        bar = "#" * full + "-" * (30 - full)
        sys.stdout.write(f"\rjudging [{bar}] {self.done}/{self.total}{end}")
        sys.stdout.flush()
