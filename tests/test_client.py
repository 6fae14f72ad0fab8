"""lessonlib.client: the simulator behind a loopback server, the openai SDK in front.

Every client call here has a short timeout and every server is stopped in a
fixture or a ``with`` block, so a stuck server fails a test instead of
hanging the suite.  The network guard of conftest.py is on for every test.
"""

import http.client
import http.server
import json
import socket
import threading
import urllib.error
import urllib.request

import netguard
import pytest

import lessonlib as L
from lessonlib import client as C
from lessonlib.exercises import step12
from lessonlib.panel_study import FREE_FORM_GUIDELINE

openai = pytest.importorskip("openai")

TIMEOUT = 5.0
RECORDS = L.make_records()


@pytest.fixture
def server():
    srv = C.SimulatorServer()
    try:
        yield srv
    finally:
        srv.stop()


def sdk_ask(server, model="lesson", **options):
    spec = {s.name: s for s in L.JUDGES}[model]
    options = {"temperature": spec.temperature, "timeout": TIMEOUT,
               "on_reset": server.reset, **options}
    return C.OpenAIAsk(server.base_url, "course", model, **options)


def post(url, payload, raw=None):
    """(status, JSON body) of one POST, read with the standard library."""
    data = raw if raw is not None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


# ------------------------------------------------------------------ same figures as in process

@pytest.mark.slow      # whole record sets through HTTP: make test runs it, make check does not
def test_the_lessons_judge_through_server_and_sdk_is_the_lessons_judge(server):
    run = L.Panel([sdk_ask(server)], on_unreadable="clean").run(RECORDS, L.SEED)
    lesson = L.run_judge(RECORDS, L.SEED)
    assert run.labels == lesson.labels
    assert (run.calls, run.input_tokens) == (lesson.calls, lesson.input_tokens)
    assert (lesson.calls, lesson.input_tokens) == (246, 10779)   # the lesson's printed figures
    assert server.requests == run.calls                           # every call went over HTTP


@pytest.mark.slow      # whole record sets through HTTP: make test runs it, make check does not
def test_a_diverse_panel_through_the_server_equals_the_panel_in_process(server):
    records = RECORDS[:20]          # 40 calls a judge: the rate limit strikes once, in sample 2
    through = L.Panel([sdk_ask(server, name) for name in L.DIVERSE], quorum=2)
    in_process = L.Panel(L.judge_models(*L.DIVERSE), quorum=2)
    a, b = through.run(records, L.SEED + 3), in_process.run(records, L.SEED + 3)
    assert a.judge_retries[0] > 0                    # the rate limit struck through HTTP
    assert a == b
    assert through.run(records, L.SEED + 3) == a     # the panel's reset restarts the clocks


@pytest.mark.parametrize("guideline", [L.GUIDELINE, FREE_FORM_GUIDELINE])
def test_each_reply_is_the_simulators_reply(server, guideline):
    model = L.SimulatedModel()
    for i, record in enumerate(RECORDS[:40]):
        prompt = L.build_prompt(record, guideline)
        status, body = server.complete({"model": "lesson", "seed": i,
                                        "messages": [{"role": "user", "content": prompt}]})
        reply = model.call(prompt, i)
        if reply.status == "rate_limit":
            assert status == 429 and body["error"]["code"] == "rate_limit_exceeded"
            continue
        assert status == 200
        assert body["choices"][0]["message"]["content"] == reply.text
        assert body["choices"][0]["finish_reason"] == "stop"
        assert body["usage"]["prompt_tokens"] == reply.input_tokens == len(L.tokenize(prompt))
        assert body["usage"]["completion_tokens"] == reply.output_tokens


def test_max_tokens_cuts_the_reply_and_says_so(server):
    prompt = L.build_prompt(RECORDS[0], FREE_FORM_GUIDELINE)
    seed = next(s for s in range(100)
                if L.SimulatedModel().plan(prompt).reply(s, 24).output_tokens > 2)
    status, body = server.complete({"model": "lesson", "seed": seed, "max_tokens": 2,
                                    "messages": [{"role": "user", "content": prompt}]})
    cut = L.SimulatedModel(max_output=2).call(prompt, seed)
    assert status == 200 and body["choices"][0]["message"]["content"] == cut.text
    assert body["choices"][0]["finish_reason"] == "length"


def test_the_temperature_comes_from_the_request(server):
    greedy = sdk_ask(server, "lesson", temperature=0.0)
    model = L.SimulatedModel(temperature=0.0)
    prompts = [L.build_prompt(r) for r in RECORDS[:20]]
    assert [greedy(p, 7).text for p in prompts] == [model.call(p, 7).text for p in prompts]


# ------------------------------------------------------------------ statuses the panel sees

def test_the_rate_limit_is_http_429_and_status_rate_limit(server):
    prompt = L.build_prompt(RECORDS[0])
    url = server.base_url + "/chat/completions"
    payload = {"model": "wary", "messages": [{"role": "user", "content": prompt}]}
    statuses = [post(url, payload)[0] for _ in range(L.RATE_LIMIT_EVERY)]
    assert statuses == [200] * (L.RATE_LIMIT_EVERY - 1) + [429]
    ask = sdk_ask(server, "plain")
    replies = [ask(prompt, 1) for _ in range(L.RATE_LIMIT_EVERY)]
    assert replies[-1] == L.AskReply("", None, "rate_limit")
    assert {r.status for r in replies[:-1]} == {"ok"}
    assert ask._sdk.max_retries == 0


def test_a_prompt_beyond_the_window_is_status_context_overflow(server):
    prompt = L.build_prompt(RECORDS[0]) + " kelime" * L.WINDOW
    assert sdk_ask(server)(prompt, 1) == L.AskReply("", None, "context_overflow")


def test_a_server_that_never_answers_times_out_as_a_status():
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)        # the kernel accepts the connection; nothing ever replies
    try:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        ask = C.OpenAIAsk(url, "course", "lesson", timeout=0.05)
        assert ask("temiz mi", 1) == L.AskReply("", None, "timeout")
        run = L.Panel([ask], on_unreadable="abstain").run(RECORDS[:2])
        assert (run.calls, run.unreadable) == (4, 2)    # retried once, then unreadable
    finally:
        silent.close()


class _Fixed(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the server's ``body`` and ``content_type``."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        data = self.server.body.encode()
        self.send_response(200)
        self.send_header("Content-Type", self.server.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("body, content_type, message", [
    ("{not json", "application/json", "malformed JSON"),
    ("hello", "text/plain", "did not send a chat completion"),
    ('{"choices": []}', "application/json", "did not send a chat completion"),
    ('{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": '
     '[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", '
     '"content": "temiz"}}], "usage": {"prompt_tokens": -3, "completion_tokens": 1, '
     '"total_tokens": 1}}', "application/json", "not a count"),
])
def test_a_reply_that_is_not_a_chat_completion_is_a_clear_error(body, content_type, message):
    bad = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Fixed)
    bad.body, bad.content_type = body, content_type
    thread = threading.Thread(target=bad.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        ask = C.OpenAIAsk(f"http://127.0.0.1:{bad.server_address[1]}/v1", "k", "m",
                          timeout=TIMEOUT)
        with pytest.raises(RuntimeError, match=message):
            ask("temiz mi", 1)
    finally:
        bad.shutdown()
        bad.server_close()
        thread.join(timeout=TIMEOUT)


def test_no_server_is_a_connection_error_naming_the_address():
    with C.SimulatorServer() as srv:
        url = srv.base_url
    with pytest.raises(ConnectionError, match="is the server running"):
        C.OpenAIAsk(url, "course", "lesson", timeout=TIMEOUT)("temiz mi", 1)


def test_an_unknown_model_is_the_servers_404(server):
    with pytest.raises(openai.NotFoundError, match="not served here"):
        C.OpenAIAsk(server.base_url, "course", "gpt-nothing", timeout=TIMEOUT)("temiz mi", 1)


@pytest.mark.parametrize("payload, raw, code, words", [
    (None, b"{oops", 400, "not valid JSON"),
    ([1, 2], None, 400, "JSON object"),
    ({"model": "lesson"}, None, 400, "messages"),
    ({"model": "lesson", "messages": [{"role": "user", "content": "x"}], "seed": -1}, None,
     400, "seed"),
    ({"model": "lesson", "messages": [{"role": "user", "content": "x"}], "temperature": "hot"},
     None, 400, "temperature"),
    ({"model": "lesson", "messages": [{"role": "user", "content": "x"}], "max_tokens": 0},
     None, 400, "max_tokens"),
])
def test_the_server_refuses_a_bad_request_with_a_clear_400(server, payload, raw, code, words):
    status, body = post(server.base_url + "/chat/completions", payload, raw)
    assert status == code and words in body["error"]["message"]


def test_only_the_route_is_served(server):
    status, body = post(server.base_url + "/completions", {})
    assert status == 404 and "/v1/chat/completions" in body["error"]["message"]


# ------------------------------------------------------------------ loopback only, bad input

@pytest.mark.parametrize("host", ["0.0.0.0", "localhost", "::1", "192.168.1.10", ""])
def test_the_server_refuses_any_host_but_loopback(host):
    with pytest.raises(ValueError, match="host must be '127.0.0.1'"):
        C.SimulatorServer(host=host)


def test_a_port_in_use_is_a_clear_error():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(OSError, match=r"port \d+ on 127.0.0.1 is already in use"):
            C.SimulatorServer(port=taken.getsockname()[1])
    finally:
        taken.close()


def test_one_connection_carries_many_requests_a_refused_one_included(server):
    prompt = L.build_prompt(RECORDS[0])
    ok = json.dumps({"model": "lesson", "messages": [{"role": "user", "content": prompt}]})
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)
    try:
        statuses = []
        for path, body in [("/v1/chat/completions", ok), ("/v1/completions", ok),
                           ("/v1/chat/completions", "{oops"), ("/v1/chat/completions", ok)]:
            connection.request("POST", path, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            json.loads(response.read())
            statuses.append(response.status)
            assert response.getheader("Connection") != "close"
        assert statuses == [200, 404, 400, 200] and server.requests == 3
    finally:
        connection.close()


def test_stop_hangs_up_on_a_kept_alive_client_frees_the_port_and_can_be_called_twice():
    srv = C.SimulatorServer()
    port = srv.port
    ask = C.OpenAIAsk(srv.base_url, "course", "lesson", timeout=TIMEOUT)
    assert ask("temiz mi", 1).status == "ok"        # its connection stays open
    srv.stop()
    with pytest.raises(ConnectionError, match="is the server running"):
        ask("temiz mi", 2)
    srv.stop()
    assert "stopped" in repr(srv)
    with C.SimulatorServer(port=port) as again:
        assert again.port == port


def test_the_network_guard_still_refuses_other_addresses(no_network):
    ask = C.OpenAIAsk("http://10.255.255.1:80/v1", "course", "lesson", timeout=TIMEOUT)
    with pytest.raises(netguard.NetworkBlocked):
        ask("temiz mi", 1)
    assert no_network.blocked and no_network.blocked[0][1][0] == "10.255.255.1"
    no_network.blocked.clear()        # expected here; any other test would fail on it


def test_reset_passes_the_model_name():
    seen = []
    C.OpenAIAsk("http://127.0.0.1:9/v1", "k", "wary", on_reset=seen.append).reset()
    C.OpenAIAsk("http://127.0.0.1:9/v1", "k", "plain").reset()      # no hook: nothing happens
    assert seen == ["wary"]


# ------------------------------------------------------------------ reading real replies

@pytest.mark.parametrize("reply, label", [
    ("Zararlı.", "zararli"), ("ZARARLİ", "zararli"), ('"zararli"', "zararli"),
    ("temiz.", "temiz"), ("TEMİZ!", "temiz"), ("Etiket: «zararlı»", "zararli"),
    ("zararli", "zararli"), ("kayit temiz gorunuyor", "temiz"), ("zarar li", None),
    ("degerlendirme tamamlandi", None), ("", None), ("zararlilik", None),
])
def test_read_reply_reads_real_replies(reply, label):
    assert C.read_reply(reply) == label


@pytest.mark.parametrize("reply", ["Zararlı.", "ZARARLİ", '"zararli"', "temiz."])
def test_the_lessons_reader_stays_as_it_is(reply):
    assert L.read_label(reply) is None


def test_both_readers_agree_on_every_simulated_reply():
    texts = {L.SimulatedModel(max_output=cap).call(L.build_prompt(r, g), s).text
             for r in RECORDS[:30] for g in (L.GUIDELINE, FREE_FORM_GUIDELINE)
             for s in range(4) for cap in (1, 2, 24)}
    assert len(texts) > 5
    assert all(C.read_reply(t) == L.read_label(t) for t in texts)


def test_fold_handles_both_turkish_is():
    assert C.fold("İIıi ŞĞÇÖÜ") == "iiii sgcou"


# ------------------------------------------------------------------ the reply cache

@pytest.mark.slow      # whole record sets through HTTP: make test runs it, make check does not
def test_a_cached_run_reproduces_its_figures_without_http(tmp_path):
    cache = C.ReplyCache(tmp_path / "replies")
    with C.SimulatorServer() as srv:
        first = L.Panel([sdk_ask(srv, cache=cache)], on_unreadable="clean").run(RECORDS)
        assert srv.requests == first.calls == len(cache)
        # exercise 2: at the next seed, only the questions the cache lacks reach the server
        L.Panel([sdk_ask(srv, cache=cache)], on_unreadable="clean").run(RECORDS, L.SEED + 1)
        neighbour = srv.requests - first.calls
        assert neighbour == step12.neighbour_cache_requests() < first.calls
    # the server is gone: any HTTP call would now raise ConnectionError
    again = C.OpenAIAsk(srv.base_url, "course", "lesson", timeout=TIMEOUT, cache=cache)
    second = L.Panel([again], on_unreadable="clean").run(RECORDS)
    assert second == first
    assert first.retries > 0          # the rate-limit refusals are replayed too


def test_the_cache_is_off_by_default_and_keyed_by_the_question(server, tmp_path):
    assert sdk_ask(server).cache is None
    cache = C.ReplyCache(tmp_path)
    prompt = L.build_prompt(RECORDS[0])
    for ask in (sdk_ask(server, cache=cache), sdk_ask(server, cache=cache, temperature=0.0),
                sdk_ask(server, "wary", cache=cache)):
        ask(prompt, 1)
        ask(prompt, 1)
        ask(prompt, 2)
    assert server.requests == len(cache) == 6


def test_a_damaged_cache_file_is_a_clear_error(server, tmp_path):
    cache = C.ReplyCache(tmp_path)
    ask = sdk_ask(server, cache=cache)
    ask("temiz mi", 1)
    (path,) = tmp_path.glob("*.json")
    path.write_text("{half", encoding="utf-8")
    with pytest.raises(ValueError, match="damaged"):
        ask("temiz mi", 1)


def test_the_default_cache_folder_is_ignored_by_git(root):
    assert C.CACHE_FOLDER == root / ".cache" / "replies"
    assert ".cache/" in (root / ".gitignore").read_text().splitlines()


# ------------------------------------------------------------------ cost, shorthand, retries

def test_run_cost_counts_one_call_per_judge_sample_and_record():
    one = C.run_cost(RECORDS)
    prompts = [L.build_prompt(r) for r in RECORDS]
    assert one == {"calls": len(RECORDS),
                   "input_tokens": sum(len(L.tokenize(p)) for p in prompts),
                   "characters": sum(len(p) for p in prompts)}
    assert C.run_cost(RECORDS, 3, 3) == {k: 9 * v for k, v in one.items()}
    lesson = L.run_judge(RECORDS)          # the least: the lesson's run only adds retries
    assert one["calls"] == lesson.calls - lesson.retries


def test_server_ask_is_the_three_values_with_the_models_temperature(server):
    ask = server.ask("greedy", timeout=TIMEOUT)
    assert (ask.base_url, ask.model, ask.temperature) == (server.base_url, "greedy", 0.0)


@pytest.mark.slow      # whole record sets through HTTP: make test runs it, make check does not
def test_the_sdks_own_retries_hide_calls_from_the_panel(server):
    run = L.Panel([sdk_ask(server, max_retries=2)], on_unreadable="clean").run(RECORDS)
    assert run.calls == len(RECORDS) and run.retries == 0
    assert server.requests == len(RECORDS) + len(RECORDS) // L.RATE_LIMIT_EVERY
    assert server.requests == L.run_judge(RECORDS).calls
    assert (run.calls, server.requests) == step12.sdk_retry_counts()    # exercise 1's answer


# ------------------------------------------------------------------ the exercise checks of 12
# (their answers are checked against the real SDK and server above)

def test_check_sdk_retries(capsys):
    ex, counts = step12, step12.sdk_retry_counts()
    assert not ex.check_sdk_retries(...)
    assert capsys.readouterr().out.startswith("Not yet: give two whole numbers")
    assert not ex.check_sdk_retries((counts[1], counts[1]))
    assert "not what the panel counts" in capsys.readouterr().out
    assert not ex.check_sdk_retries((counts[0], counts[0]))
    assert "not what the server answers" in capsys.readouterr().out
    assert ex.check_sdk_retries(list(counts))
    assert capsys.readouterr().out.startswith("PASS: ")


def test_check_neighbour_cache(capsys):
    ex, requests = step12, step12.neighbour_cache_requests()
    for wrong in (..., -1, 2.5, True):
        assert not ex.check_neighbour_cache(wrong)
        assert capsys.readouterr().out.startswith("Not yet: give a whole number")
    assert not ex.check_neighbour_cache(requests + 1)
    assert "which questions" in capsys.readouterr().out
    assert ex.check_neighbour_cache(requests)
    assert capsys.readouterr().out.startswith("PASS: ")


def test_a_proxy_in_the_environment_never_carries_loopback_traffic(server, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.255.255.1:3128")
    monkeypatch.setenv("NO_PROXY", "")
    assert sdk_ask(server)(L.build_prompt(RECORDS[0]), 1).status == "ok"
