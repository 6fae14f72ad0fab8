"""Notebook 13 - calls side by side: up to ``max_connections`` asks at once, answers in order.

A hosted model answers in about a second, so a run that asks one call after
another spends its time waiting.  :func:`map_calls` runs the calls of one pass
in a thread pool (one shared client, many connections) and hands the answers
back in the records' order, so the run adds them up exactly as it would one
at a time.  :class:`Progress` draws a plain text bar on standard output.

Used by :func:`lessonlib.client.judge_records` and ``Panel.run(...,
max_connections=N)``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import TypeVar

from ._checks import check_int
from .simulator import SimulatedModel

__all__ = ["BAR_STEPS", "BAR_WIDTH", "Progress", "check_connections", "map_calls"]

T = TypeVar("T")
R = TypeVar("R")

BAR_WIDTH = 30
"""Characters in the progress bar."""
BAR_STEPS = 20
"""How many times the bar is redrawn in a run (at each twentieth), whatever its length."""


def check_connections(max_connections: int, asks: Iterable[object] = ()) -> int:
    """``max_connections`` as an int >= 1; more than one refused for a stateful ask.

    A SimulatedModel (or its ``call``) counts its own calls: its rate limit
    and so its answers depend on the order of the calls, which threads do not
    keep.  The course's server keeps that clock for it, behind HTTP.
    """
    max_connections = check_int("max_connections", max_connections, minimum=1)
    if max_connections > 1:
        for i, ask in enumerate(asks):
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
    """``[fn(x) for x in items]``, up to ``max_connections`` calls at once, in ``items`` order.

    ``on_done()`` is called (in the caller's thread) after each call ends.  The
    first error stops the pass: calls not yet started are cancelled, those
    running finish, and the error is raised.
    """
    items = list(items)
    if max_connections == 1 or len(items) <= 1:
        out = []
        for x in items:
            out.append(fn(x))
            if on_done is not None:
                on_done()
        return out
    pool = ThreadPoolExecutor(
        max_workers=min(max_connections, len(items)), thread_name_prefix="lessonlib-call"
    )
    try:
        futures = [pool.submit(fn, x) for x in items]
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()  # the first error stops the pass
                if on_done is not None:
                    on_done()
        return [future.result() for future in futures]
    finally:  # an error or Ctrl-C: start nothing new
        pool.shutdown(wait=True, cancel_futures=True)


class Progress:
    """A text bar on standard output, ``judging [#####-----] 120/240``; nothing when off.

    Redrawn in place (a carriage return) at each twentieth of the run, so a
    notebook's stored output is the same from one run to the next.
    """

    def __init__(self, total: int, enabled: bool, label: str = "judging") -> None:
        self.total, self.enabled, self.label, self.done, self._shown = total, enabled, label, 0, -1
        self._draw()

    def step(self) -> None:
        self.done += 1
        self._draw()

    def _draw(self):
        if not self.enabled or self.total == 0:
            return
        tick = self.done * BAR_STEPS // self.total
        if tick == self._shown:
            return
        self._shown = tick
        full = self.done * BAR_WIDTH // self.total
        end = "\n" if self.done == self.total else ""
        sys.stdout.write(
            f"\r{self.label} [{'#' * full}{'-' * (BAR_WIDTH - full)}] "
            f"{self.done}/{self.total}{end}"
        )
        sys.stdout.flush()
