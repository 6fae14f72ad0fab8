"""Notebook 12 - a real client in the judge's seat: the simulator behind a loopback server.

Five parts, in the order notebook 12 uses them:

* :class:`SimulatorServer` serves the simulated judges on 127.0.0.1 behind the
  OpenAI-compatible route ``POST /v1/chat/completions`` (and ``GET
  /v1/models``).  Its replies are the simulator's own: the same text, the same
  token counts, and HTTP 429 (with ``Retry-After``) on the calls the
  simulator's rate limit refuses; ``latency`` makes it answer as slowly as a
  real model.
* :class:`OpenAIAsk` is an ask ``(prompt, seed) -> AskReply`` built on the
  official ``openai`` package (``pip install -e '.[client]'``).  Three values
  say where it goes - ``base_url``, ``api_key``, ``model`` - so the same code
  talks to this server, to a local model server (Ollama, llama.cpp, vLLM) or to
  a hosted API.
* :func:`read_reply` reads a label only when a reply states one plainly
  (``Zararlı.``, ``ZARARLİ``, ``**temiz**``); a negated, two-sided or hedged
  reply is unreadable.  The lesson's ``read_label`` stays as it is.
* :class:`ReplyCache` keeps every reply on disk (off unless you pass one), so a
  run can be read again, or resumed, without asking the model twice.
* :func:`judge_records` runs one judge over the records with calls side by
  side, waiting out a real API's refusals (:class:`Backoff`) before the
  lesson's unreadable rule applies.

Only loopback is ever served: the server refuses any other host.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import random
import re
import socket
import tempfile
import threading
import time
import unicodedata
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._checks import check_choice, check_int, check_number, check_seed, check_str
from .connections import Progress, check_connections, map_calls
from .figures import FIGURE_WIDTH, slide_figure
from .judge import CLEAN, GUIDELINE, HARMFUL, LABELS, UNREADABLE_RULES, build_prompt, reply_parts
from .panel import JUDGES, AskReply
from .records import SEED, Record, check_records
from .simulator import CUE_TABLE, MAX_OUTPUT, TEMPERATURE, SimulatedModel, tokenize

__all__ = [
    "CACHE_FOLDER",
    "HOST",
    "LOOPBACK",
    "ROUTE",
    "OpenAIAsk",
    "ReplyCache",
    "SimulatorServer",
    "fold",
    "plot_wait_minutes",
    "read_reply",
    "run_cost",
    "wait_minutes",
]

HOST = "127.0.0.1"
LOOPBACK = (HOST, "localhost", "::1")
ROUTE = "/v1/chat/completions"
CACHE_FOLDER = Path(__file__).resolve().parents[1] / ".cache" / "replies"
"""Where :class:`ReplyCache` keeps replies by default (git ignores ``.cache/``)."""
_UNCUT = 10**6  # an output cap no simulated reply reaches: the reply as it would be uncut
BACKLOG = 128
"""The server's listen backlog: clients connecting at once that wait to be accepted."""
MAX_BODY = 1_000_000
"""The largest request body the server reads, in bytes; a larger one is refused with 413."""


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------


def _error(status, message, kind="invalid_request_error", code=None, param=None):
    """An HTTP status and an error body shaped like the OpenAI API's."""
    return status, {"error": {"message": message, "type": kind, "param": param, "code": code}}


class _BadRequest(ValueError):
    """A request the server refuses with HTTP 400, naming the field (``param``) at fault."""

    def __init__(self, message, param=None):
        super().__init__(message)
        self.param = param


def _close(http, thread):
    """Stop serving, hang up on every client and free the port (safe to call twice)."""
    if thread.is_alive():
        http.shutdown()
        thread.join(timeout=10)
    for connection in list(http.connections):  # kept-alive clients included
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    http.server_close()


class SimulatorServer:
    """Notebook 12 - the course's judges behind ``POST /v1/chat/completions`` on 127.0.0.1.

    It starts when it is made and stops with :meth:`stop` (or :meth:`close`,
    or at the end of a ``with`` block, or when the last reference to it goes:
    running ``server = SimulatorServer()`` again in a notebook stops the old
    one, unless something else - a list, ``Out`` - still holds it).  ``port=0``
    picks a free port; :attr:`base_url` says which.  The model names it serves
    are those of ``lessonlib.JUDGES`` (``lesson``, ``plain``, ``wary``,
    ``greedy``); ``GET /v1/models`` lists them.

    * ``latency``: seconds each reply waits before it is sent, to stand in for
      a real model (0.0: at once).  Waiting holds no lock: calls side by side
      wait side by side.
    * ``rate_limit``: True (default) refuses every ``RATE_LIMIT_EVERY``-th
      call to a model with HTTP 429 as the simulator does; False never does.
      Each model name keeps one rate-limit clock, as a real API counts every
      call made to a model, and :meth:`reset` sets it back to zero (a real
      API has no such button).  Each 429 carries ``Retry-After`` (whole
      seconds, rounded up) and ``Retry-After-Ms`` (at least 1): ``retry_after``
      seconds, 0 by default (the simulator refuses one call, not a stretch).

    It holds 64 clients at once and more (one thread per connection, a listen
    backlog of :data:`BACKLOG`).  A request body over :data:`MAX_BODY` bytes
    is refused with 413; a malformed request gets a 4xx JSON error, and
    nothing is ever printed.  ``stream: true`` is answered with server-sent
    events; ``n`` other than 1 is refused with 400.
    """

    def __init__(
        self,
        host: str = HOST,
        port: int = 0,
        *,
        latency: float = 0.0,
        rate_limit: bool = True,
        retry_after: float = 0.0,
    ) -> None:
        if host != HOST:
            raise ValueError(
                f"host must be {HOST!r}: the course's server listens on loopback "
                f"only, got {host!r}"
            )
        port = check_int("port", port, minimum=0)
        self.latency = check_number("latency", latency, minimum=0.0)
        if not isinstance(rate_limit, bool):
            raise TypeError(f"rate_limit must be True or False, got {rate_limit!r}")
        self.rate_limit = rate_limit
        self.retry_after = check_number("retry_after", retry_after, minimum=0.0)
        self._specs = {spec.name: spec for spec in JUDGES}
        self._clocks = dict.fromkeys(self._specs, 0)
        self._lock = threading.Lock()
        self.requests = 0  # requests received on the route, valid or not
        try:
            self._http = _HTTPServer((HOST, port), _Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise OSError(
                    errno.EADDRINUSE,
                    f"port {port} on {HOST} is already in use; pass port=0 for a free one",
                ) from None
            raise
        self._http.course, self._http.connections = weakref.ref(self), set()
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            args=(0.01,),
            daemon=True,
            name="lessonlib-simulator-server",
        )
        self._thread.start()
        self._stop = weakref.finalize(self, _close, self._http, self._thread)

    @property
    def port(self) -> int:
        """The port it listens on (the free one it picked when made with ``port=0``)."""
        return self._http.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give a client, e.g. ``http://127.0.0.1:8123/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def models(self) -> tuple[str, ...]:
        """The model names it serves."""
        return tuple(self._specs)

    def ask(self, model: str, **options: Any) -> OpenAIAsk:
        """An :class:`OpenAIAsk` for ``model`` on this server: its base URL, any key, the
        model's own temperature, and the clock reset at the start of each panel run."""
        if model not in self._specs:
            raise ValueError(
                f"model must be one this server serves ({', '.join(self._specs)}), got {model!r}"
            )
        options = {
            "temperature": self._specs[model].temperature,
            "on_reset": self.reset,
            **options,
        }
        return OpenAIAsk(self.base_url, "course", model, **options)

    def reset(self, model: str | None = None) -> None:
        """Set the rate-limit clock of ``model`` (default: every model) back to zero."""
        with self._lock:
            for name in self._clocks if model is None else (model,):
                self._clocks[name] = 0

    def stop(self) -> None:
        """Stop serving, hang up on every client and free the port (calling it twice is fine)."""
        self._stop()

    close = stop

    def __enter__(self) -> SimulatorServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "serving" if self._stop.alive else "stopped"
        return f"SimulatorServer({state}, models={', '.join(self._specs)})"

    def model_list(self) -> dict[str, Any]:
        """The body of ``GET /v1/models``: every model served, as the OpenAI API lists them."""
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "lessonlib"}
                for name in self._specs
            ],
        }

    def complete(self, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) for one chat-completions request ``body`` (a dict).

        The body of a streamed request (``stream: true``) is the completion the
        events carry; the handler cuts it into events.
        """
        try:
            name, prompt, temperature, seed, cap = self._read_request(body)
        except _BadRequest as exc:
            return _error(400, str(exc), param=exc.param)
        except LookupError as exc:
            return _error(404, exc.args[0], code="model_not_found", param="model")
        spec = self._specs[name]
        model = SimulatedModel(
            temperature,
            CUE_TABLE,
            dict(spec.spurious),
            dict(spec.prior),
            max_output=cap,
            name=name,
        )
        plan = model.plan(prompt)  # tokenizing: outside the lock, one client at a time
        with self._lock:  # one clock per model name, whatever the temperature
            calls = self._clocks[name] = self._clocks[name] + 1
        if plan.overflow:
            return _error(
                400,
                f"the prompt has {plan.input_tokens} tokens, more than the "
                f"window of {model.window}",
                code="context_length_exceeded",
                param="messages",
            )
        if self.rate_limit and calls % model.rate_limit_every == 0:
            return _error(
                429,
                f"rate limit: the simulator refuses every {model.rate_limit_every}th call",
                "rate_limit_error",
                "rate_limit_exceeded",
            )
        reply = plan.reply(seed, cap)
        uncut = plan.reply(seed, _UNCUT)
        finish = "length" if uncut.output_tokens > reply.output_tokens else "stop"
        return 200, {
            "id": f"chatcmpl-{calls}",
            "object": "chat.completion",
            "created": 0,
            "model": name,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish,
                    "message": {"role": "assistant", "content": reply.text},
                }
            ],
            "usage": {
                "prompt_tokens": reply.input_tokens,
                "completion_tokens": reply.output_tokens,
                "total_tokens": reply.input_tokens + reply.output_tokens,
            },
        }

    def _read_request(self, body):
        """(model, prompt, temperature, seed, max_tokens) from a request, checked."""
        if not isinstance(body, dict):
            raise _BadRequest("the request body must be a JSON object")
        name = body.get("model")
        if not isinstance(name, str):
            raise _BadRequest(f"model must be a model name (str), got {name!r}", "model")
        if name not in self._specs:
            raise LookupError(
                f"model {name!r} is not served here; models: {', '.join(self._specs)}"
            )
        prompt = _prompt(body.get("messages"))
        stream, n = body.get("stream"), body.get("n")
        if stream is not None and not isinstance(stream, bool):
            raise _BadRequest(f"stream must be true or false, got {stream!r}", "stream")
        if n is not None and (type(n) is not int or n != 1):
            raise _BadRequest(f"n must be 1 on this server (one choice a request), got {n!r}", "n")
        try:
            temperature = body.get("temperature")
            temperature = (
                self._specs[name].temperature
                if temperature is None
                else (check_number("temperature", temperature, minimum=0.0))
            )
            seed = body.get("seed")
            seed = SEED if seed is None else check_seed(seed)
            cap = body.get("max_tokens", body.get("max_completion_tokens"))
            cap = MAX_OUTPUT if cap is None else check_int("max_tokens", cap, minimum=1)
        except (TypeError, ValueError) as exc:
            raise _BadRequest(str(exc), str(exc).split(" ", 1)[0]) from None
        return name, prompt, temperature, seed, cap


def _prompt(messages):
    """The prompt: the messages' text joined by newlines (text parts of a list content too)."""
    what = (
        "messages must be a non-empty list of {role, content} objects with text content "
        "(a string, or a list of {type: 'text', text} parts)"
    )
    if not isinstance(messages, list) or not messages:
        raise _BadRequest(what, "messages")
    texts = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in content
        ):
            content = "".join(p["text"] for p in content)
        if not isinstance(content, str):
            raise _BadRequest(what, "messages")
        texts.append(content)
    return "\n".join(texts)


class _HTTPServer(ThreadingHTTPServer):
    """One thread per client connection, a listen backlog of :data:`BACKLOG`, and a note of
    each connection, so :meth:`SimulatorServer.stop` can hang up on clients that keep theirs
    open between requests."""

    daemon_threads = True
    request_queue_size = BACKLOG
    course: Callable[[], SimulatorServer | None]  # set by SimulatorServer
    connections: set[socket.socket]

    def process_request(self, request, client_address):
        self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request, client_address):
        """Print nothing: a client that hangs up early (say, after its timeout) is no news,
        and whatever else goes wrong was already answered with a JSON error."""


class _Handler(BaseHTTPRequestHandler):
    """Reads one request, lets the :class:`SimulatorServer` answer it, writes the JSON.

    HTTP/1.1: a client (the SDK does) keeps its connection open from one request
    to the next instead of opening one per call.  Nagle's algorithm is off, or the
    body, written after the headers, would wait about 40 ms for their acknowledgement.
    A request line or headers the standard handler cannot parse get a JSON error too
    (:meth:`send_error`).
    """

    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 60  # a client silent this long mid-request is hung up on

    def do_GET(self):
        course = self.server.course()
        path = self.path.split("?", 1)[0].rstrip("/")
        if course is None:
            return self._send(*_error(503, "the server is stopping", "server_error"))
        if path == "/v1/models":
            return self._send(200, course.model_list())
        if path.startswith("/v1/models/"):
            name = path.rsplit("/", 1)[1]
            listed = {m["id"]: m for m in course.model_list()["data"]}
            if name in listed:
                return self._send(200, listed[name])
            return self._send(
                *_error(
                    404,
                    f"model {name!r} is not served here; models: {', '.join(listed)}",
                    code="model_not_found",
                )
            )
        self._send(*_error(404, f"only GET /v1/models and POST {ROUTE} are served here"))

    def do_POST(self):
        course = self.server.course()
        data = self._body()
        if data is None:
            return
        if course is None:
            return self._send(*_error(503, "the server is stopping", "server_error"))
        if self.path.split("?", 1)[0].rstrip("/") != ROUTE:
            return self._send(
                *_error(404, f"only POST {ROUTE} (and GET /v1/models) are served here")
            )
        with course._lock:
            course.requests += 1
        try:
            body = json.loads(data or b"null")
        except (ValueError, RecursionError):  # not JSON, bad UTF-8, or nested too deep
            return self._send(
                *_error(
                    400,
                    "the request body is not valid JSON (or nests "
                    "deeper than a JSON reader follows)",
                )
            )
        try:
            status, payload = course.complete(body)
        except Exception as exc:  # a bug of ours: say so, print nothing
            return self._send(
                *_error(500, f"the server failed: {type(exc).__name__}: {exc}", "server_error")
            )
        if course.latency:
            time.sleep(course.latency)  # a real model's time to answer, no lock held
        if status == 200 and isinstance(body, dict) and body.get("stream") is True:
            options = body.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            return self._send_events(payload, usage)
        self._send(status, payload, retry_after=course.retry_after if status == 429 else None)

    def _body(self):
        """The request body (bytes), or None after answering a request whose length is bad."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            self._send(*_error(411, "send the body with a Content-Length, not chunked"))
            return None
        length = self.headers.get("Content-Length", "0").strip()
        if not re.fullmatch(r"[0-9]{1,15}", length):
            self.close_connection = True  # where this request ends is unknown: hang up after
            self._send(
                *_error(
                    400, f"Content-Length must be a whole number of bytes, got {length[:40]!r}"
                )
            )
            return None
        size = int(length)
        if size > MAX_BODY:
            if size <= 16 * MAX_BODY:  # read it off the line, so the client hears us
                left = size
                while left > 0:
                    chunk = self.rfile.read(min(1 << 16, left))
                    if not chunk:
                        break
                    left -= len(chunk)
            else:
                self.close_connection = True
            self._send(
                *_error(
                    413,
                    f"the request body has {length} bytes, more than this "
                    f"server reads ({MAX_BODY})",
                    code="request_too_large",
                )
            )
            return None
        data = self.rfile.read(size)
        if len(data) < size:  # the client hung up mid-body
            self.close_connection = True
            return None
        return data

    def send_error(self, code, message=None, explain=None):
        """The standard handler's errors (a bad request line, headers too long, an unknown
        method) as JSON, like every other answer; a 501 (unknown method) as 405."""
        code = 405 if code == 501 else code
        self.close_connection = True
        self.request_version = self.protocol_version  # headers too, however garbled
        try:
            self._send(*_error(code, message or HTTPStatus(code).phrase))
        except OSError:
            pass

    def _send(self, status, payload, retry_after=None):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        if retry_after is not None:
            self.send_header("Retry-After", str(math.ceil(retry_after)))
            # at least 1 ms: the SDK ignores a zero and waits its own back-off instead
            self.send_header("Retry-After-Ms", str(max(1, round(retry_after * 1000))))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, completion, usage):
        """A completion as server-sent events: the role and text, the finish, the usage if
        asked for (``stream_options.include_usage``), then ``[DONE]``."""
        choice = completion["choices"][0]
        head = {k: completion[k] for k in ("id", "created", "model")}
        head["object"] = "chat.completion.chunk"
        chunks = [
            {
                **head,
                "choices": [{"index": 0, "finish_reason": None, "delta": dict(choice["message"])}],
            },
            {
                **head,
                "choices": [{"index": 0, "finish_reason": choice["finish_reason"], "delta": {}}],
            },
        ]
        if usage:
            chunks.append({**head, "choices": [], "usage": completion["usage"]})
        text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        data = text.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        """Keep quiet: the standard handler logs every request to stderr."""


# ---------------------------------------------------------------------------
# Reading a real reply
# ---------------------------------------------------------------------------


def fold(text: str) -> str:
    """Notebook 12 - lower case the way the course's labels are spelled (ASCII, Turkish-aware).

    Accents come off (``ş`` -> ``s``), and both Turkish i's fold to ``i``:
    ``İ`` and ``I`` as well as the dotless ``ı``.  Plain ``str.lower`` turns
    ``İ`` into ``i`` plus a combining dot, and leaves ``ı`` as it is.
    """
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.replace("ı", "i").lower()


NEGATIONS = ("degil", "not", "no", "non", "never", "neither", "nor", "isnt", "yok")
"""Words (folded) that negate a label: a reply holding one is unreadable, never the label it
negates (``degil`` also covers ``değildir``, ``değilim``; ``isnt``: "isn't" without its
apostrophe)."""
HEDGES = (
    "mi",
    "mu",
    "belki",
    "muhtemelen",
    "sanirim",
    "galiba",
    "olabilir",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "unsure",
    "uncertain",
    "or",
    "veya",
    "yoksa",
    "ya",
)
"""Words (folded) that hedge or ask (``mı``/``mi``: the Turkish question particle, ``ya da``:
"or"): a reply holding one does not state a label plainly."""


def first_label(text):
    """Notebook 12 - the naive reader: the first label word anywhere in the folded reply.

    Shown only to be beaten: it reads ``"Temiz değil."`` (not clean) as temiz.
    Use :func:`read_reply`.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    return next((w for w in re.findall(r"[^\W\d_]+", fold(text)) if w in LABELS), None)


def _label_word(word):
    """The label a folded word names: the label itself, or with the copula ``-dir``/``-tir``
    (``temizdir``, "it is clean"); None for any other word."""
    for stem in (word, word[:-3]):
        if stem in LABELS and (stem == word or word[-3:] in ("dir", "tir")):
            return stem
    return None


def read_reply(text: str) -> str | None:
    """Notebook 12 - the label a real model's reply states plainly, or None.

    Like the lesson's ``read_label`` but for replies a real model writes:
    case and Turkish letters folded with :func:`fold`, and words split at
    anything that is not a letter, so markdown, quotes, punctuation and a
    prefix such as ``Etiket:`` or ``Label:`` fall away.  A label is read only
    when the reply names exactly one of the two labels and nothing in it
    negates, hedges or asks: ``"Temiz değil."`` (not clean), ``"temiz/zararlı"``
    and ``"Temiz mi zararlı mı, emin değilim."`` are unreadable (None), never
    the label they name.  A label with the copula (``temizdir``, "it is
    clean") is read as the label.  For a defense, reading "not clean" as
    clean would let a harmful record through.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be reply text (str), got {type(text).__name__}")
    if "?" in text:
        return None  # a question states nothing
    words = re.findall(r"[^\W\d_]+", fold(text))
    named = {_label_word(word) for word in words} - {None}
    if len(named) != 1:
        return None  # no label, or both: two-sided
    if any(word.startswith(NEGATIONS[0]) or word in NEGATIONS or word in HEDGES for word in words):
        return None  # negated or hedged
    return named.pop()


# ---------------------------------------------------------------------------
# A reply cache
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientReply(AskReply):
    """Notebook 12 - an :class:`AskReply` from :class:`OpenAIAsk`, plus the wait the server
    asked for (``retry_after``, seconds, from a 429's ``Retry-After``), the HTTP
    ``requests`` it took (0 when read from a :class:`ReplyCache`) and the ``raw`` reply."""

    retry_after: float | None = field(default=None, repr=False)
    requests: int = field(default=1, repr=False, compare=False)
    raw: str = field(default="", repr=False)  # the reply as the model wrote it


class ReplyCache:
    """Notebook 12 - replies on disk, one JSON file per question asked.

    A question is (model, prompt, temperature, seed, max_tokens): everything
    that changes the reply, and nothing that does not (the server's address
    is left out, so a new port does not empty the cache).  Every reply is
    kept, refusals and timeouts too: the cache is a record of the run as it
    happened, so reading it again gives the same figures.  Delete the folder
    to ask again.
    """

    def __init__(self, folder: str | os.PathLike[str] = CACHE_FOLDER) -> None:
        self.folder = Path(folder)

    def __repr__(self) -> str:
        return f"ReplyCache({len(self)} replies)"

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*.json")) if self.folder.is_dir() else 0

    def _path(self, question):
        key = json.dumps(question, sort_keys=True, ensure_ascii=True)
        return self.folder / (hashlib.sha256(key.encode("ascii")).hexdigest() + ".json")

    def get(self, question: Mapping[str, Any]) -> ClientReply | None:
        """The :class:`ClientReply` stored for ``question`` (a dict), or None; read from the
        cache, so its ``requests`` is 0."""
        path = self._path(question)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            stored = json.loads(raw)
            if stored["question"] != question:
                raise ValueError("it holds another question")
            return replace(ClientReply(**stored["reply"]), requests=0)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"the cached reply {path} is damaged ({exc}); delete the file to ask again"
            ) from None

    def put(self, question: Mapping[str, Any], reply: AskReply) -> None:
        """Store ``reply`` (an AskReply) for ``question``; written whole or not at all.

        Each write goes to a temporary file of its own, then is renamed over the
        reply's name (``os.replace``, atomic): threads and processes sharing the
        folder never see a half-written reply or trip over each other's files.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(question)
        handle, part = tempfile.mkstemp(
            dir=self.folder, prefix=path.stem[:16] + ".", suffix=".part"
        )
        try:
            with os.fdopen(handle, "w", encoding="ascii") as out:
                out.write(json.dumps({"question": question, "reply": asdict(reply)}))
            os.replace(part, path)
        except BaseException:
            try:
                os.unlink(part)
            except OSError:
                pass
            raise


# ---------------------------------------------------------------------------
# The real SDK in front
# ---------------------------------------------------------------------------


class OpenAIAsk:
    """Notebook 12 - an ask ``(prompt, seed) -> AskReply`` on the official ``openai`` SDK.

    ``base_url``, ``api_key`` and ``model`` say where the questions go.  Each
    call sends the prompt as one user message with ``temperature``, the seed
    and, when given, ``max_tokens``, and waits at most ``timeout`` seconds.

    What comes back, in the ask protocol's terms:

    * a reply: its text becomes the label :func:`read_reply` finds in it, or
      "" when it states none plainly (the reply as written is kept in
      ``raw``), so no reader further on can take "Temiz değil." for temiz;
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
    seed + 1 - is then the only one in force.  Exercise 1 of notebook 12
    turns them on to show the difference.

    ``cache``: a :class:`ReplyCache` (default None, no cache).  ``on_reset``:
    called with the model name when the panel starts a run, e.g. the course
    server's ``reset`` so its rate-limit clock starts at zero each run.

    One ask may be called from many threads at once (:func:`judge_records`,
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
        question = {
            "model": self.model,
            "prompt": prompt,
            "temperature": self.temperature,
            "seed": seed,
            "max_tokens": self.max_tokens,
        }
        reply = None if self.cache is None or not read_cache else self.cache.get(question)
        if reply is None:
            reply = self._ask(prompt, seed)
            if self.cache is not None:
                self.cache.put(question, reply)
        return reply

    def _ask(self, prompt, seed):
        """One HTTP call through the SDK, mapped to a ClientReply."""
        openai = self._openai
        extra = {} if self.max_tokens is None else {"max_tokens": self.max_tokens}
        try:
            out = self._sdk.chat.completions.create(  # type: ignore[call-overload]
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


# ---------------------------------------------------------------------------
# A whole run, calls side by side
# ---------------------------------------------------------------------------

TRANSIENT = ("rate_limit", "timeout")
"""Statuses that mean "wait and ask again" when a real API sends them, not "no label"."""


@dataclass(frozen=True)
class Backoff:
    """How :func:`judge_records` waits after a 429 or a timeout (notebook 12).

    The ``k``-th wait (from 0) is the ``Retry-After`` the server sent when it
    sent one, else ``min(cap, base * 2**k)`` seconds times a random factor in
    [0.5, 1) (jitter: clients refused together do not come back together).
    After ``max_waits`` waits the refusal stands, and the judge's rules apply.
    ``Backoff(max_waits=0)`` is the lesson's rule: no wait at all.
    """

    max_waits: int = 5
    base: float = 0.5
    cap: float = 30.0

    def __post_init__(self):
        check_int("max_waits", self.max_waits, minimum=0)
        check_number("base", self.base, minimum=0.0)
        check_number("cap", self.cap, minimum=0.0)

    def delay(self, k, retry_after, draw):
        """Seconds to wait before the ``k``-th repeat; ``draw()`` gives the jitter in [0, 1)."""
        if retry_after is not None:
            return retry_after  # the server's word: it knows when it will answer
        return min(self.cap, self.base * 2**k) * (0.5 + draw() / 2)


NO_BACKOFF = Backoff(max_waits=0)
"""The lesson's rule: a refusal is an unreadable reply at once, retried once with seed + 1."""


@dataclass(frozen=True)
class ClientRun:
    """What :func:`judge_records` returns (notebook 12): the labels and what they cost.

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


def _patient(ask, backoff, draw):
    """``ask`` that waits and asks again after a transient refusal, as ``backoff`` says.

    Returns ``(prompt, seed) -> (reply, requests, waits, waited, cached)``.
    """
    again = getattr(ask, "ask_again", ask)

    def call(prompt, seed):
        requests = waits = cached = 0
        waited = 0.0
        reply = ask(prompt, seed)
        while True:
            made = getattr(reply, "requests", 1)
            requests += made
            cached += made == 0
            status = getattr(reply, "status", "ok")
            if status not in TRANSIENT or waits >= backoff.max_waits:
                return reply, requests, waits, waited, cached
            delay = backoff.delay(waits, getattr(reply, "retry_after", None), draw)
            time.sleep(delay)
            waits, waited = waits + 1, waited + delay
            reply = again(prompt, seed)

    return call


def judge_records(
    ask,
    records,
    *,
    seed=SEED,
    max_connections=8,
    progress=False,
    guideline=GUIDELINE,
    unreadable_as="clean",
    backoff=Backoff(),
):
    """Notebook 12 - one judge over every record, up to ``max_connections`` calls at once.

    The lesson's judge rules on any ask (an :class:`OpenAIAsk` above all):
    each record is asked with ``seed``; a reply :func:`read_reply` cannot read
    is asked once more with ``seed + 1``; a record still unreadable is labelled
    ``unreadable_as`` ('clean', the lesson's fail-open, or 'harmful').  Before
    that rule, a refusal from the service - HTTP 429 or a timeout - is waited
    out and asked again as ``backoff`` says (:class:`Backoff`: exponential
    with jitter, honouring ``Retry-After``, a bounded number of times): a real
    API saying "wait" is not the judge saying nothing.  ``backoff=NO_BACKOFF``
    is the lesson's rule for its in-process simulator.

    ``max_connections`` calls run at once through the one ask (one shared
    client); the answers are added up in the records' order, so the labels
    and the cost are those of one connection whenever the model's answers do
    not depend on the order of the calls.  An ask with a ``reset`` method is
    reset first (the course server's rate-limit clock).  ``progress=True``
    draws a text bar on standard output; nothing is printed otherwise.  With a
    :class:`ReplyCache` on the ask, a run stopped half-way and asked again
    makes no call it already made.
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
    reset = getattr(ask, "reset", None)
    if callable(reset):
        reset()
    patient = _patient(ask, backoff, random.Random().random)
    fallback = CLEAN if unreadable_as == "clean" else HARMFUL
    bar = Progress(len(records), progress)
    start = time.perf_counter()

    def judge(record):
        prompt = build_prompt(record, guideline)
        tally = [0, 0, 0, 0.0, 0]  # calls, tokens, waits, waited, cached
        label = None
        for attempt in (seed, seed + 1):
            reply, requests, waits, waited, cached = patient(prompt, attempt)
            text, tokens, status = reply_parts(prompt, reply)
            for k, value in enumerate((requests, tokens, waits, waited, cached)):
                tally[k] += value
            label = read_reply(text)
            if label is not None:
                break
        return label, attempt != seed, status in TRANSIENT, tally

    answers = map_calls(judge, records, max_connections, bar.step)
    labels, totals, retries, unreadable, refused = {}, [0, 0, 0, 0.0, 0], 0, 0, 0
    for record, (label, retried, was_refused, tally) in zip(records, answers):
        labels[record.no] = fallback if label is None else label
        retries += retried
        unreadable += label is None
        refused += label is None and was_refused
        totals = [a + b for a, b in zip(totals, tally)]
    calls, tokens, waits, cached = (int(totals[k]) for k in (0, 1, 2, 4))
    return ClientRun(
        labels,
        calls,
        tokens,
        retries,
        unreadable,
        refused,
        waits,
        round(totals[3], 3),
        cached,
        seed,
        time.perf_counter() - start,
    )


# ---------------------------------------------------------------------------
# What a run costs
# ---------------------------------------------------------------------------


def run_cost(
    records: Iterable[Record], judges: int = 1, quorum: int = 1, guideline: str = GUIDELINE
) -> dict[str, int]:
    """Notebook 12 - the least a panel run costs: one call per judge, sample and record.

    Returns ``calls``, ``input_tokens`` (the course tokenizer's count) and
    ``characters`` of the prompts sent.  Retries come on top: one more call
    for each refused or unreadable reply.  A real model counts tokens with
    its own tokenizer; its ``usage.prompt_tokens`` on a few records tells
    how far that count is from the course's.
    """
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
    """Notebook 12 - minutes a run of ``calls`` waits at each number of connections when every
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
    """Notebook 12: minutes waited against connections, one line per run (``{name: calls}``),
    both axes on a log scale, from :func:`wait_minutes`.  Returns the Axes."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(FIGURE_WIDTH, 4.6))
    for name, calls in runs.items():
        ax.plot(
            connections,
            wait_minutes(calls, connections, reply_seconds),
            marker="o",
            label=f"{name} ({calls:,} calls)",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(connections), [str(n) for n in connections])
    ax.set_xlabel("connections (calls at once)")
    ax.set_ylabel("minutes")
    ax.set_title(f"Waiting for a model that takes {reply_seconds:g} s a reply")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3, which="both")
    return ax
