"""Notebook 13 - the course's judges behind an OpenAI-compatible route on 127.0.0.1.

:class:`SimulatorServer` answers ``POST /v1/chat/completions`` with the simulator's own
replies: the same text and token counts, and HTTP 429 (with ``Retry-After``) on the calls
the simulator's rate limit refuses; ``GET /v1/models`` lists the judges.  The standard
library's ``http.server`` does the HTTP.
"""

from __future__ import annotations

import json
import math
import socket
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._checks import check_int, check_number, check_seed
from .panel import JUDGES
from .records import SEED
from .sdk_ask import HOST, OpenAIAsk
from .simulator import LABELS, MAX_OUTPUT, RATE_LIMIT_EVERY, WINDOW, tokenize

__all__ = ["MAX_BODY", "ROUTE", "SimulatorServer"]

ROUTE = "/v1/chat/completions"
MAX_BODY = 1_000_000
"""The largest request body the server reads, in bytes; a larger one is refused with 413."""
_UNCUT = 10**6  # an output cap no simulated reply reaches: the reply as it would be uncut


class _BadRequest(ValueError):
    """A request refused with HTTP 400, naming the field (``param``) at fault."""

    def __init__(self, message, param=None):
        super().__init__(message)
        self.param = param


def _error(status, message, kind="invalid_request_error", code=None, param=None):
    """An HTTP status and an error body shaped like the OpenAI API's."""
    return status, {"error": {"message": message, "type": kind, "param": param, "code": code}}


class SimulatorServer:
    """The course's judges (``lessonlib.JUDGES``: lesson, plain, wary, greedy, by name)
    behind ``POST /v1/chat/completions`` on 127.0.0.1 (any other ``host`` is refused).

    It serves from when it is made until :meth:`stop` (or the end of a ``with`` block, or
    the last reference gone); ``port=0`` picks a free port (:attr:`base_url`).
    ``latency``: seconds each reply waits, as a real model's would (no lock held).
    ``rate_limit``: True refuses every ``RATE_LIMIT_EVERY``-th call to a model with 429,
    one clock per model name (:meth:`reset` sets it to zero); each 429 asks the client to
    wait ``retry_after`` seconds.  A ``response_format`` of type ``json_schema`` (a
    property whose enum is the labels) or ``json_object`` gets the label as JSON.  A bad
    request gets a 4xx JSON error; nothing is ever printed.  ``requests``: requests
    received on the route.
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
                f"host must be {HOST!r}: the course's server listens on loopback only, "
                f"got {host!r}"
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
        self.requests = 0
        self._http = _HTTPServer((HOST, port), _Handler)
        self._http.course = weakref.ref(self)
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()
        self._stop = weakref.finalize(self, _close, self._http, self._thread)

    @property
    def port(self) -> int:
        """The port it listens on."""
        return self._http.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give a client, e.g. ``http://127.0.0.1:8123/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    def ask(self, model: str, **options: Any) -> OpenAIAsk:
        """An :class:`OpenAIAsk` for ``model`` here: this base URL, any key, the model's own
        temperature, and this server's :meth:`reset` at the start of each run; ``options``
        go to OpenAIAsk."""
        if model not in self._specs:
            raise ValueError(
                f"model must be one this server serves ({', '.join(self._specs)}), got {model!r}"
            )
        defaults = {"temperature": self._specs[model].temperature, "on_reset": self.reset}
        return OpenAIAsk(self.base_url, "course", model, **{**defaults, **options})

    def reset(self, model: str | None = None) -> None:
        """Set the rate-limit clock of ``model`` (default: every model) back to zero."""
        with self._lock:
            for name in self._clocks if model is None else (model,):
                self._clocks[name] = 0

    def stop(self) -> None:
        """Stop serving, hang up on every client and free the port (twice is fine)."""
        self._stop()

    def __enter__(self) -> SimulatorServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "serving" if self._stop.alive else "stopped"
        return f"SimulatorServer({state}, models={', '.join(self._specs)})"

    def model_list(self) -> dict[str, Any]:
        """The body of ``GET /v1/models``: every model served, as the OpenAI API lists them."""
        models = [
            {"id": n, "object": "model", "created": 0, "owned_by": "lessonlib"}
            for n in self._specs
        ]
        return {"object": "list", "data": models}

    def complete(self, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) for one chat-completions request ``body`` (a dict)."""
        try:
            name, prompt, temperature, seed, cap, key = self._read_request(body)
        except _BadRequest as exc:
            return _error(400, str(exc), param=exc.param)
        except LookupError as exc:
            return _error(404, exc.args[0], code="model_not_found", param="model")
        spec = replace(self._specs[name], temperature=temperature)
        plan = spec.model().plan(prompt)  # tokenizing: outside the lock
        with self._lock:  # one clock per model name, whatever the temperature
            calls = self._clocks[name] = self._clocks[name] + 1
        if plan.overflow:
            message = f"the prompt has {plan.input_tokens} tokens, over the window of {WINDOW}"
            return _error(400, message, code="context_length_exceeded", param="messages")
        if self.rate_limit and calls % RATE_LIMIT_EVERY == 0:
            message = f"rate limit: the simulator refuses every {RATE_LIMIT_EVERY}th call"
            return _error(429, message, "rate_limit_error", "rate_limit_exceeded")
        if key is None:
            reply = plan.reply(seed, cap)
            uncut = plan.reply(seed, _UNCUT)
            finish = "length" if uncut.output_tokens > reply.output_tokens else "stop"
        else:  # JSON: the label the simulator drew, whole (its first draw is the label's)
            bare = replace(plan, single_label=True).reply(seed, _UNCUT)
            text = json.dumps({key: bare.text})
            reply, finish = replace(bare, text=text, output_tokens=len(tokenize(text))), "stop"
        said = {"role": "assistant", "content": reply.text}
        usage = {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens}
        usage["total_tokens"] = reply.input_tokens + reply.output_tokens
        return 200, {
            "id": f"chatcmpl-{calls}",
            "object": "chat.completion",
            "created": 0,
            "model": name,
            "choices": [{"index": 0, "finish_reason": finish, "message": said}],
            "usage": usage,
        }

    def _read_request(self, body):
        """(model, prompt, temperature, seed, max_tokens, JSON key) from a request, checked."""
        if not isinstance(body, dict):
            raise _BadRequest("the request body must be a JSON object")
        name = body.get("model")
        if not isinstance(name, str):
            raise _BadRequest(f"model must be a model name (str), got {name!r}", "model")
        if name not in self._specs:
            served = ", ".join(self._specs)
            raise LookupError(f"model {name!r} is not served here; models: {served}")
        messages = body.get("messages")
        if not (isinstance(messages, list) and messages) or not all(
            isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages
        ):
            what = "messages must be a non-empty list of {role, content} with str content"
            raise _BadRequest(what, "messages")
        if body.get("stream"):
            raise _BadRequest("stream is not served here: ask without it", "stream")
        temperature, seed = body.get("temperature"), body.get("seed")
        cap = body.get("max_tokens", body.get("max_completion_tokens"))
        try:
            if temperature is not None:
                temperature = check_number("temperature", temperature, minimum=0.0)
            seed = SEED if seed is None else check_seed(seed)
            cap = MAX_OUTPUT if cap is None else check_int("max_tokens", cap, minimum=1)
        except (TypeError, ValueError) as exc:
            raise _BadRequest(str(exc), str(exc).split(" ", 1)[0]) from None
        if temperature is None:
            temperature = self._specs[name].temperature
        prompt = "\n".join(m["content"] for m in messages)
        return name, prompt, temperature, seed, cap, _json_key(body.get("response_format"))


def _json_key(form):
    """The key a JSON reply names its label by (None: a text reply) for ``response_format``;
    an unknown type, or a schema with no property whose enum is the labels, is refused."""
    kind = form.get("type") if isinstance(form, dict) else form
    if kind in (None, "text"):
        return None
    if kind == "json_object":
        return "label"
    if kind != "json_schema":
        message = "response_format.type must be 'text', 'json_object' or 'json_schema'"
        raise _BadRequest(f"{message}, got {kind!r}"[:300], "response_format")
    try:
        for key, prop in form["json_schema"]["schema"]["properties"].items():
            if sorted(prop["enum"]) == sorted(LABELS):
                return key
    except (KeyError, TypeError, AttributeError):
        pass
    message = f"response_format.json_schema.schema needs a property whose enum is {list(LABELS)}"
    raise _BadRequest(message, "response_format")


def _close(http, thread):
    """Stop serving, hang up on every client (kept-alive ones too) and free the port."""
    if thread.is_alive():
        http.shutdown()
        thread.join(timeout=10)
    for connection in list(http.connections):
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    http.server_close()


class _HTTPServer(ThreadingHTTPServer):
    """A thread per client connection, each connection noted, so that a stop can hang up on
    clients that keep theirs open between requests."""

    daemon_threads = True
    request_queue_size = 128  # the listen backlog: 64 clients at once and more
    course: weakref.ref[SimulatorServer]

    def __init__(self, address, handler):
        self.connections: set[socket.socket] = set()
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request, client_address):
        """Print nothing: a client that hangs up early is no news."""


class _Handler(BaseHTTPRequestHandler):
    """One request: its body read, the :class:`SimulatorServer` asked, the JSON sent.

    HTTP/1.1 (the SDK keeps its connection open between calls); an answer is buffered and
    sent whole with Nagle's algorithm off, so no part of it waits for an acknowledgement.
    """

    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 1 << 16
    timeout = 60  # a client silent this long mid-request is hung up on

    def do_GET(self):
        course = self.server.course()
        path = self.path.split("?", 1)[0].rstrip("/")
        if course is None:
            return self._send(*_error(503, "the server is stopping", "server_error"))
        models = {m["id"]: m for m in course.model_list()["data"]}
        if path == "/v1/models":
            return self._send(200, course.model_list())
        if path.startswith("/v1/models/"):
            name = path.rsplit("/", 1)[1]
            if name in models:
                return self._send(200, models[name])
            message = f"model {name!r} is not served here; models: {', '.join(models)}"
            return self._send(*_error(404, message, code="model_not_found"))
        self._send(*_error(404, f"only GET /v1/models and POST {ROUTE} are served here"))

    def do_POST(self):
        course = self.server.course()
        data = self._body()
        if data is None:
            return
        if course is None:
            return self._send(*_error(503, "the server is stopping", "server_error"))
        if self.path.split("?", 1)[0].rstrip("/") != ROUTE:
            return self._send(*_error(404, f"only POST {ROUTE} is served here"))
        with course._lock:
            course.requests += 1
        try:
            body = json.loads(data)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep
            return self._send(*_error(400, "the request body is not valid JSON"))
        try:
            status, payload = course.complete(body)
        except Exception as exc:  # a bug of ours: say so, print nothing
            message = f"the server failed: {type(exc).__name__}: {exc}"
            return self._send(*_error(500, message, "server_error"))
        time.sleep(course.latency)  # a real model's time to answer, no lock held
        self._send(status, payload, course.retry_after if status == 429 else None)

    def _body(self):
        """The request body (bytes), or None after refusing a request with no readable
        ``Content-Length`` (411) or a body over :data:`MAX_BODY` (413)."""
        length = self.headers.get("Content-Length", "").strip()
        if not (length.isascii() and length.isdigit()) or self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # where this request ends is unknown
            self._send(*_error(411, "send the request body with a Content-Length header"))
            return None
        if int(length) > MAX_BODY:
            if int(length) <= 16 * MAX_BODY:
                self.rfile.read(int(length))  # off the line, so that the client hears the 413
            self.close_connection = True
            self._send(*_error(413, f"the request body is over {MAX_BODY} bytes"))
            return None
        data = self.rfile.read(int(length))
        if len(data) < int(length):  # the client hung up mid-body
            self.close_connection = True
            return None
        return data

    def send_error(self, code, message=None, explain=None):
        """The standard handler's own refusals (a bad request line, headers too long, an
        unknown method) as JSON like every other answer; an unknown method (501) as 405."""
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

    def log_message(self, *args):
        """Keep quiet: the standard handler logs every request to stderr."""
