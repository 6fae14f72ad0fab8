"""Notebook 13 - the official ``openai`` SDK as an ask ``(prompt, seed) -> ClientReply``.

Three values say where :class:`OpenAIAsk` goes - ``base_url``, ``api_key``, ``model`` - so
the same code talks to the course's server, to a local model server (Ollama, llama.cpp,
vLLM) or to a hosted API.  It reads each reply by protocol (:func:`~lessonlib.verdict.
read_reply`), maps refusals to statuses, and keeps replies in a
:class:`~lessonlib.reply_cache.ReplyCache` when given one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from ._checks import check_int, check_number, check_seed, check_str
from .reply_cache import ClientReply, ReplyCache
from .simulator import TEMPERATURE
from .verdict import read_reply

__all__ = ["HOST", "LOOPBACK", "OpenAIAsk"]

HOST = "127.0.0.1"
"""The course's server listens here and nowhere else."""
LOOPBACK = (HOST, "localhost", "::1")
"""Host names of this machine: a client going there takes no proxy from the environment."""


class OpenAIAsk:
    """Notebook 13 - an ask ``(prompt, seed) -> AskReply`` on the official ``openai`` SDK.

    ``base_url``, ``api_key`` and ``model`` say where the questions go.  Each
    call sends the prompt as one user message with ``temperature``, the seed
    and, when given, ``max_tokens`` and ``response_format`` (for instance
    :func:`~lessonlib.verdict.label_response_format`, the verdict as JSON),
    and waits at most ``timeout`` seconds.

    What comes back, in the ask protocol's terms:

    * a reply: its text becomes the label :func:`~lessonlib.verdict.read_reply`
      reads in it by protocol, or "" when it states none (the reply as written
      is kept in ``raw``), so no reader further on can take "Temiz değil." for
      temiz;
      its ``usage.prompt_tokens`` becomes the input tokens, status ``'ok'``;
    * HTTP 429: status ``'rate_limit'``; no reply in time: status
      ``'timeout'``; a prompt longer than the model's window: status
      ``'context_overflow'``.  The text is empty, so the panel retries once
      with seed + 1 and then applies its unreadable rule.  The input tokens are
      left to the course tokenizer, as the lesson counts refused calls;
    * anything else (no server at ``base_url``, a wrong key or model name, a
      reply that is not a chat completion) raises an error that says so.

    The SDK's own retries are off (``max_retries=0``, the default here; the
    SDK's is 2): they would resend the same seed, hide calls from the panel's
    count and wait between attempts.  The panel's rule - one retry with
    seed + 1 - is then the only one in force.  Exercise 1 of notebook 13
    turns them on to show the difference.

    ``cache``: a :class:`ReplyCache` (default None, no cache).  ``on_reset``:
    called with the model name when the panel starts a run, e.g. the course
    server's ``reset`` so its rate-limit clock starts at zero each run.

    One ask may be called from many threads at once (``judge_records``,
    ``Panel.run(..., max_connections=N)``): the SDK's client is shared, each
    call takes a connection from its pool.  The seed is sent as a Python int
    whatever whole number it was (a numpy integer too).
    """

    concurrent = True
    """Calls may run side by side: its answers do not depend on the order of the calls."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        *,
        temperature: float = TEMPERATURE,
        max_tokens: int | None = None,
        timeout: float = 30.0,
        cache: ReplyCache | None = None,
        on_reset: Callable[[str], object] | None = None,
        max_retries: int = 0,
        response_format: Mapping[str, Any] | None = None,
    ) -> None:
        check_str("base_url", base_url)
        check_str("api_key", api_key)
        check_str("model", model)
        temperature = check_number("temperature", temperature, minimum=0.0)
        max_tokens = None if max_tokens is None else check_int("max_tokens", max_tokens, minimum=1)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not (math.isfinite(timeout) and timeout > 0)
        ):
            raise (
                TypeError
                if not isinstance(timeout, (int, float)) or isinstance(timeout, bool)
                else ValueError
            )(
                f"timeout must be a number of seconds > 0 (how long one call may take), got "
                f"{timeout!r}"
            )
        max_retries = check_int("max_retries", max_retries, minimum=0)
        if cache is not None and not (
            callable(getattr(cache, "get", None)) and callable(getattr(cache, "put", None))
        ):
            raise TypeError(f"cache must be a ReplyCache (or None), got {type(cache).__name__}")
        if on_reset is not None and not callable(on_reset):
            raise TypeError(f"on_reset must be callable (or None), got {on_reset!r}")
        if response_format is not None and not (
            isinstance(response_format, Mapping) and isinstance(response_format.get("type"), str)
        ):
            raise TypeError(
                "response_format must be a dict with a 'type' (say "
                f"verdict.label_response_format()) or None, got {response_format!r}"
            )
        self.response_format = None if response_format is None else dict(response_format)
        self.base_url, self.model, self.temperature = base_url, model, temperature
        self.max_tokens, self.timeout = max_tokens, float(timeout)
        try:
            import openai
        except ImportError:
            raise ImportError(
                "OpenAIAsk needs the openai package: pip install -e '.[client]'"
            ) from None
        self.cache, self._on_reset, self._openai = cache, on_reset, openai
        options: dict[str, Any] = {}
        if urlsplit(base_url).hostname in LOOPBACK:  # no proxy from the environment
            options["http_client"] = openai.DefaultHttpxClient(trust_env=False)
        self._sdk = openai.OpenAI(
            base_url=base_url,
            api_key=api_key,
            timeout=self.timeout,
            max_retries=max_retries,
            **options,
        )

    def __repr__(self) -> str:
        return f"OpenAIAsk(model={self.model!r}, temperature={self.temperature})"

    def reset(self) -> None:
        """Called by the panel at the start of a run; passes the model name to ``on_reset``."""
        if self._on_reset is not None:
            self._on_reset(self.model)

    def __call__(self, prompt: str, seed: int) -> ClientReply:
        """Ask once (or read the cache): a :class:`ClientReply` for ``prompt`` with ``seed``."""
        return self._call(prompt, seed, read_cache=True)

    def ask_again(self, prompt: str, seed: int) -> ClientReply:
        """Ask the model even when the cache holds a reply (a refusal, say), and keep the new
        one: the call a back-off makes after waiting."""
        return self._call(prompt, seed, read_cache=False)

    def cached(self, prompt: str, seed: int) -> ClientReply | None:
        """The reply the cache holds for ``prompt`` with ``seed``, or None (no cache, or not
        asked yet); nothing is sent."""
        return None if self.cache is None else self.cache.get(self._question(prompt, seed))

    def _question(self, prompt, seed):
        """What the cache keys a reply by: everything that changes it, nothing else."""
        question = {
            "model": self.model,
            "prompt": prompt,
            "temperature": self.temperature,
            "seed": seed,
            "max_tokens": self.max_tokens,
        }
        if self.response_format is not None:
            question["response_format"] = self.response_format
        return question

    def _call(self, prompt, seed, read_cache):
        check_str("prompt", prompt)
        try:
            prompt.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"prompt holds a lone surrogate {prompt[exc.start]!r} at position "
                f"{exc.start}: it is not text a server can receive (UTF-8); "
                f"fix the text before asking"
            ) from None
        seed = check_seed(seed)  # a Python int from here on (numpy ints too)
        question = self._question(prompt, seed)
        reply = None if self.cache is None or not read_cache else self.cache.get(question)
        if reply is None:
            reply = self._ask(prompt, seed)
            if self.cache is not None:
                self.cache.put(question, reply)
        return reply

    def _ask(self, prompt, seed):
        """One HTTP call through the SDK, mapped to a ClientReply."""
        openai = self._openai
        extra: dict[str, Any] = {} if self.max_tokens is None else {"max_tokens": self.max_tokens}
        if self.response_format is not None:
            extra["response_format"] = self.response_format
        try:
            out = self._sdk.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": prompt}],
                temperature=self.temperature,
                seed=seed,
                **extra,
            )
        except openai.RateLimitError as exc:
            return ClientReply("", None, "rate_limit", retry_after=_retry_after(exc.response))
        except openai.APITimeoutError:
            return ClientReply("", None, "timeout")
        except openai.BadRequestError as exc:
            if getattr(exc, "code", None) == "context_length_exceeded":
                return ClientReply("", None, "context_overflow")
            raise
        except openai.APIConnectionError as exc:
            raise ConnectionError(
                f"no connection to {self.base_url} ({exc}); is the server "
                f"running, and is base_url right?"
            ) from None
        except ValueError as exc:  # the body said it was JSON but was not
            raise RuntimeError(
                f"the server at {self.base_url} sent malformed JSON ({exc})"
            ) from None
        try:
            text = out.choices[0].message.content or ""
            tokens = out.usage.prompt_tokens if out.usage is not None else None
        except (AttributeError, IndexError, TypeError):
            raise RuntimeError(
                f"the server at {self.base_url} did not send a chat completion; "
                f"it sent {str(out)[:80]!r}"
            ) from None
        if tokens is not None and (not isinstance(tokens, int) or tokens < 0):
            raise RuntimeError(
                f"the server at {self.base_url} sent usage.prompt_tokens {tokens!r}, not a count"
            )
        return ClientReply(read_reply(text) or "", tokens, "ok", raw=text)


def _retry_after(response):
    """The wait in seconds a 429 asks for (``Retry-After-Ms``, else ``Retry-After`` in whole
    seconds), or None when it names none a client can read."""
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            wait = float(value) / scale  # type: ignore[arg-type]  # None: TypeError
        except (TypeError, ValueError):
            continue
        if math.isfinite(wait) and wait >= 0:
            return wait
    return None
