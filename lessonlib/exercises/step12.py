"""Exercise checks for notebooks/12_real_client.ipynb.

Each check prints ``PASS: ...`` or ``Not yet: ...`` (a hint) and returns True or False;
the right answer is computed here from lessonlib, never typed in: from the simulator as the
course's server answers it, without the HTTP in between (tests/test_client.py checks that
the real SDK talking to a real server gets the same counts).
"""

from __future__ import annotations

from ..panel import Panel, judge_models
from ..records import SEED, make_records
from ._common import _is_whole, _say

__all__ = ["SDK_RETRIES", "check_neighbour_cache", "check_sdk_retries", "neighbour_cache_requests",
           "sdk_retry_counts"]

SDK_RETRIES = 2
"""The SDK's own default number of retries, turned back on in exercise 1."""


class _Served:
    """The lesson's judge as the course's server answers it, counting the requests that reach
    it: one rate-limit clock, set back to zero at the start of each panel run (``on_reset``).

    ``retries``: how many times a refused call is sent again with the same seed (the SDK's own
    retries).  ``cache``: a dict of the questions already answered, which never reach the
    server (a :class:`~lessonlib.client.ReplyCache` keeps refusals too).
    """

    def __init__(self, retries=0, cache=None):
        self.model = judge_models("lesson")[0]
        self.retries, self.cache, self.requests = retries, cache, 0

    def reset(self):
        self.model.reset()

    def __call__(self, prompt, seed):
        if self.cache is not None and (prompt, seed) in self.cache:
            return self.cache[prompt, seed]
        for _ in range(1 + self.retries):
            self.requests += 1
            reply = self.model.call(prompt, seed)
            if reply.status != "rate_limit":
                break
        if self.cache is not None:
            self.cache[prompt, seed] = reply
        return reply


def _lesson_run(served, seed):
    """The lesson's judge (one judge, asked once, unreadable = clean) on ``served``."""
    return Panel([served], on_unreadable="clean").run(make_records(), seed)


def sdk_retry_counts():
    """(calls the panel counts, requests the server answers) for the lesson's judge with the
    SDK's own retries on."""
    served = _Served(retries=SDK_RETRIES)
    return _lesson_run(served, SEED).calls, served.requests


def _pair(answer):
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or len(answer) != 2:
        return None
    return tuple(answer) if all(_is_whole(x) for x in answer) else None


def check_sdk_retries(answer):
    """12, exercise 1: with ``max_retries=2``, (calls the panel counts, requests the server
    answers)."""
    pair = _pair(answer)
    if pair is None:
        return _say(False, "give two whole numbers as a pair: the calls the panel counts and "
                           f"the requests the server answers (got {answer!r}). Build the "
                           f"lesson's ask with max_retries={SDK_RETRIES} and run it.")
    panel, server = sdk_retry_counts()
    if pair == (panel, server):
        return _say(True, f"the panel counts {panel} calls, the server answers {server} "
                          f"requests: {server - panel} calls the panel never saw, resent by "
                          "the SDK with the same seed, their tokens missing from the bill. "
                          "With max_retries=0 the two counts agree, and the panel's own "
                          "retry (seed + 1) is the only one.")
    if pair[0] != panel:
        return _say(False, f"{pair[0]} is not what the panel counts. A refusal the SDK "
                           "retries by itself never comes back to the panel: how many "
                           "replies does the panel see, and how many of them does it ask "
                           "again?")
    return _say(False, f"{pair[1]} is not what the server answers. The server counts every "
                       "request that reaches it, the SDK's resent ones included.")


def neighbour_cache_requests():
    """Requests a run at SEED + 1 sends when the cache holds a run at SEED."""
    served = _Served(cache={})
    _lesson_run(served, SEED)
    before = served.requests
    _lesson_run(served, SEED + 1)
    return served.requests - before


def check_neighbour_cache(requests):
    """12, exercise 2: requests a run at SEED + 1 sends to the server with the cache of a run
    at SEED."""
    if not _is_whole(requests) or requests < 0:
        return _say(False, "give a whole number >= 0: the requests the second run sends to "
                           f"the server (got {requests!r}).")
    right = neighbour_cache_requests()
    if requests == right:
        return _say(True, f"{right} requests: every question of the second run that the "
                          "first run had already asked (a retry of the first run asks with "
                          "seed + 1, the second run's own seed) came from the disk, and the "
                          "server's rate-limit clock never counted them.")
    return _say(False, f"{requests} is not it. A question is the model, the prompt, the "
                       "temperature, the seed and max_tokens: which questions of the run at "
                       "the lesson's seed does the run at the next seed ask again? Run the "
                       "two and count the server's requests in between.")
