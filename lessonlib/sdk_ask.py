"""Notebook 13 - the official ``openai`` SDK as an ask (:class:`OpenAIAsk`: ``base_url``,
``api_key``, ``model``: the course's server, a local model server or a hosted API), and its
replies kept on disk (:class:`ReplyCache`), so a run is read again or resumed without asking
twice.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._checks import check_int, check_number, check_seed, check_str
from .panel import AskReply
from .simulator import TEMPERATURE
from .verdict import read_reply

__all__ = ["CACHE_FOLDER", "HOST", "ClientReply", "OpenAIAsk", "ReplyCache"]

HOST = "127.0.0.1"
"""The course's server listens here and nowhere else."""
CACHE_FOLDER = Path(__file__).resolve().parents[1] / ".cache" / "replies"
"""Where :class:`ReplyCache` keeps replies by default (git ignores ``.cache/``)."""


@dataclass(frozen=True)
class ClientReply(AskReply):
    """An :class:`AskReply` from :class:`OpenAIAsk`, plus the wait a 429 asked for
    (``retry_after``, seconds), the HTTP ``requests`` it took (0: read from a cache) and the
    ``raw`` reply as the model wrote it."""

    retry_after: float | None = field(default=None, repr=False)
    requests: int = field(default=1, repr=False, compare=False)
    raw: str = field(default="", repr=False)


class ReplyCache:
    """Replies on disk, one JSON file per question (a dict: model, prompt, temperature, seed,
    max_tokens and any response_format; not the server's address).  Refusals are kept too:
    the cache is the run as it happened.  Delete the folder to ask again."""

    def __init__(self, folder: str | os.PathLike[str] = CACHE_FOLDER) -> None:
        if not isinstance(folder, (str, os.PathLike)):
            raise TypeError(
                f"folder must be a path (a str or a pathlib.Path), got {type(folder).__name__} "
                f"{folder!r}"
            )
        self.folder = Path(folder)

    def __repr__(self) -> str:
        return f"ReplyCache({len(self)} replies)"

    def __len__(self) -> int:
        return len(list(self.folder.glob("*.json")))

    def _path(self, question):
        key = json.dumps(question, sort_keys=True, ensure_ascii=True).encode("ascii")
        return self.folder / (hashlib.sha256(key).hexdigest() + ".json")

    def get(self, question: Mapping[str, Any]) -> ClientReply | None:
        """The reply stored for ``question`` (``requests`` 0), or None; a damaged file is a
        ValueError naming it."""
        path = self._path(question)
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored["question"] != question:
                raise ValueError("it holds another question")
            return replace(ClientReply(**stored["reply"]), requests=0)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:  # not UTF-8 or JSON, a folder
            raise _damaged(path, exc) from None

    def put(self, question: Mapping[str, Any], reply: AskReply) -> None:
        """Store ``reply`` for ``question``, whole or not at all: written to a temporary file,
        then renamed over the reply's name (atomic), so threads and processes can share it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(question)
        if path.is_dir():
            raise _damaged(path, "a folder stands where the file should be")
        handle, part = tempfile.mkstemp(dir=self.folder, suffix=".part")
        try:
            with os.fdopen(handle, "w", encoding="ascii") as out:
                json.dump({"question": question, "reply": asdict(reply)}, out)
            os.replace(part, path)
        except BaseException:
            os.unlink(part)
            raise


def _damaged(path, why):
    return ValueError(f"the cached reply {path} is damaged ({why}); delete the file to ask again")


class OpenAIAsk:
    """An ask ``(prompt, seed) -> ClientReply`` on the official ``openai`` SDK.

    Each call sends the prompt as one user message with ``temperature``, the seed and, when
    given, ``max_tokens`` and ``response_format``, and waits at most ``timeout`` seconds.
    The reply's text is the label :func:`~lessonlib.verdict.read_reply` finds, or "" (the
    reply as written is ``raw``); HTTP 429 is status ``rate_limit``, no reply in time
    ``timeout``, a prompt beyond the window ``context_overflow`` (empty text, so the judge
    retries with seed + 1).  No server, a wrong key or model, or a reply that is not a chat
    completion raises an error that says so.

    ``max_retries``: the SDK's own retries, off by default (they resend the same seed and
    hide calls from the count).  ``cache``: a :class:`ReplyCache`.  ``on_reset``: called
    with the model name when a run starts (the course server's rate-limit clock).  One ask
    may be called from many threads at once.
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
        self.temperature = check_number("temperature", temperature, minimum=0.0)
        if max_tokens is not None:
            max_tokens = check_int("max_tokens", max_tokens, minimum=1)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        if cache is not None and not isinstance(cache, ReplyCache):
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
        import openai

        self.base_url, self.model, self.timeout, self.cache = base_url, model, timeout, cache
        self.max_tokens = max_tokens
        self.response_format = None if response_format is None else dict(response_format)
        self._on_reset, self._openai = on_reset, openai
        loopback = urlsplit(base_url).hostname in (HOST, "localhost", "::1")
        self._sdk = openai.OpenAI(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=check_int("max_retries", max_retries, minimum=0),
            # no proxy from the environment for this machine's own servers
            http_client=openai.DefaultHttpxClient(trust_env=False) if loopback else None,
        )

    def __repr__(self) -> str:
        return f"OpenAIAsk(model={self.model!r}, temperature={self.temperature})"

    def reset(self) -> None:
        """Called by the judge at the start of a run; passes the model name to ``on_reset``."""
        if self._on_reset is not None:
            self._on_reset(self.model)

    def __call__(self, prompt: str, seed: int) -> ClientReply:
        """Ask once, or read the reply from the cache."""
        return self._call(prompt, seed, read_cache=True)

    def ask_again(self, prompt: str, seed: int) -> ClientReply:
        """Ask even when the cache holds a reply (a refusal), and keep the new one."""
        return self._call(prompt, seed, read_cache=False)

    def cached(self, prompt: str, seed: int) -> ClientReply | None:
        """The reply the cache holds for ``prompt`` with ``seed``, or None; nothing is sent."""
        return None if self.cache is None else self.cache.get(self._question(prompt, seed))

    def _question(self, prompt, seed):
        """What the cache keys a reply by: everything that changes it, nothing else."""
        question = {"model": self.model, "prompt": prompt, "temperature": self.temperature}
        question |= {"seed": seed, "max_tokens": self.max_tokens}
        if self.response_format is not None:
            question["response_format"] = self.response_format
        return question

    def _call(self, prompt, seed, read_cache):
        check_str("prompt", prompt)
        try:
            prompt.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"prompt holds a lone surrogate at position {exc.start}: not text a server "
                "can receive (UTF-8); fix the text before asking"
            ) from None
        question = self._question(prompt, check_seed(seed))  # numpy ints become ints
        reply = self.cache.get(question) if self.cache is not None and read_cache else None
        if reply is None:
            reply = self._ask(prompt, question["seed"])
            if self.cache is not None:
                self.cache.put(question, reply)
        return reply

    def _ask(self, prompt, seed):
        """One HTTP call through the SDK, mapped to a ClientReply."""
        openai = self._openai
        extra: dict[str, Any] = {"max_tokens": self.max_tokens}
        extra["response_format"] = self.response_format
        try:
            out = self._sdk.chat.completions.create(
                model=self.model,
                messages=[{"role": "user", "content": prompt}],
                temperature=self.temperature,
                seed=seed,
                **{k: v for k, v in extra.items() if v is not None},
            )
        except openai.RateLimitError as exc:
            return ClientReply("", None, "rate_limit", retry_after=_retry_after(exc.response))
        except openai.APITimeoutError:
            return ClientReply("", None, "timeout")
        except openai.BadRequestError as exc:
            if exc.code == "context_length_exceeded":
                return ClientReply("", None, "context_overflow")
            raise
        except openai.APIConnectionError as exc:
            raise ConnectionError(
                f"no connection to {self.base_url} ({exc}); is the server running, and is "
                "base_url right?"
            ) from None
        except ValueError as exc:  # the body said it was JSON but was not
            raise RuntimeError(
                f"the server at {self.base_url} sent malformed JSON ({exc})"
            ) from None
        try:
            text = out.choices[0].message.content or ""
            tokens = None if out.usage is None else out.usage.prompt_tokens
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
    """The wait in seconds a 429 asks for (``Retry-After-Ms``, else ``Retry-After``), or None."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            wait = float(response.headers[name]) / scale
        except (KeyError, ValueError):
            continue
        if math.isfinite(wait) and wait >= 0:
            return wait
    return None
