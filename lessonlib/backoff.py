"""Notebook 13 - waiting out a real API's refusals before the judge's rules apply.

From a real API, HTTP 429 or a time-out means "wait", not "no label".  :class:`Backoff`
says how long (exponential with jitter, a server's ``Retry-After`` trusted up to the cap,
a bounded number of times); :class:`Patient` wraps an ask so that each call waits and asks
again as it says, and hands back a :class:`WaitedReply` that carries what the waiting cost.
``NO_BACKOFF`` is the lesson's rule: a refusal is an unreadable reply at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ._checks import check_int, check_number
from .judge import Ask

__all__ = ["DEFAULT_BACKOFF", "NO_BACKOFF", "TRANSIENT", "Backoff", "Patient", "WaitedReply"]

TRANSIENT = ("rate_limit", "timeout")
"""Statuses that mean "wait and ask again" when a real API sends them, not "no label"."""


@dataclass(frozen=True)
class Backoff:
    """How notebook 13's ``judge_records`` waits after a 429 or a timeout.

    The ``k``-th wait (from 0) is the ``Retry-After`` the server sent, trusted
    up to ``cap`` seconds, else ``min(cap, base * 2**k)`` seconds times a
    random factor in [0.5, 1) (jitter: clients refused together do not come
    back together).  After ``max_waits`` waits the refusal stands, and the
    judge's rules apply.  ``Backoff(max_waits=0)`` is the lesson's rule: no
    wait at all.  A server asking for an hour is not waited an hour: ``cap``
    bounds every wait (the openai SDK itself trusts ``Retry-After`` only up to
    60 s).
    """

    max_waits: int = 5
    base: float = 0.5
    cap: float = 30.0

    def __post_init__(self) -> None:
        check_int("max_waits", self.max_waits, minimum=0)
        check_number("base", self.base, minimum=0.0)
        check_number("cap", self.cap, minimum=0.0)

    def delay(self, k: int, retry_after: float | None, draw: Callable[[], float]) -> float:
        """Seconds to wait before the ``k``-th repeat; ``draw()`` gives the jitter in [0, 1)."""
        if retry_after is not None:
            return min(self.cap, retry_after)  # the server's word, up to the cap
        return min(self.cap, self.base * 2**k) * (0.5 + draw() / 2)


DEFAULT_BACKOFF = Backoff()
"""Notebook 13's back-off for a real API: five waits at most, from 0.5 s, none over 30 s."""
NO_BACKOFF = Backoff(max_waits=0)
"""The lesson's rule: a refusal is an unreadable reply at once, retried once with seed + 1."""


@dataclass(frozen=True)
class WaitedReply:
    """Notebook 13 - the last reply of a :class:`Patient` call (``text``, ``input_tokens``,
    ``status``, as the ask protocol reads it) and what it took: HTTP ``requests`` (the
    repeats included, a cached reply 0), back-off ``waits`` and their seconds ``waited``,
    and ``cached``: replies read from a cache."""

    text: str
    input_tokens: int | None
    status: str
    requests: int = 1
    waits: int = 0
    waited: float = 0.0
    cached: int = 0
    reply: object = field(default=None, repr=False, compare=False)  # as the ask returned it


class Patient:
    """Notebook 13 - ``ask`` that waits and asks again after a transient refusal, as
    ``backoff`` says: ``Patient(ask, backoff)(prompt, seed)`` is a :class:`WaitedReply`.

    A repeat goes through ``ask.ask_again`` when the ask has one (it skips a cache that
    holds the refusal), else through ``ask`` itself.  ``draw()`` gives the jitter;
    ``sleep`` waits (both replaceable in tests)."""

    def __init__(
        self,
        ask: Ask,
        backoff: Backoff,
        draw: Callable[[], float],
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self.ask, self.backoff, self.draw, self.sleep = ask, backoff, draw, sleep
        self.again = getattr(ask, "ask_again", ask)

    def __call__(self, prompt: str, seed: int) -> WaitedReply:
        requests = waits = cached = 0
        waited = 0.0
        reply = self.ask(prompt, seed)
        while True:
            made = getattr(reply, "requests", 1)
            requests += made
            cached += made == 0
            status = getattr(reply, "status", "ok")
            if status not in TRANSIENT or waits >= self.backoff.max_waits:
                break
            delay = self.backoff.delay(waits, getattr(reply, "retry_after", None), self.draw)
            self.sleep(delay)
            waits, waited = waits + 1, waited + delay
            reply = self.again(prompt, seed)
        text = reply if isinstance(reply, str) else getattr(reply, "text", None)
        if not isinstance(text, str):
            raise TypeError(
                "an ask must return reply text (str) or an object with a str .text, "
                f"got {type(reply).__name__}"
            )
        tokens = None if isinstance(reply, str) else getattr(reply, "input_tokens", None)
        return WaitedReply(text, tokens, status, requests, waits, waited, cached, reply)
