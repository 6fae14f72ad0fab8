"""Notebook 13 - a real client in the judge's seat: one judge over the records, and its cost.

Here :func:`judge_records` (a refusal waited out as a :class:`Backoff` says), :func:`run_cost`
and :func:`plot_wait_minutes`; it hands on every name notebook 13 reaches as ``client.X`` from
:mod:`~lessonlib.verdict`, :mod:`~lessonlib.sdk_ask` and :mod:`~lessonlib.server`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._checks import (
    check_choice,
    check_collection,
    check_int,
    check_number,
    check_seed,
    check_str,
)
from .connections import Progress, check_connections
from .figures import FIGURE_WIDTH, slide_figure
from .judge import CLEAN, GUIDELINE, HARMFUL, UNREADABLE_RULES, Ask, ask_each, build_prompt, tally
from .records import SEED, Record, check_records
from .sdk_ask import CACHE_FOLDER, HOST, ClientReply, OpenAIAsk, ReplyCache
from .server import SimulatorServer
from .simulator import tokenize
from .verdict import (
    VERDICT_GUIDELINE,
    first_label,
    first_verdict,
    fold,
    label_response_format,
    read_reply,
)

__all__ = [
    "CACHE_FOLDER",
    "DEFAULT_BACKOFF",
    "HOST",
    "NO_BACKOFF",
    "TRANSIENT",
    "VERDICT_GUIDELINE",
    "Backoff",
    "ClientReply",
    "ClientRun",
    "OpenAIAsk",
    "ReplyCache",
    "SimulatorServer",
    "first_label",
    "first_verdict",
    "fold",
    "judge_records",
    "label_response_format",
    "plot_wait_minutes",
    "read_reply",
    "run_cost",
]

TRANSIENT = ("rate_limit", "timeout")
"""Statuses that mean "wait and ask again" when a real API sends them, not "no label"."""


@dataclass(frozen=True)
class Backoff:
    """How :func:`judge_records` waits after a 429 or a timeout before asking again.

    The ``k``-th wait (from 0) is the server's ``Retry-After``, trusted up to ``cap``
    seconds, else ``min(cap, base * 2**k)`` seconds times a random factor in [0.5, 1)
    (jitter).  After ``max_waits`` waits the refusal stands and the judge's rules apply;
    ``Backoff(max_waits=0)`` is the lesson's rule (:data:`NO_BACKOFF`).
    """

    max_waits: int = 5
    base: float = 0.5
    cap: float = 30.0

    def __post_init__(self) -> None:
        check_int("max_waits", self.max_waits, minimum=0)
        check_number("base", self.base, minimum=0.0)
        check_number("cap", self.cap, minimum=0.0)

    def delay(self, k: int, retry_after: float | None = None) -> float:
        """Seconds to wait before the ``k``-th repeat."""
        if retry_after is not None:
            return min(self.cap, retry_after)  # the server's word, up to the cap
        return min(self.cap, self.base * 2**k) * (0.5 + random.random() / 2)


DEFAULT_BACKOFF = Backoff()
"""Five waits at most, from 0.5 s, none over 30 s."""
NO_BACKOFF = Backoff(max_waits=0)
"""The lesson's rule: a refusal is an unreadable reply at once, retried once with seed + 1."""


def _patient(ask, backoff, log):
    """``ask`` waiting out a transient refusal as ``backoff`` says and asking again with the
    same seed (through ``ask.ask_again``, past a cache that holds the refusal).  Each call
    appends (HTTP requests, waits, seconds waited, replies read from a cache) to ``log``."""
    again = getattr(ask, "ask_again", ask)

    def patient(prompt, seed):
        reply, waits, waited = ask(prompt, seed), 0, 0.0
        made = [getattr(reply, "requests", 1)]
        while getattr(reply, "status", "ok") in TRANSIENT and waits < backoff.max_waits:
            delay = backoff.delay(waits, getattr(reply, "retry_after", None))
            time.sleep(delay)
            waits, waited = waits + 1, waited + delay
            reply = again(prompt, seed)
            made.append(getattr(reply, "requests", 1))
        log.append((sum(made), waits, waited, made.count(0)))
        return reply

    return patient


@dataclass(frozen=True)
class ClientRun:
    """What :func:`judge_records` returns: the labels and what they cost.

    ``calls``: HTTP requests, repeats after a wait included (replies read from a cache are
    ``cached``); ``retries``: records asked again with seed + 1; ``unreadable``: records
    still unreadable then, labelled by the run's rule; ``refused``: those whose last answer
    was a refusal that outlasted the back-off; ``waits`` and ``waited`` (seconds): the
    back-off's; ``seconds``: the run's wall time.
    """

    labels: dict = field(repr=False)  # record no -> 'temiz' | 'zararli'
    calls: int
    input_tokens: int
    retries: int
    unreadable: int
    refused: int = 0
    waits: int = 0
    waited: float = field(default=0.0, compare=False)
    cached: int = 0
    seed: int = SEED
    seconds: float = field(default=0.0, compare=False, repr=False)


def judge_records(
    ask: Ask,
    records: Sequence[Record],
    *,
    seed: int = SEED,
    max_connections: int = 8,
    progress: bool = False,
    guideline: str = VERDICT_GUIDELINE,
    unreadable_as: str = "clean",
    backoff: Backoff = DEFAULT_BACKOFF,
) -> ClientRun:
    """One judge over every record, up to ``max_connections`` calls at once: a
    :class:`ClientRun`.

    Through the judge's one ask-retry loop (``judge.ask_each``): each record is asked with
    ``seed``, a reply :func:`read_reply` cannot read once more with ``seed + 1``, a record
    still unreadable is labelled ``unreadable_as`` ('clean' or 'harmful').  Before that
    rule a 429 or a timeout is waited out and asked again with the same seed as ``backoff``
    says.  Answers are added up in the records' order, so the figures are those of one
    connection.  An ask with ``reset`` is reset first; ``progress=True`` draws a text bar.

    Under the lesson's rule (``NO_BACKOFF``) a run its ask's cache holds only part of is
    refused: there a 429 is an answer, and cached replies do not move the server's count.
    """
    if not callable(ask):
        raise TypeError(f"ask must be callable as ask(prompt, seed), got {type(ask).__name__}")
    records = check_records(records)
    seed = check_seed(seed)
    check_str("guideline", guideline)
    check_choice("unreadable_as", unreadable_as, UNREADABLE_RULES)
    max_connections = check_connections(max_connections, [ask])
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if not isinstance(backoff, Backoff):
        raise TypeError(f"backoff must be a client.Backoff, got {type(backoff).__name__}")
    prompts = [build_prompt(r, guideline) for r in records]
    if backoff.max_waits == 0:
        _refuse_a_resumed_run(ask, prompts, seed)
    reset = getattr(ask, "reset", None)
    if callable(reset):
        reset()
    log: list[tuple[int, int, float, int]] = []
    start = time.perf_counter()
    step = Progress(len(records), progress).step
    patient = _patient(ask, backoff, log)
    answers = ask_each(
        patient, prompts, seed, None, max_connections, read=read_reply, on_done=step
    )
    cost = tally(answers)
    fallback = CLEAN if unreadable_as == "clean" else HARMFUL
    requests, waits, waited, cached = (sum(column) for column in zip(*log)) if log else (0,) * 4
    return ClientRun(
        {r.no: fallback if a.label is None else a.label for r, a in zip(records, answers)},
        requests,
        cost.input_tokens,
        cost.retries,
        cost.unreadable,
        sum(a.label is None and a.statuses[-1] in TRANSIENT for a in answers),
        waits,
        round(waited, 3),
        cached,
        seed,
        time.perf_counter() - start,
    )


def _refuse_a_resumed_run(ask, prompts, seed):
    """Under the lesson's rule, refuse a run whose cache holds part of its questions: some
    records' first question and not others', or an unreadable first reply without the
    retry's."""
    cached = getattr(ask, "cached", None)
    if not callable(cached):
        return
    held = missing = 0
    for prompt in prompts:
        first = cached(prompt, seed)
        held += first is not None
        missing += first is None or (
            read_reply(first.text) is None and cached(prompt, seed + 1) is None
        )
    if held and missing:
        raise ValueError(
            f"backoff: the cache holds part of this run ({held} of its {len(prompts)} records "
            "asked, some not or not to the end), and resuming under the lesson's rule "
            "(NO_BACKOFF) is refused: there a 429 is an answer, and which call the server "
            "refuses depends on the calls it has counted, which cached replies do not "
            "repeat. Resume with a Backoff or start from an empty cache."
        )


# ---------------------------------------------------------------------------
# What a run costs
# ---------------------------------------------------------------------------


def run_cost(
    records: Iterable[Record], judges: int = 1, quorum: int = 1, guideline: str = GUIDELINE
) -> dict[str, int]:
    """The least a panel run costs, one call per judge, sample and record: ``calls``,
    ``input_tokens`` (the course tokenizer's) and ``characters`` of the prompts.  Retries
    come on top."""
    records = check_records(records)
    times = check_int("judges", judges, minimum=1) * check_int("quorum", quorum, minimum=1)
    check_str("guideline", guideline)
    prompts = [build_prompt(r, guideline) for r in records]
    return {
        "calls": times * len(prompts),
        "input_tokens": times * sum(len(tokenize(p)) for p in prompts),
        "characters": times * sum(len(p) for p in prompts),
    }


@slide_figure
def plot_wait_minutes(
    runs: dict[str, int],
    connections: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    reply_seconds: float = 1.0,
) -> Any:
    """Minutes a run waits against connections, one line per run (``{name: calls}``), on log
    axes: ``n`` calls at once make ``ceil(calls / n)`` rounds of ``reply_seconds`` each (the
    rate limit left out).  Returns the Axes."""
    import matplotlib.pyplot as plt

    if not isinstance(runs, Mapping) or not runs:
        raise TypeError(
            f"runs must be a non-empty mapping run name -> calls, got {type(runs).__name__}"
        )
    for calls in runs.values():
        check_int("runs (each run's calls)", calls, minimum=0)
    connections = check_collection("connections", connections, "a list of counts", "count")
    for n in connections:
        check_int("connections", n, minimum=1)
    check_number("reply_seconds", reply_seconds, minimum=0.0)
    _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    values = []
    for name, calls in runs.items():
        minutes = [math.ceil(calls / n) * reply_seconds / 60 for n in connections]
        values += minutes
        (line,) = ax.plot(connections, minutes, marker="o")
        ax.annotate(  # each line named beside itself (no legend that needs colour alone)
            f"{name} ({calls:,} calls)",
            (connections[0], minutes[0]),
            xytext=(4, 6),
            textcoords="offset points",
            va="bottom",
            color=line.get_color(),
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(connections), [str(n) for n in connections])
    low, high = min(v for v in values if v > 0), max(values)
    ticks = [t for t in (0.01, 0.1, 1, 10, 100, 1000) if low / 3 < t < high * 3]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])  # plain numbers, not 10 to a power
    ax.minorticks_off()
    ax.set(xlabel="connections (calls at once)", ylabel="minutes")
    ax.set_title(f"Waiting for a model that takes {reply_seconds:g} s a reply")
    ax.grid(alpha=0.3)
    return ax
