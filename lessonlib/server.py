"""Notebook 13 - the course's judges behind an OpenAI-compatible route on 127.0.0.1.

:class:`SimulatorServer` serves the simulated judges behind ``POST /v1/chat/completions``
(and ``GET /v1/models``).  Its replies are the simulator's own: the same text, the same
token counts, and HTTP 429 (with ``Retry-After``) on the calls the simulator's rate limit
refuses; ``latency`` makes it answer as slowly as a real model.  It speaks the verdict
protocol too: a ``response_format`` of type ``json_schema`` (an enum of the labels) or
``json_object`` gets the simulator's label as JSON.  Only loopback is ever served.
"""

from __future__ import annotations

import errno
import json
import math
import re
import socket
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._checks import check_int, check_number, check_seed
from .panel import JUDGES
from .records import SEED
from .sdk_ask import HOST, OpenAIAsk
from .simulator import CUE_TABLE, LABELS, MAX_OUTPUT, SimulatedModel, tokenize

__all__ = ["BACKLOG", "MAX_BODY", "ROUTE", "SimulatorServer"]

ROUTE = "/v1/chat/completions"
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
    """Notebook 13 - the course's judges behind ``POST /v1/chat/completions`` on 127.0.0.1.

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
    events; ``n`` other than 1 is refused with 400.  A ``response_format`` of
    type ``json_schema`` (a property whose enum is the two labels) or
    ``json_object`` gets the simulator's label as JSON (``{"label": ...}``);
    another type is refused with 400 naming ``response_format``.  Two
    different ``Content-Length`` headers get 400, a body without one 411.
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
            name, prompt, temperature, seed, cap, key = self._read_request(body)
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
        if key is None:
            reply = plan.reply(seed, cap)
            uncut = plan.reply(seed, _UNCUT)
            finish = "length" if uncut.output_tokens > reply.output_tokens else "stop"
        else:  # JSON: the label the simulator drew, whole (its first draw is the label's)
            bare = replace(plan, single_label=True).reply(seed, _UNCUT)
            text = json.dumps({key: bare.text})
            reply, finish = replace(bare, text=text, output_tokens=len(tokenize(text))), "stop"
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
        return name, prompt, temperature, seed, cap, _json_key(body.get("response_format"))


def _json_key(form):
    """The key a JSON reply names its label by (None: a text reply) for a request's
    ``response_format``; an unknown type, or a schema with no enum of the labels, is a
    :class:`_BadRequest` naming ``response_format``."""
    if form is None:
        return None
    kind = form.get("type") if isinstance(form, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return "label"
    if kind == "json_schema":
        spec = form.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        properties = schema.get("properties") if isinstance(schema, dict) else None
        for key, prop in (properties or {}).items() if isinstance(properties, dict) else ():
            enum = prop.get("enum") if isinstance(prop, dict) else None
            if isinstance(enum, list) and sorted(enum) == sorted(LABELS):
                return key
        raise _BadRequest(
            "response_format.json_schema.schema must have a property whose enum is the "
            f"labels {list(LABELS)} (the verdict), got {spec!r}"[:300],
            "response_format",
        )
    raise _BadRequest(
        f"response_format.type must be 'text', 'json_object' or 'json_schema', got {kind!r}"[:200],
        "response_format",
    )


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
    to the next instead of opening one per call.  An answer (status line, headers and
    body) is buffered and sent whole; Nagle's algorithm is off as well, so a part that
    does leave on its own (a body larger than the buffer) never waits about 40 ms for the
    acknowledgement of the one before.
    A request line or headers the standard handler cannot parse get a JSON error too
    (:meth:`send_error`).
    """

    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    # buffered writes: the status line, the headers and the body of an answer leave in one
    # send() when the standard handler flushes after each request (it writes them apart
    # unbuffered: two sends, and the client wakes twice)
    wbufsize = 1 << 16
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
        lengths = {value.strip() for value in self.headers.get_all("Content-Length") or ()}
        if not lengths:
            self.close_connection = True  # a body may follow, and where it ends is unknown
            self._send(*_error(411, "send the request body with a Content-Length header"))
            return None
        if len(lengths) > 1:
            self.close_connection = True
            self._send(
                *_error(
                    400,
                    f"two different Content-Length headers ({', '.join(sorted(lengths))[:80]}): "
                    "where the body ends is unknown",
                )
            )
            return None
        length = lengths.pop()
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
