"""Notebook 13 - a real client in the judge's seat: one judge over the records, and its cost.

The real-client path lives in rooms by job, each its own module; this one runs a judge
through them and re-exports every name notebook 13 reaches as ``client.X``:

* :mod:`~lessonlib.verdict` - the verdict protocol and its reader (``read_reply``);
* :mod:`~lessonlib.reply_cache` - replies on disk (``ReplyCache``);
* :mod:`~lessonlib.backoff` - waiting out a real API's refusals (``Backoff``);
* :mod:`~lessonlib.sdk_ask` - the official ``openai`` SDK as an ask (``OpenAIAsk``);
* :mod:`~lessonlib.server` - the simulator behind a loopback server (``SimulatorServer``);
* here: :func:`judge_records` (calls side by side, the back-off before the lesson's
  unreadable rule, through the one ask-retry loop ``judge.ask_for_label``),
  :class:`ClientRun`, and what a run costs (``run_cost``, ``wait_minutes``,
  ``plot_wait_minutes``).
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
from .backoff import DEFAULT_BACKOFF, NO_BACKOFF, TRANSIENT, Backoff, Patient, WaitedReply
from .connections import Progress, check_connections
from .figures import FIGURE_WIDTH, slide_figure
from .judge import (
    CLEAN,
    GUIDELINE,
    HARMFUL,
    UNREADABLE_RULES,
    Ask,
    ask_each,
    build_prompt,
    tally,
)
from .records import SEED, Record, check_records
from .reply_cache import CACHE_FOLDER, ClientReply, ReplyCache
from .sdk_ask import HOST, LOOPBACK, OpenAIAsk
from .server import BACKLOG, MAX_BODY, ROUTE, SimulatorServer
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
    "BACKLOG",
    "CACHE_FOLDER",
    "HOST",
    "LOOPBACK",
    "MAX_BODY",
    "NO_BACKOFF",
    "ROUTE",
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
    "wait_minutes",
]


@dataclass(frozen=True)
class ClientRun:
    """What :func:`judge_records` returns (notebook 13): the labels and what they cost.

    ``calls``: requests sent to the model, the repeats after a wait included
    (replies read from a cache are counted in ``cached``, not here).
    ``retries``: records asked again with seed + 1 (an unreadable reply);
    ``unreadable``: records still unreadable after that, labelled by the
    run's rule; ``refused``: those of them whose last answer was a refusal
    (429 or timeout) that outlasted the back-off.  ``waits``: back-off waits,
    ``waited``: their seconds in total.
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
    seconds: float = field(default=0.0, compare=False, repr=False)  # the run's wall time


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
    """Notebook 13 - one judge over every record, up to ``max_connections`` calls at once.

    The judge's rules on any ask (an :class:`OpenAIAsk` above all), through
    the one ask-retry loop of the course (``judge.ask_for_label``): each
    record is asked with ``seed``; a reply :func:`read_reply` cannot read is
    asked once more with ``seed + 1``; a record still unreadable is labelled
    ``unreadable_as`` ('clean', the lesson's fail-open, or 'harmful').  The
    prompt asks for the verdict protocol (``guideline``, default
    :data:`VERDICT_GUIDELINE`: a last line ``ETİKET: <label>``).

    Before the unreadable rule, a refusal from the service - HTTP 429 or a
    timeout - is waited out and asked again as ``backoff`` says
    (:class:`Backoff`: exponential with jitter, ``Retry-After`` trusted up to
    its cap, a bounded number of times): a real API saying "wait" is not the
    judge saying nothing.  ``backoff=NO_BACKOFF`` is the lesson's rule.

    ``max_connections`` calls run at once through the one ask (one shared
    client); the answers are added up in the records' order, so the labels
    and the cost are those of one connection whenever the model's answers do
    not depend on the order of the calls.  An ask with a ``reset`` method is
    reset first (the course server's rate-limit clock).  ``progress=True``
    draws a text bar on standard output; nothing is printed otherwise.

    With a :class:`ReplyCache` on the ask, a run stopped half-way and asked
    again makes no call it already made.  Under the lesson's rule
    (``max_waits=0``) such a resumed run is refused: there a refusal is an
    answer, and which call the server refuses depends on how many calls it
    has counted, which replies read from the cache do not repeat, so the
    resumed run would not be the uninterrupted one.
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
    patient = Patient(ask, backoff, random.Random().random)
    bar = Progress(len(records), progress)
    start = time.perf_counter()
    answers = ask_each(
        patient, prompts, seed, None, max_connections, read=read_reply, on_done=bar.step
    )
    cost = tally(answers)
    fallback = CLEAN if unreadable_as == "clean" else HARMFUL
    labels = {r.no: fallback if a.label is None else a.label for r, a in zip(records, answers)}
    waited: list[WaitedReply] = [w for a in answers for w in a.replies]
    return ClientRun(
        labels,
        sum(w.requests for w in waited),
        cost.input_tokens,
        cost.retries,
        cost.unreadable,
        sum(a.label is None and a.statuses[-1] in TRANSIENT for a in answers),
        sum(w.waits for w in waited),
        round(sum(w.waited for w in waited), 3),
        sum(w.cached for w in waited),
        seed,
        time.perf_counter() - start,
    )


def _refuse_a_resumed_run(ask, prompts, seed):
    """Under the lesson's rule, refuse a run whose cache holds part of its questions: some
    records' first question and not others', or a first reply it cannot read (the run asks
    seed + 1 then) without the second."""
    cached = getattr(ask, "cached", None)
    if not callable(cached):
        return
    held = missing = 0
    for prompt in prompts:
        first = cached(prompt, seed)
        if first is None:
            missing += 1
            continue
        held += 1
        if read_reply(first.text) is None and cached(prompt, seed + 1) is None:
            missing += 1
    if held and missing:
        raise ValueError(
            f"backoff: the cache holds part of this run ({held} of its {len(prompts)} records "
            "asked, some not or not to the end), and resuming under the lesson's rule "
            "(NO_BACKOFF) is refused: there a 429 is an answer, and which call the server "
            "refuses depends on the calls it has counted, which replies read from the cache "
            "do not repeat, so the resumed run would not be the uninterrupted one. Resume "
            "with a Backoff (refusals waited out) or start from an empty cache."
        )


# ---------------------------------------------------------------------------
# What a run costs
# ---------------------------------------------------------------------------


def run_cost(
    records: Iterable[Record], judges: int = 1, quorum: int = 1, guideline: str = GUIDELINE
) -> dict[str, int]:
    """Notebook 13 - the least a panel run costs: one call per judge, sample and record.

    Returns ``calls``, ``input_tokens`` (the course tokenizer's count) and
    ``characters`` of the prompts sent.  Retries come on top: one more call
    for each refused or unreadable reply.  A real model counts tokens with
    its own tokenizer; its ``usage.prompt_tokens`` on a few records tells
    how far that count is from the course's.
    """
    records = check_records(records)
    judges = check_int("judges", judges, minimum=1)
    quorum = check_int("quorum", quorum, minimum=1)
    check_str("guideline", guideline)
    prompts = [build_prompt(r, guideline) for r in records]
    times = judges * quorum
    return {
        "calls": times * len(prompts),
        "input_tokens": times * sum(len(tokenize(p)) for p in prompts),
        "characters": times * sum(len(p) for p in prompts),
    }


def wait_minutes(
    calls: int, connections: Iterable[int], reply_seconds: float = 1.0
) -> list[float]:
    """Notebook 13 - minutes a run of ``calls`` waits at each number of connections when every
    reply takes ``reply_seconds``: the calls go out ``n`` at a time, so ``ceil(calls / n)``
    rounds of one reply each (the server's own limits and the rate limit left out)."""
    calls = check_int("calls", calls, minimum=0)
    reply_seconds = check_number("reply_seconds", reply_seconds, minimum=0.0)
    counts = [check_int("connections", n, minimum=1) for n in connections]
    return [math.ceil(calls / n) * reply_seconds / 60 for n in counts]


@slide_figure
def plot_wait_minutes(
    runs: dict[str, int],
    connections: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    reply_seconds: float = 1.0,
) -> Any:
    """Notebook 13: minutes waited against connections, one line per run (``{name: calls}``),
    both axes on a log scale, from :func:`wait_minutes`.  Returns the Axes."""
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
        minutes = wait_minutes(calls, connections, reply_seconds)
        values += minutes
        (line,) = ax.plot(connections, minutes, marker="o")
        # each line named beside itself (no legend that needs colour alone)
        ax.annotate(
            f"{name} ({calls:,} calls)",
            (connections[0], minutes[0]),
            xytext=(4, 6),
            textcoords="offset points",
            ha="left",
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
    ax.set_xlabel("connections (calls at once)")
    ax.set_ylabel("minutes")
    ax.set_title(f"Waiting for a model that takes {reply_seconds:g} s a reply")
    ax.grid(alpha=0.3)
    return ax
