"""Exercise checks for notebooks/13_real_client.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in: from the simulator as the
course's server answers it, without the HTTP in between (tests/test_client.py checks that
the real SDK talking to a real server gets the same counts).
"""

from __future__ import annotations

import functools
import math
from typing import Any

from .._frozen import ReadOnlyDict as _ReadOnlyDict
from ..panel import Panel as _Panel
from ..panel import judge_models as _judge_models
from ..records import SEED as _SEED
from ..records import make_records as _make_records
from ._common import _grade_number

__all__ = ["NEIGHBOUR_SEEDS", "SDK_RETRIES", "check_neighbour_cache", "check_sdk_retries"]

SDK_RETRIES = 2
"""The SDK's own default number of retries, turned back on in exercise 1."""
NEIGHBOUR_SEEDS = 20
"""Exercise 2: the panel runs at this many seeds from SEED in turn, sharing one cache."""


class _Served:
    """The lesson's judge as the course's server answers it, counting the requests that reach
    it: one rate-limit clock, set back to zero at the start of each panel run (``on_reset``).

    ``retries``: how many times a refused call is sent again with the same seed (the SDK's own
    retries).  ``cache``: a dict of the questions already answered, which never reach the
    server (a :class:`~lessonlib.client.ReplyCache` keeps refusals too).
    """

    def __init__(self, retries=0, cache=None):
        self.model = _judge_models("lesson")[0]
        self.retries, self.cache, self.requests, self.tokens = retries, cache, 0, 0
        self.questions = 0

    def reset(self):
        self.model.reset()

    def __call__(self, prompt, seed):
        self.questions += 1
        if self.cache is not None and (prompt, seed) in self.cache:
            return self.cache[prompt, seed]
        for _ in range(1 + self.retries):
            self.requests += 1
            reply = self.model.call(prompt, seed)
            self.tokens += reply.input_tokens or 0
            if reply.status != "rate_limit":
                break
        if self.cache is not None:
            self.cache[prompt, seed] = reply
        return reply


def _lesson_run(served, seed):
    """The lesson's judge (one judge, asked once, unreadable = clean) on ``served``."""
    return _Panel([served], on_unreadable="clean").run(_make_records(), seed)


@functools.cache  # the same bill every time: computed once a session
def _sdk_retry_bill(retries=SDK_RETRIES):
    """(calls the panel counts, requests the server answers, input tokens the panel counts,
    input tokens the server reads) for the lesson's judge with ``retries`` SDK retries."""
    served = _Served(retries=retries)
    run = _lesson_run(served, _SEED)
    return run.calls, served.requests, run.input_tokens, served.tokens


def _token_shortfall():
    """The answer of 13, exercise 1: input tokens the server reads that the panel's count
    leaves out when the SDK resends refused requests itself."""
    _, _, panel_tokens, server_tokens = _sdk_retry_bill()
    return server_tokens - panel_tokens


def check_sdk_retries(answer: Any) -> bool:
    """13, exercise 1: with ``max_retries=2``, the input tokens the server reads that the
    panel's count leaves out."""

    def passed(truth):
        panel, server, panel_tokens, server_tokens = _sdk_retry_bill()
        return (
            f"the panel counts {panel} calls and {panel_tokens} input tokens; "
            f"the server answers {server} requests and reads {server_tokens} "
            f"tokens. The {server - panel} requests the SDK resent with the same "
            f"seed never reached the panel, and neither did their {truth} tokens."
        )

    bill = "that is a whole bill; the question asks for the difference between what the "
    bill += "server reads and what the panel counts."
    return _grade_number(
        answer,
        _token_shortfall,
        places=None,
        fill="fill in answer: a whole number, the input tokens the server reads "
        "that the panel's count leaves out.",
        kind="a whole number of input tokens",
        passed=passed,
        slips=[
            (
                lambda: _sdk_retry_bill()[1] - _sdk_retry_bill()[0],
                "that is a number of calls, the resent requests. The question "
                "asks for the input tokens those requests carried.",
            ),
            (lambda: _sdk_retry_bill()[2], bill),
            (lambda: _sdk_retry_bill()[3], bill),
        ],
        hint="that count is not it. Run the lesson's judge with the SDK's retries on "
        "and read the panel's input tokens; the server reads every request it "
        "answers, resent ones included, as a run with max_retries=0 shows.",
    )


def _neighbour_cache_requests():
    """Requests a run at SEED + 1 sends when the cache holds a run at SEED."""
    served = _Served(cache={})
    _lesson_run(served, _SEED)
    before = served.requests
    _lesson_run(served, _SEED + 1)
    return served.requests - before


@functools.cache  # the same count every time: computed once a session
def _neighbour_cache_hits(seeds=NEIGHBOUR_SEEDS):
    """Questions the runs at SEED, SEED + 1, ... (``seeds`` runs in turn, one cache) take from
    the cache instead of the server: the answer of 13, exercise 2."""
    served = _Served(cache={})
    hits = 0
    for k in range(seeds):
        asked, sent = served.questions, served.requests
        _lesson_run(served, _SEED + k)
        hits += (served.questions - asked) - (served.requests - sent)
    return hits


def check_neighbour_cache(hits: Any) -> bool:
    """13, exercise 2: how many questions the lesson's judge, run as a one-judge panel (a
    refusal retried once with seed + 1) at the NEIGHBOUR_SEEDS seeds from SEED in turn with
    one cache, takes from that cache instead of sending them to the server."""
    kind = "a whole number >= 0: the questions the cache answers over all the runs"
    return _grade_number(
        hits,
        _neighbour_cache_hits,
        places=None,
        fill="fill in hits: a whole number, the questions of all the runs answered from "
        "the cache, never sent to the server.",
        kind=kind,
        bounds=(0, math.inf),
        passed=lambda right: (
            f"{right} questions over the {NEIGHBOUR_SEEDS} runs came from the disk: each "
            "is a retry of one run, asked with seed + 1, which is the next run's own "
            "seed. The server's rate-limit clock never counted them."
        ),
        slips=[
            (
                0,
                "0 is what judge_records gives: its back-off waits out a refusal and asks "
                "the same seed again, so no run asks the next run's seed. The exercise asks "
                "for the one-judge panel of 'Three values', which retries a refusal with "
                "seed + 1.",
            ),
            (
                lambda: _neighbour_cache_hits(2),
                f"that is the count for the first pair of runs; the question runs all "
                f"{NEIGHBOUR_SEEDS} seeds in turn with the one cache and adds up every run.",
            ),
        ],
        hint="not that count. A question is the model, the prompt, the temperature, the "
        "seed and max_tokens: which questions of one run does the run at the next seed "
        "ask again? Count each run's questions and the server's requests during it.",
    )


_ANSWERS = _ReadOnlyDict(
    {
        "check_sdk_retries": _token_shortfall,
        "check_neighbour_cache": _neighbour_cache_hits,
    }
)
"""Each check's right answer, computed (read by tests/test_course_read.py)."""
