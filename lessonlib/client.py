"""Notebook 12 - a real client in the judge's seat: the simulator behind a loopback server.

Four parts, in the order notebook 12 uses them:

* :class:`SimulatorServer` serves the simulated judges on 127.0.0.1 behind the
  OpenAI-compatible route ``POST /v1/chat/completions``.  Its replies are the
  simulator's own: the same text, the same token counts, and HTTP 429 on the
  calls the simulator's rate limit refuses.
* :class:`OpenAIAsk` is an ask ``(prompt, seed) -> AskReply`` built on the
  official ``openai`` package (``pip install -e '.[client]'``).  Three values
  say where it goes - ``base_url``, ``api_key``, ``model`` - so the same code
  talks to this server, to a local model server (Ollama, llama.cpp, vLLM) or to
  a hosted API.
* :func:`read_reply` reads a label the way a real model writes it
  (``Zararlı.``, ``ZARARLİ``, ``"zararli"``); the lesson's ``read_label`` stays
  as it is for the lesson.
* :class:`ReplyCache` keeps every reply on disk (off unless you pass one), so a
  run can be read again without asking the model twice.

Only loopback is ever served: the server refuses any other host.
"""

from __future__ import annotations

import errno
import hashlib
import json
import re
import socket
import sys
import threading
import unicodedata
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from ._checks import check_int, check_number, check_seed, check_str
from .records import SEED
from .judge import GUIDELINE, LABELS, build_prompt
from .panel import JUDGES, AskReply
from .simulator import CUE_TABLE, MAX_OUTPUT, TEMPERATURE, SimulatedModel, tokenize

__all__ = ["CACHE_FOLDER", "HOST", "LOOPBACK", "ROUTE", "OpenAIAsk", "ReplyCache",
           "SimulatorServer", "fold", "read_reply", "run_cost"]

HOST = "127.0.0.1"
LOOPBACK = (HOST, "localhost", "::1")
ROUTE = "/v1/chat/completions"
CACHE_FOLDER = Path(__file__).resolve().parents[1] / ".cache" / "replies"
"""Where :class:`ReplyCache` keeps replies by default (git ignores ``.cache/``)."""
_UNCUT = 10 ** 6      # an output cap no simulated reply reaches: the reply as it would be uncut


# ---------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------

def _error(status, message, kind, code=None):
    """An HTTP status and an error body shaped like the OpenAI API's."""
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


class SimulatorServer:
    """Notebook 12 - the course's judges behind ``POST /v1/chat/completions`` on 127.0.0.1.

    It starts when it is made and stops with :meth:`stop` (or at the end of a
    ``with`` block).  ``port=0`` picks a free port; :attr:`base_url` says
    which.  The model names it serves are those of ``lessonlib.JUDGES``
    (``lesson``, ``plain``, ``wary``, ``greedy``).  Each model name keeps one
    rate-limit clock, as a real API counts every call made to a model, and
    :meth:`reset` sets it back to zero (a real API has no such button).
    """

    def __init__(self, host=HOST, port=0):
        if host != HOST:
            raise ValueError(f"host must be {HOST!r}: the course's server listens on loopback "
                             f"only, got {host!r}")
        self._specs = {spec.name: spec for spec in JUDGES}
        self._clocks = dict.fromkeys(self._specs, 0)
        self._lock = threading.Lock()
        self.requests = 0               # requests received on the route, valid or not
        try:
            self._http = _HTTPServer((HOST, port), _Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise OSError(errno.EADDRINUSE, f"port {port} on {HOST} is already in use; "
                                                f"pass port=0 for a free one") from None
            raise
        self._http.course, self._http.connections = self, set()
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.01,),
                                        daemon=True, name="lessonlib-simulator-server")
        self._thread.start()

    @property
    def port(self):
        """The port it listens on (the free one it picked when made with ``port=0``)."""
        return self._http.server_address[1]

    @property
    def base_url(self):
        """The ``base_url`` to give a client, e.g. ``http://127.0.0.1:8123/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    def ask(self, model, **options):
        """An :class:`OpenAIAsk` for ``model`` on this server: its base URL, any key, the
        model's own temperature, and the clock reset at the start of each panel run."""
        options = {"temperature": self._specs[model].temperature, "on_reset": self.reset,
                   **options}
        return OpenAIAsk(self.base_url, "course", model, **options)

    def reset(self, model=None):
        """Set the rate-limit clock of ``model`` (default: every model) back to zero."""
        with self._lock:
            for name in self._clocks if model is None else (model,):
                self._clocks[name] = 0

    def stop(self):
        """Stop serving, hang up on every client and free the port (calling it twice is fine)."""
        if self._thread.is_alive():
            self._http.shutdown()
            self._thread.join(timeout=10)
        for connection in list(self._http.connections):    # kept-alive clients included
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._http.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        state = "serving" if self._thread.is_alive() else "stopped"
        return f"SimulatorServer({state}, models={', '.join(self._specs)})"

    def complete(self, body):
        """(HTTP status, JSON body) for one chat-completions request ``body`` (a dict)."""
        try:
            name, prompt, temperature, seed, cap = self._read_request(body)
        except (TypeError, ValueError) as exc:
            return _error(400, str(exc), "invalid_request_error")
        except LookupError as exc:
            return _error(404, exc.args[0], "invalid_request_error", "model_not_found")
        spec = self._specs[name]
        model = SimulatedModel(temperature, CUE_TABLE, dict(spec.spurious), dict(spec.prior),
                               max_output=cap, name=name)
        with self._lock:                # one clock per model name, whatever the temperature
            model.reset(self._clocks[name])
            reply = model.call(prompt, seed)
            self._clocks[name] = model.calls
        if reply.status == "rate_limit":
            return _error(429, f"rate limit: the simulator refuses every "
                               f"{model.rate_limit_every}th call", "rate_limit_error",
                          "rate_limit_exceeded")
        if reply.status == "context_overflow":
            return _error(400, f"the prompt has {reply.input_tokens} tokens, more than the "
                               f"window of {model.window}", "invalid_request_error",
                          "context_length_exceeded")
        uncut = model.plan(prompt).reply(seed, _UNCUT)
        finish = "length" if uncut.output_tokens > reply.output_tokens else "stop"
        return 200, {
            "id": f"chatcmpl-{model.calls}", "object": "chat.completion", "created": 0,
            "model": name,
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": reply.input_tokens,
                      "completion_tokens": reply.output_tokens,
                      "total_tokens": reply.input_tokens + reply.output_tokens}}

    def _read_request(self, body):
        """(model, prompt, temperature, seed, max_tokens) from a request, checked."""
        if not isinstance(body, dict):
            raise TypeError("the request body must be a JSON object")
        name = check_str("model", body.get("model"))
        if name not in self._specs:
            raise LookupError(f"model {name!r} is not served here; models: "
                              f"{', '.join(self._specs)}")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
            raise ValueError("messages must be a non-empty list of {role, content} objects "
                             "with text content")
        prompt = "\n".join(m["content"] for m in messages)
        temperature = body.get("temperature")
        temperature = self._specs[name].temperature if temperature is None else check_number(
            "temperature", temperature, minimum=0.0)
        seed = body.get("seed")
        seed = SEED if seed is None else check_seed(seed)
        cap = body.get("max_tokens", body.get("max_completion_tokens"))
        cap = MAX_OUTPUT if cap is None else check_int("max_tokens", cap, minimum=1)
        return name, prompt, temperature, seed, cap


class _HTTPServer(ThreadingHTTPServer):
    """One thread per client connection, and a note of each, so :meth:`SimulatorServer.stop`
    can hang up on clients that keep theirs open between requests."""

    daemon_threads = True

    def process_request(self, request, client_address):
        self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request, client_address):
        """Stay quiet when a client hangs up before its reply (say, after its timeout)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Reads one request, lets the :class:`SimulatorServer` answer it, writes the JSON.

    HTTP/1.1: a client (the SDK does) keeps its connection open from one request
    to the next instead of opening one per call.  Nagle's algorithm is off, or the
    body, written after the headers, would wait about 40 ms for their acknowledgement.
    """

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_POST(self):
        course = self.server.course
        length = self.headers["Content-Length"]
        if length is None or not length.isdigit():
            self.close_connection = True    # where this request ends is unknown: hang up after
            length = "0"
        data = self.rfile.read(int(length))
        if self.path.rstrip("/") != ROUTE:
            return self._send(*_error(404, f"only POST {ROUTE} is served here",
                                      "invalid_request_error"))
        with course._lock:
            course.requests += 1
        try:
            body = json.loads(data or b"null")
        except ValueError:
            return self._send(*_error(400, "the request body is not valid JSON (or its "
                                           "Content-Length is wrong)", "invalid_request_error"))
        self._send(*course.complete(body))

    def _send(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        if status == 429:       # the simulator refuses one call in a row: ask again at once
            self.send_header("Retry-After-Ms", "1")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        """Keep quiet: the standard handler logs every request to stderr."""


# ---------------------------------------------------------------------------
# Reading a real reply
# ---------------------------------------------------------------------------

def fold(text):
    """Notebook 12 - lower case the way the course's labels are spelled (ASCII, Turkish-aware).

    Accents come off (``ş`` -> ``s``), and both Turkish i's fold to ``i``:
    ``İ`` and ``I`` as well as the dotless ``ı``.  Plain ``str.lower`` turns
    ``İ`` into ``i`` plus a combining dot, and leaves ``ı`` as it is.
    """
    bare = "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))
    return bare.replace("ı", "i").lower()


def read_reply(text):
    """Notebook 12 - the first label in a real model's reply, or None.

    Like the lesson's ``read_label`` but for replies a real model writes:
    case folded with :func:`fold`, and words split at anything that is not
    a letter, so quotes and punctuation fall away.
    """
    for word in re.findall(r"[^\W\d_]+", fold(text)):
        if word in LABELS:
            return word
    return None


# ---------------------------------------------------------------------------
# A reply cache
# ---------------------------------------------------------------------------

class ReplyCache:
    """Notebook 12 - replies on disk, one JSON file per question asked.

    A question is (model, prompt, temperature, seed, max_tokens): everything
    that changes the reply, and nothing that does not (the server's address
    is left out, so a new port does not empty the cache).  Every reply is
    kept, refusals and timeouts too: the cache is a record of the run as it
    happened, so reading it again gives the same figures.  Delete the folder
    to ask again.
    """

    def __init__(self, folder=CACHE_FOLDER):
        self.folder = Path(folder)

    def __repr__(self):
        return f"ReplyCache({len(self)} replies)"

    def __len__(self):
        return sum(1 for _ in self.folder.glob("*.json")) if self.folder.is_dir() else 0

    def _path(self, question):
        key = json.dumps(question, sort_keys=True, ensure_ascii=True)
        return self.folder / (hashlib.sha256(key.encode("ascii")).hexdigest() + ".json")

    def get(self, question):
        """The :class:`AskReply` stored for ``question`` (a dict), or None."""
        path = self._path(question)
        if not path.exists():
            return None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored["question"] != question:
                raise ValueError("it holds another question")
            return AskReply(**stored["reply"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"the cached reply {path} is damaged ({exc}); delete the file "
                             f"to ask again") from None

    def put(self, question, reply):
        """Store ``reply`` (an AskReply) for ``question``; written whole or not at all."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(question)
        part = path.with_suffix(".part")
        part.write_text(json.dumps({"question": question, "reply": asdict(reply)}),
                        encoding="ascii")
        part.replace(path)


# ---------------------------------------------------------------------------
# The real SDK in front
# ---------------------------------------------------------------------------

class OpenAIAsk:
    """Notebook 12 - an ask ``(prompt, seed) -> AskReply`` on the official ``openai`` SDK.

    ``base_url``, ``api_key`` and ``model`` say where the questions go.  Each
    call sends the prompt as one user message with ``temperature``, the seed
    and, when given, ``max_tokens``, and waits at most ``timeout`` seconds.

    What comes back, in the ask protocol's terms:

    * a reply: its text becomes the label :func:`read_reply` finds in it (the
      raw text when there is none), its ``usage.prompt_tokens`` the input
      tokens, status ``'ok'``;
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
    """

    def __init__(self, base_url, api_key, model, *, temperature=TEMPERATURE, max_tokens=None,
                 timeout=30.0, cache=None, on_reset=None, max_retries=0):
        self.base_url, self.model, self.temperature = base_url, model, temperature
        self.max_tokens, self.timeout = max_tokens, timeout
        try:
            import openai
        except ImportError:
            raise ImportError("OpenAIAsk needs the openai package: pip install -e '.[client]'"
                              ) from None
        self.cache, self._on_reset, self._openai = cache, on_reset, openai
        options = {}
        if urlsplit(base_url).hostname in LOOPBACK:     # no proxy from the environment
            options["http_client"] = openai.DefaultHttpxClient(trust_env=False)
        self._sdk = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=self.timeout,
                                  max_retries=max_retries, **options)

    def __repr__(self):
        return f"OpenAIAsk(model={self.model!r}, temperature={self.temperature})"

    def reset(self):
        """Called by the panel at the start of a run; passes the model name to ``on_reset``."""
        if self._on_reset is not None:
            self._on_reset(self.model)

    def __call__(self, prompt, seed):
        """Ask once (or read the cache): an :class:`AskReply` for ``prompt`` with ``seed``."""
        question = {"model": self.model, "prompt": prompt, "temperature": self.temperature,
                    "seed": seed, "max_tokens": self.max_tokens}
        reply = None if self.cache is None else self.cache.get(question)
        if reply is None:
            reply = self._ask(prompt, seed)
            if self.cache is not None:
                self.cache.put(question, reply)
        return reply

    def _ask(self, prompt, seed):
        """One HTTP call through the SDK, mapped to an AskReply."""
        openai = self._openai
        extra = {} if self.max_tokens is None else {"max_tokens": self.max_tokens}
        try:
            out = self._sdk.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": prompt}],
                temperature=self.temperature, seed=seed, **extra)
        except openai.RateLimitError:
            return AskReply("", None, "rate_limit")
        except openai.APITimeoutError:
            return AskReply("", None, "timeout")
        except openai.BadRequestError as exc:
            if getattr(exc, "code", None) == "context_length_exceeded":
                return AskReply("", None, "context_overflow")
            raise
        except openai.APIConnectionError as exc:
            raise ConnectionError(f"no connection to {self.base_url} ({exc}); is the server "
                                  f"running, and is base_url right?") from None
        except ValueError as exc:       # the body said it was JSON but was not
            raise RuntimeError(f"the server at {self.base_url} sent malformed JSON "
                               f"({exc})") from None
        try:
            text = out.choices[0].message.content or ""
            tokens = out.usage.prompt_tokens if out.usage is not None else None
        except (AttributeError, IndexError, TypeError):
            raise RuntimeError(f"the server at {self.base_url} did not send a chat completion; "
                               f"it sent {str(out)[:80]!r}") from None
        if tokens is not None and (not isinstance(tokens, int) or tokens < 0):
            raise RuntimeError(f"the server at {self.base_url} sent usage.prompt_tokens "
                               f"{tokens!r}, not a count")
        return AskReply(read_reply(text) or text, tokens, "ok")


# ---------------------------------------------------------------------------
# What a run costs
# ---------------------------------------------------------------------------

def run_cost(records, judges=1, quorum=1, guideline=GUIDELINE):
    """Notebook 12 - the least a panel run costs: one call per judge, sample and record.

    Returns ``calls``, ``input_tokens`` (the course tokenizer's count) and
    ``characters`` of the prompts sent.  Retries come on top: one more call
    for each refused or unreadable reply.  A real model counts tokens with
    its own tokenizer; its ``usage.prompt_tokens`` on a few records tells
    how far that count is from the course's.
    """
    prompts = [build_prompt(r, guideline) for r in records]
    times = judges * quorum
    return {"calls": times * len(prompts),
            "input_tokens": times * sum(len(tokenize(p)) for p in prompts),
            "characters": times * sum(len(p) for p in prompts)}
