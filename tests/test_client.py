"""lessonlib.client: the simulator behind a loopback server, the openai SDK in front.

Every client call here has a short timeout and every server is stopped in a
fixture or a ``with`` block, so a stuck server fails a test instead of
hanging the suite.  The network guard of conftest.py is on for every test.
"""

import http.client
import http.server
import importlib.util
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

import lessonlib as L
import netguard
from lessonlib import client as C
from lessonlib.exercises import step13
from lessonlib.panel import JudgeError
from lessonlib.panel_study import FREE_FORM_GUIDELINE
from lessonlib.server import MAX_BODY

# the SDK is imported by the tests that use it, not at collection: importing it costs about
# 1.8 s of CPU, paid by every pytest worker that collects this file
if importlib.util.find_spec("openai") is None:
    pytest.skip("the openai SDK is not installed", allow_module_level=True)

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
    options = {
        "temperature": spec.temperature,
        "timeout": TIMEOUT,
        "on_reset": server.reset,
        **options,
    }
    return C.OpenAIAsk(server.base_url, "course", model, **options)


def post(url, payload, raw=None):
    """(status, JSON body) of one POST, read with the standard library."""
    data = raw if raw is not None else json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def parts(reply):
    return reply.text, reply.input_tokens, reply.status


# ------------------------------------------------------------------ same figures as in process


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_the_lessons_judge_through_server_and_sdk_is_the_lessons_judge(server):
    run = L.Panel([sdk_ask(server)], on_unreadable="clean").run(RECORDS, L.SEED)
    lesson = L.run_judge(RECORDS, L.SEED)
    assert run.labels == lesson.labels
    assert (run.calls, run.input_tokens) == (lesson.calls, lesson.input_tokens)
    assert (lesson.calls, lesson.input_tokens) == (246, 10779)  # the lesson's printed figures
    assert server.requests == run.calls  # every call went over HTTP


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_a_diverse_panel_through_the_server_equals_the_panel_in_process(server):
    records = RECORDS[:20]  # 40 calls a judge: the rate limit strikes once, in sample 2
    through = L.Panel([sdk_ask(server, name) for name in L.DIVERSE], quorum=2)
    in_process = L.Panel(L.judge_models(*L.DIVERSE), quorum=2)
    a, b = through.run(records, L.SEED + 3), in_process.run(records, L.SEED + 3)
    assert a.judge_retries[0] > 0  # the rate limit struck through HTTP
    assert a == b
    assert through.run(records, L.SEED + 3) == a  # the panel's reset restarts the clocks


@pytest.mark.parametrize("guideline", [L.GUIDELINE, FREE_FORM_GUIDELINE])
def test_each_reply_is_the_simulators_reply(server, guideline):
    model = L.SimulatedModel()
    for i, record in enumerate(RECORDS[:40]):
        prompt = L.build_prompt(record, guideline)
        status, body = server.complete(
            {"model": "lesson", "seed": i, "messages": [{"role": "user", "content": prompt}]}
        )
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
    seed = next(
        s for s in range(100) if L.SimulatedModel().plan(prompt).reply(s, 24).output_tokens > 2
    )
    status, body = server.complete(
        {
            "model": "lesson",
            "seed": seed,
            "max_tokens": 2,
            "messages": [{"role": "user", "content": prompt}],
        }
    )
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
    assert parts(replies[-1]) == ("", None, "rate_limit")
    assert {r.status for r in replies[:-1]} == {"ok"}
    assert ask._sdk.max_retries == 0


def test_a_prompt_beyond_the_window_is_status_context_overflow(server):
    prompt = L.build_prompt(RECORDS[0]) + " kelime" * L.WINDOW
    assert parts(sdk_ask(server)(prompt, 1)) == ("", None, "context_overflow")


def test_a_server_that_never_answers_times_out_as_a_status():
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # the kernel accepts the connection; nothing ever replies
    try:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        ask = C.OpenAIAsk(url, "course", "lesson", timeout=0.05)
        assert parts(ask("temiz mi", 1)) == ("", None, "timeout")
        run = L.Panel([ask], on_unreadable="abstain").run(RECORDS[:2])
        assert (run.calls, run.unreadable) == (4, 2)  # retried once, then unreadable
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


@pytest.mark.parametrize(
    "body, content_type, message",
    [
        ("{not json", "application/json", "malformed JSON"),
        ("hello", "text/plain", "did not send a chat completion"),
        ('{"choices": []}', "application/json", "did not send a chat completion"),
        (
            '{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": '
            '[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", '
            '"content": "temiz"}}], "usage": {"prompt_tokens": -3, "completion_tokens": 1, '
            '"total_tokens": 1}}',
            "application/json",
            "not a count",
        ),
    ],
)
def test_a_reply_that_is_not_a_chat_completion_is_a_clear_error(body, content_type, message):
    bad = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Fixed)
    bad.body, bad.content_type = body, content_type
    thread = threading.Thread(target=bad.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        ask = C.OpenAIAsk(
            f"http://127.0.0.1:{bad.server_address[1]}/v1", "k", "m", timeout=TIMEOUT
        )
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
    import openai

    with pytest.raises(openai.NotFoundError, match="not served here"):
        C.OpenAIAsk(server.base_url, "course", "gpt-nothing", timeout=TIMEOUT)("temiz mi", 1)


@pytest.mark.parametrize(
    "payload, raw, code, words",
    [
        (None, b"{oops", 400, "not valid JSON"),
        ([1, 2], None, 400, "JSON object"),
        ({"model": "lesson"}, None, 400, "messages"),
        (
            {"model": "lesson", "messages": [{"role": "user", "content": "x"}], "seed": -1},
            None,
            400,
            "seed",
        ),
        (
            {
                "model": "lesson",
                "messages": [{"role": "user", "content": "x"}],
                "temperature": "hot",
            },
            None,
            400,
            "temperature",
        ),
        (
            {"model": "lesson", "messages": [{"role": "user", "content": "x"}], "max_tokens": 0},
            None,
            400,
            "max_tokens",
        ),
    ],
)
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
        with pytest.raises(OSError, match="in use"):
            C.SimulatorServer(port=taken.getsockname()[1])
    finally:
        taken.close()


def test_one_connection_carries_many_requests_a_refused_one_included(server):
    prompt = L.build_prompt(RECORDS[0])
    ok = json.dumps({"model": "lesson", "messages": [{"role": "user", "content": prompt}]})
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)
    try:
        statuses = []
        for path, body in [
            ("/v1/chat/completions", ok),
            ("/v1/completions", ok),
            ("/v1/chat/completions", "{oops"),
            ("/v1/chat/completions", ok),
        ]:
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
    assert ask("temiz mi", 1).status == "ok"  # its connection stays open
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
    no_network.blocked.clear()  # expected here; any other test would fail on it


def test_reset_passes_the_model_name():
    seen = []
    C.OpenAIAsk("http://127.0.0.1:9/v1", "k", "wary", on_reset=seen.append).reset()
    C.OpenAIAsk("http://127.0.0.1:9/v1", "k", "plain").reset()  # no hook: nothing happens
    assert seen == ["wary"]


# ------------------------------------------------------------------ reading real replies

# Issue 29's table: replies a real model might write.  None of these states a verdict by
# the protocol (a last ETİKET line, a JSON label, or a reply that is exactly a label), so
# each must be unreadable - and the negated ones name the label they deny.
UNREADABLE = [
    # English negation, hedging, two sides
    "The record isn't temiz.",
    "It isn't zararli.",
    "This doesn't look temiz to me.",
    "I can't call it temiz.",
    "Hardly temiz.",
    "Not temiz.",
    "It is not zararli.",
    "Never temiz.",
    "I would not say zararli.",
    "Maybe zararli.",
    "Probably temiz.",
    "Either temiz or zararli.",
    "temiz? I doubt it.",
    "Label: not temiz",
    "Label: temiz?",
    # Turkish negation (değil, and in the verb), hedging, two sides
    "Temiz değil.",
    "Zararlı değil.",
    "TEMİZ DEĞİL",
    "Bu kayıt zararlı değildir.",
    "Temiz değildir.",
    "**Temiz** değil",
    "Temiz olduğunu düşünmüyorum.",
    "Temiz sayılmaz.",
    "Temiz olmadığı açık.",
    "Kesinlikle temiz diyemem.",
    "Temiz kabul edilemez.",
    "Zararlı görünmüyor.",
    "Zararlı bir şey bulamadım.",
    "Zararlı bir şey yok.",
    "temiz/zararlı",
    "zararlı ya da temiz",
    "Temiz mi zararlı mı, emin değilim.",
    "Belki zararlı.",
    "Temiz?",
    "zararli olabilir",
    "ETİKET: temiz değil",
    "ETİKET: belki zararlı",
    "ETİKET: temiz\nETİKET: zararli değil",
    # verdicts stated in free text, not by the protocol: unreadable, never guessed
    "Temiz değil, zararlı.",
    "Zararsız.",
    "Zararlı mı? Evet.",
    "kayit temiz gorunuyor",
    "Bu kayıt temizdir.",
    "Eminim: zararlı.",
    # no verdict, or a broken one
    "",
    "zarar li",
    "zararlilik",
    "degerlendirme tamamlandi",
    '{"label": "maybe"}',
    '{"label": "temiz", "etiket": "zararli"}',
    '{"verdict": "temiz"}',
    '{"label": "temiz"',
    '["temiz"]',
]

# Plainly stated verdicts: each must be read, as the label it states.
STATED = [
    ("Zararlı.", "zararli"),
    ("ZARARLİ", "zararli"),
    ('"zararli"', "zararli"),
    ("temiz.", "temiz"),
    ("TEMİZ!", "temiz"),
    ("**temiz**", "temiz"),
    ("`ZARARLI`", "zararli"),
    ("> temiz", "temiz"),
    ("'Zararlı'", "zararli"),
    ("ｔｅｍｉｚ", "temiz"),  # full-width: its NFKC form is temiz
    ("ＺＡＲＡＲＬＩ", "zararli"),
    ("Etiket: «zararlı»", "zararli"),
    ("Label: zararlı", "zararli"),
    ("Etiket: **Temiz**.", "temiz"),
    ("ETİKET: temiz", "temiz"),
    ("ETİKET: zararlı", "zararli"),
    ("**ETİKET:** Zararlı", "zararli"),
    ("etiket:zararli", "zararli"),
    ("Kayıt bir kullanıcı mesajı.\nETİKET: zararli", "zararli"),
    ("Temiz değil, zararlı.\nETİKET: zararli", "zararli"),
    ("Zararsız.\nETİKET: temiz", "temiz"),
    ("Zararlı mı? Evet.\nETİKET: zararli", "zararli"),
    ("ETİKET: temiz\nNot: kaynak damgası tutarlı.", "temiz"),  # Turkish "Not:" is a note
    ("Label: temiz\nLABEL: zararli", "zararli"),  # the last verdict line counts
    ("```\nETİKET: temiz\n```", "temiz"),
    ('{"label": "zararli"}', "zararli"),
    ('```json\n{"label": "temiz"}\n```', "temiz"),
    ('{"etiket": "Zararlı"}', "zararli"),
    ('{"quote": "etiket: temiz", "label": "zararli"}', "zararli"),
]


@pytest.mark.parametrize("reply", UNREADABLE)
def test_a_reply_without_a_protocol_verdict_is_unreadable_never_a_label(reply):
    assert C.read_reply(reply) is None


@pytest.mark.parametrize("reply, label", STATED)
def test_every_plainly_stated_verdict_is_read(reply, label):
    assert C.read_reply(reply) == label


def test_the_table_is_the_issues_size_and_its_negations_are_real_traps():
    assert len(UNREADABLE) + len(STATED) >= 52
    negated = [r for r in UNREADABLE[:38] if C.first_label(r) is not None]
    assert len(negated) >= 30  # a first-label reader takes a label from each of these


def test_the_negation_trap_goes_both_ways():
    """'not clean' must not pass a harmful record; 'not harmful' must not flag a clean one."""
    negated = {label: f"{label.capitalize()} değil." for label in L.LABELS}
    assert [C.read_reply(text) for text in negated.values()] == [None, None]
    assert [C.first_label(text) for text in negated.values()] == list(L.LABELS)


def test_the_lessons_reader_is_the_seeds_rule_and_fails_on_real_replies():
    assert L.read_label("Temiz değil.") == "temiz"  # the seed's first-word rule: a fail-open
    assert L.read_label("Zararlı.") is None  # and blind to a plain verdict
    assert C.read_reply("Temiz değil.") is None and C.read_reply("Zararlı.") == "zararli"


def test_read_reply_refuses_what_is_not_text():
    with pytest.raises(TypeError, match="text must be reply text"):
        C.read_reply(None)


def test_on_every_simulated_reply_read_reply_gives_read_labels_label_or_none():
    texts = {
        L.SimulatedModel(max_output=cap).call(L.build_prompt(r, g), s).text
        for r in RECORDS[:30]
        for g in (L.GUIDELINE, FREE_FORM_GUIDELINE, C.VERDICT_GUIDELINE)
        for s in range(4)
        for cap in (1, 2, 24)
    }
    assert len(texts) > 5
    assert all(C.read_reply(t) in (L.read_label(t), None) for t in texts)
    bare = [t for t in texts if t in L.LABELS]
    assert bare and all(C.read_reply(t) == t for t in bare)


def test_fold_handles_both_turkish_is_and_nfkc_forms():
    assert C.fold("İIıi ŞĞÇÖÜ") == "iiii sgcou"
    assert C.fold("ｔｅｍｉｚ") == "temiz"


def test_the_verdict_guideline_asks_for_the_last_line_and_keeps_the_lessons_words():
    assert C.VERDICT_GUIDELINE.startswith(L.GUIDELINE.split(" Oznitelikler")[0])
    assert "ETİKET: temiz" in C.VERDICT_GUIDELINE and "ETİKET: zararli" in C.VERDICT_GUIDELINE


def test_the_label_response_format_is_a_strict_schema_with_an_enum_of_the_labels():
    form = C.label_response_format()
    schema = form["json_schema"]["schema"]
    assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
    assert schema["properties"]["label"]["enum"] == list(L.LABELS)
    assert C.label_response_format() is not form  # a fresh dict each time
    with pytest.raises(ValueError, match="name"):
        C.label_response_format("two words")


# ------------------------------------------------------------------ the protocol over HTTP


def _sdk(server):
    import openai

    return openai.OpenAI(
        base_url=server.base_url,
        api_key="k",
        max_retries=0,
        timeout=TIMEOUT,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )


@pytest.mark.parametrize("kind", ["json_schema", "json_object"])
def test_the_server_answers_a_response_format_with_the_simulators_label_as_json(server, kind):
    form = C.label_response_format() if kind == "json_schema" else {"type": "json_object"}
    sdk = _sdk(server)
    for i, record in enumerate(RECORDS[:12]):
        prompt = L.build_prompt(record, C.VERDICT_GUIDELINE)
        out = sdk.chat.completions.create(
            model="lesson",
            messages=[{"role": "user", "content": prompt}],
            seed=i,
            temperature=0.3,
            response_format=form,
        )
        content = out.choices[0].message.content
        bare = L.SimulatedModel().call(prompt, i).text  # the verdict guideline keeps "tek"
        assert json.loads(content) == {"label": bare}
        assert C.read_reply(content) == bare and out.choices[0].finish_reason == "stop"


def test_the_sdks_parse_helper_reads_the_verdict_into_a_pydantic_model(server):
    from typing import Literal

    import pydantic

    class Verdict(pydantic.BaseModel):
        label: Literal["temiz", "zararli"]

    sdk = _sdk(server)
    parse = getattr(sdk.chat.completions, "parse", None) or sdk.beta.chat.completions.parse
    prompt = L.build_prompt(RECORDS[1], C.VERDICT_GUIDELINE)
    out = parse(
        model="lesson",
        messages=[{"role": "user", "content": prompt}],
        seed=L.SEED,
        response_format=Verdict,
    )
    assert out.choices[0].message.parsed.label == L.SimulatedModel().call(prompt, L.SEED).text


def test_an_unknown_response_format_is_a_400_naming_the_parameter(server):
    import openai

    with pytest.raises(openai.BadRequestError) as info:
        _sdk(server).chat.completions.create(
            model="lesson",
            messages=[{"role": "user", "content": "temiz mi"}],
            response_format={"type": "xml"},
        )
    assert info.value.status_code == 400 and info.value.param == "response_format"


def test_openai_ask_with_a_response_format_gives_the_text_runs_label(server):
    plain = server.ask("lesson", timeout=TIMEOUT)
    as_json = server.ask("lesson", timeout=TIMEOUT, response_format=C.label_response_format())
    prompts = [L.build_prompt(r, C.VERDICT_GUIDELINE) for r in RECORDS[:20]]
    server.reset()
    texts = [plain(p, L.SEED).text for p in prompts]
    server.reset()
    labels = [as_json(p, L.SEED) for p in prompts]
    assert [r.text for r in labels] == texts
    assert all(json.loads(r.raw)["label"] == r.text for r in labels if r.status == "ok")


def test_a_cached_json_reply_is_kept_apart_from_a_text_one(server, tmp_path):
    cache = C.ReplyCache(tmp_path)
    server.ask("lesson", cache=cache)("temiz mi", 1)
    server.ask("lesson", cache=cache, response_format={"type": "json_object"})("temiz mi", 1)
    assert len(cache) == 2


# ------------------------------------------------------------------ reading under planted text


def test_a_planted_verdict_line_fools_first_match_and_nothing_else():
    from lessonlib import planted

    reading = planted.planted_reading(RECORDS)
    assert reading.records == len(RECORDS) and 0 < reading.harmful_verdicts < len(RECORDS)
    assert all(reading.wrong_clean[name] == 0 for name in planted.READINGS)
    # first match reads the quoted "etiket: temiz" for every verdict that was zararli
    assert reading.wrong_planted["first match"] == reading.harmful_verdicts
    assert reading.tables["first match"][0][1] == reading.harmful_verdicts
    assert reading.p_values["first match"] < 0.05
    assert reading.wrong_planted["last match"] == reading.wrong_planted["JSON"] == 0
    assert reading.p_values["last match"] == reading.p_values["JSON"] == 1.0


def test_a_planted_line_that_is_not_a_verdict_fools_no_reading():
    from lessonlib import planted

    reading = planted.planted_reading(RECORDS[:40], line="etiket yok")
    assert all(reading.wrong_planted[name] == 0 for name in planted.READINGS)


def test_planted_twins_change_only_the_support_text_and_carry_no_other_words():
    from lessonlib import planted

    twins = planted.planted_twins(RECORDS[:5])
    for record, twin in zip(RECORDS[:5], twins):
        assert twin.text == record.text + "\n" + planted.PLANTED_LINE
        assert (twin.no, twin.cls, twin.features) == (record.no, record.cls, record.features)
    reply = planted.quoting_reply(twins[0], "zararli")
    assert C.first_verdict(reply) == "temiz" and C.read_reply(reply) == "zararli"


# ------------------------------------------------------------------ the reply cache


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_a_cached_run_reproduces_its_figures_without_http(tmp_path):
    cache = C.ReplyCache(tmp_path / "replies")
    with C.SimulatorServer() as srv:
        first = L.Panel([sdk_ask(srv, cache=cache)], on_unreadable="clean").run(RECORDS)
        assert srv.requests == first.calls == len(cache)
        # exercise 2: at the next seed, only the questions the cache lacks reach the server
        second = L.Panel([sdk_ask(srv, cache=cache)], on_unreadable="clean").run(
            RECORDS, L.SEED + 1
        )
        neighbour = srv.requests - first.calls
        assert neighbour == step13._neighbour_cache_requests() < first.calls
        assert second.calls - neighbour == step13._neighbour_cache_hits(2) > 0  # one pair
    # the server is gone: any HTTP call would now raise ConnectionError
    again = C.OpenAIAsk(srv.base_url, "course", "lesson", timeout=TIMEOUT, cache=cache)
    second = L.Panel([again], on_unreadable="clean").run(RECORDS)
    assert second == first
    assert first.retries > 0  # the rate-limit refusals are replayed too


def test_the_cache_is_off_by_default_and_keyed_by_the_question(server, tmp_path):
    assert sdk_ask(server).cache is None
    cache = C.ReplyCache(tmp_path)
    prompt = L.build_prompt(RECORDS[0])
    for ask in (
        sdk_ask(server, cache=cache),
        sdk_ask(server, cache=cache, temperature=0.0),
        sdk_ask(server, "wary", cache=cache),
    ):
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


@pytest.mark.parametrize("damage", ["bytes", "folder"])
def test_a_damaged_cache_file_names_the_file_and_says_delete_it(server, tmp_path, damage):
    cache = C.ReplyCache(tmp_path)
    ask = sdk_ask(server, cache=cache)
    ask("temiz mi", 1)
    (path,) = tmp_path.glob("*.json")
    if damage == "bytes":
        path.write_bytes(b'{"question": "\xff\xfe"}')
    else:
        path.unlink()
        path.mkdir()
    with pytest.raises(ValueError, match="damaged") as info:
        ask("temiz mi", 1)
    assert str(path) in str(info.value) and "delete the file" in str(info.value)
    if damage == "folder":
        with pytest.raises(ValueError, match="damaged"):
            ask.ask_again("temiz mi", 1)  # a write over it says the same


def test_two_equal_content_length_headers_are_one_length(server):
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n"
        b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
    )
    status, body, _ = status_and_body(raw_exchange(server.port, request))
    assert status == 400 and "model" in body["error"]["message"]  # read, then refused as JSON


def test_the_default_cache_folder_is_ignored_by_git(root):
    assert C.CACHE_FOLDER == root / ".cache" / "replies"
    assert ".cache/" in (root / ".gitignore").read_text().splitlines()


# ------------------------------------------------------------------ cost, shorthand, retries


def test_run_cost_counts_one_call_per_judge_sample_and_record():
    one = C.run_cost(RECORDS)
    prompts = [L.build_prompt(r) for r in RECORDS]
    assert one == {
        "calls": len(RECORDS),
        "input_tokens": sum(len(L.tokenize(p)) for p in prompts),
        "characters": sum(len(p) for p in prompts),
    }
    assert C.run_cost(RECORDS, 3, 3) == {k: 9 * v for k, v in one.items()}
    lesson = L.run_judge(RECORDS)  # the least: the lesson's run only adds retries
    assert one["calls"] == lesson.calls - lesson.retries


def test_server_ask_is_the_three_values_with_the_models_temperature(server):
    ask = server.ask("greedy", timeout=TIMEOUT)
    assert (ask.base_url, ask.model, ask.temperature) == (server.base_url, "greedy", 0.0)


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_the_sdks_own_retries_hide_calls_from_the_panel(server):
    run = L.Panel([sdk_ask(server, max_retries=2)], on_unreadable="clean").run(RECORDS)
    assert run.calls == len(RECORDS) and run.retries == 0
    assert server.requests == len(RECORDS) + len(RECORDS) // L.RATE_LIMIT_EVERY
    assert server.requests == L.run_judge(RECORDS).calls
    assert (run.calls, server.requests) == step13._sdk_retry_bill()[:2]
    # exercise 1's answer: the server reads what the lesson's judge reads, the panel less
    assert L.run_judge(RECORDS).input_tokens - run.input_tokens == step13._token_shortfall()


# ------------------------------------------------------------------ the exercise checks of 12
# (their answers are checked against the real SDK and server above)


def test_check_sdk_retries(capsys):
    ex, (panel, server, panel_tokens, server_tokens) = step13, step13._sdk_retry_bill()
    assert (panel, server) == step13._sdk_retry_bill()[:2] and server > panel
    shortfall = step13._token_shortfall()
    assert shortfall == server_tokens - panel_tokens > 0
    assert not ex.check_sdk_retries(...)
    assert capsys.readouterr().out.startswith("Not yet: fill in")
    assert not ex.check_sdk_retries((panel, server))
    assert capsys.readouterr().out.startswith("Not yet: give a whole number")
    assert not ex.check_sdk_retries(server - panel)
    assert "number of calls" in capsys.readouterr().out
    assert not ex.check_sdk_retries(shortfall + 1)
    assert "is not it" in capsys.readouterr().out
    assert ex.check_sdk_retries(shortfall)
    assert capsys.readouterr().out.startswith("PASS: ")


def test_check_neighbour_cache(capsys):
    ex, hits = step13, step13._neighbour_cache_hits()
    assert not ex.check_neighbour_cache(...)
    assert capsys.readouterr().out.startswith("Not yet: fill in")
    for wrong in (-1, 2.5, True):
        assert not ex.check_neighbour_cache(wrong)
        assert capsys.readouterr().out.startswith("Not yet: give a whole number")
    for wrong in (hits + 1, step13._neighbour_cache_requests(), len(RECORDS)):
        assert not ex.check_neighbour_cache(wrong)
        assert "which questions" in capsys.readouterr().out
    assert not ex.check_neighbour_cache(0)  # judge_records' count: its back-off, named
    assert "judge_records" in capsys.readouterr().out
    assert not ex.check_neighbour_cache(step13._neighbour_cache_hits(2))  # one pair only
    assert "first pair" in capsys.readouterr().out
    assert hits > 2 * step13._neighbour_cache_hits(2)  # a space wider than a few tries
    assert ex.check_neighbour_cache(hits)
    assert capsys.readouterr().out.startswith("PASS: ")


def test_a_proxy_in_the_environment_never_carries_loopback_traffic(server, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.255.255.1:3128")
    monkeypatch.setenv("NO_PROXY", "")
    assert sdk_ask(server)(L.build_prompt(RECORDS[0]), 1).status == "ok"


# ------------------------------------------------------------------ the server as a good citizen


def raw_exchange(port, data, timeout=TIMEOUT):
    """Send raw bytes, read until the server closes or a whole response arrives."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return out
            out += chunk


def status_and_body(response):
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body), head.decode("latin-1")


def chat(content="temiz mi", **extra):
    return {"model": "lesson", "messages": [{"role": "user", "content": content}], **extra}


@pytest.mark.parametrize(
    "request_bytes, code",
    [
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: banana\r\n\r\n{}", 411),
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: -5\r\n\r\n{}", 411),
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99999999999999\r\n\r\n{}", 413),
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5000000\r\n\r\n{}", 413),
        (
            b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            411,
        ),
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 9\r\n\r\nnot json!", 400),
        (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 4\r\n\r\n\xff\xfe\xfd\xfc", 400),
        (
            b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n"
            b"Content-Length: 20\r\n\r\n{}",
            400,
        ),
        (b"POST /v1/chat/completions HTTP/1.1\r\nConnection: close\r\n\r\n{}", 411),
        (b"BREW /v1/chat/completions HTTP/1.1\r\n\r\n", 405),
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET /" + b"x" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
        (b"GET /v1/nothing HTTP/1.1\r\n\r\n", 404),
        (b"GET /v1/models/nobody HTTP/1.1\r\n\r\n", 404),
    ],
)
def test_a_malformed_request_is_a_4xx_json_error_and_nothing_is_printed(
    server, capfd, request_bytes, code
):
    status, body, _ = status_and_body(raw_exchange(server.port, request_bytes))
    assert status == code and body["error"]["message"]
    assert capfd.readouterr().err == ""


def test_get_models_lists_the_judges_and_the_sdk_reads_them(server):
    import openai

    ids = [m.id for m in openai.OpenAI(base_url=server.base_url, api_key="k").models.list()]
    assert ids == [s.name for s in L.JUDGES]
    with urllib.request.urlopen(server.base_url + "/models/wary", timeout=TIMEOUT) as r:
        assert json.loads(r.read())["id"] == "wary"


@pytest.mark.parametrize(
    "payload, param",
    [
        ("[" * 100000 + "]" * 100000, None),
        (chat(stream="yes"), "stream"),
        (chat(stream=True), "stream"),
        ({"model": 7, "messages": []}, "model"),
        (chat(**{"messages": [{"role": "user", "content": 5}]}), "messages"),
        (chat(**{"messages": "temiz"}), "messages"),
        (chat(seed=1.5), "seed"),
        (chat(temperature=[1]), "temperature"),
        (chat(max_tokens=True), "max_tokens"),
        (chat(response_format={"type": "yaml"}), "response_format"),
        (chat(response_format="json"), "response_format"),
        (chat(response_format={"type": "json_schema", "json_schema": {}}), "response_format"),
        (
            chat(
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "v", "schema": {"properties": {"x": {"enum": [1]}}}},
                }
            ),
            "response_format",
        ),
    ],
)
def test_wrong_types_and_deep_nesting_are_400s_naming_the_field(server, capfd, payload, param):
    raw = payload.encode() if isinstance(payload, str) else None
    status, body = post(server.base_url + "/chat/completions", payload, raw)
    assert status == 400 and body["error"]["param"] == param
    assert capfd.readouterr().err == ""


def test_a_huge_body_is_refused_with_413_while_others_are_served(server):
    big = json.dumps(chat("a " * (MAX_BODY // 2 + 10))).encode()
    status, body = post(server.base_url + "/chat/completions", None, big)
    assert status == 413 and str(MAX_BODY) in body["error"]["message"]
    assert post(server.base_url + "/chat/completions", chat())[0] == 200


def test_each_429_says_when_to_come_back(server):
    fast = C.SimulatorServer(retry_after=1.5)
    try:
        url = fast.base_url + "/chat/completions"
        connection = http.client.HTTPConnection("127.0.0.1", fast.port, timeout=TIMEOUT)
        for _ in range(L.RATE_LIMIT_EVERY):
            connection.request("POST", "/v1/chat/completions", json.dumps(chat()))
            response = connection.getresponse()
            response.read()
        assert response.status == 429
        assert (response.getheader("Retry-After"), response.getheader("Retry-After-Ms")) == (
            "2",
            "1500",
        )
        connection.close()
        assert url
    finally:
        fast.stop()


def test_the_rate_limit_can_be_switched_off():
    with C.SimulatorServer(rate_limit=False) as srv:
        ask = srv.ask("lesson", timeout=TIMEOUT)
        replies = [ask("temiz mi", 1) for _ in range(L.RATE_LIMIT_EVERY + 1)]
    assert {r.status for r in replies} == {"ok"}


def test_64_clients_at_once_are_all_served_over_http():
    with C.SimulatorServer(latency=0.05, rate_limit=False) as srv:
        url = srv.base_url + "/chat/completions"
        barrier = threading.Barrier(64)
        statuses = [None] * 64

        def client(i):
            barrier.wait()
            statuses[i] = post(url, chat(seed=i))[0]

        threads = [threading.Thread(target=client, args=(i,)) for i in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT * 2)
    assert statuses == [200] * 64


def test_a_slow_client_does_not_stall_the_others():
    with C.SimulatorServer(rate_limit=False) as srv:
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=TIMEOUT)
        try:  # headers and half a body, then silence
            slow.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 900\r\n\r\n{")
            ask = srv.ask("lesson", timeout=2.0)
            started = time.perf_counter()
            replies = [ask(L.build_prompt(r), 1) for r in RECORDS[:10]]
            assert time.perf_counter() - started < 2.0
            assert {r.status for r in replies} == {"ok"}
        finally:
            slow.close()


def test_server_ask_names_an_unknown_model_and_the_known_ones(server):
    with pytest.raises(ValueError, match="model must be one this server serves") as info:
        server.ask("gpt-4o")
    assert "gpt-4o" in str(info.value) and "lesson, plain, wary, greedy" in str(info.value)


def test_dropping_the_last_reference_stops_the_server():
    srv = C.SimulatorServer()
    port, thread = srv.port, srv._thread
    del srv
    import gc

    gc.collect()
    thread.join(TIMEOUT)
    assert not thread.is_alive()
    with C.SimulatorServer(port=port) as again:  # the port is free again
        assert again.port == port


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"latency": -0.1}, ValueError, "latency"),
        ({"latency": "slow"}, TypeError, "latency"),
        ({"rate_limit": 1}, TypeError, "rate_limit"),
        ({"retry_after": -1}, ValueError, "retry_after"),
    ],
)
def test_bad_server_options_are_refused_naming_them(options, error, words):
    with pytest.raises(error, match=words):
        C.SimulatorServer(**options)


@pytest.mark.parametrize(
    "timeout, error",
    [
        (0, ValueError),
        (-1, ValueError),
        (float("nan"), ValueError),
        ("5", TypeError),
        (True, TypeError),
    ],
)
def test_a_bad_timeout_is_blamed_on_the_client_side(timeout, error):
    with pytest.raises(error, match="timeout must be a number of seconds"):
        C.OpenAIAsk("http://127.0.0.1:9/v1", "k", "lesson", timeout=timeout)


def test_a_lone_surrogate_is_a_clear_client_side_error(server):
    with pytest.raises(ValueError, match="lone surrogate"):
        server.ask("lesson")("temiz \ud800 mi", 1)
    assert server.requests == 0


def test_a_numpy_seed_goes_through_http_as_an_int(server, tmp_path):
    np = pytest.importorskip("numpy")
    ask = server.ask("lesson", cache=C.ReplyCache(tmp_path))
    prompt = L.build_prompt(RECORDS[1])
    assert parts(ask(prompt, np.int64(L.SEED))) == parts(server.ask("lesson")(prompt, L.SEED))


# ------------------------------------------------------------------ judge_records


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_concurrent_calls_give_the_labels_and_cost_of_one_connection():
    with C.SimulatorServer(rate_limit=False, latency=0.01) as srv:
        ask = srv.ask("lesson", timeout=TIMEOUT)
        one = C.judge_records(ask, RECORDS[:60], max_connections=1)
        many = C.judge_records(ask, RECORDS[:60], max_connections=16)
    assert one == many
    assert (one.calls, one.waits, one.cached) == (60 + one.retries, 0, 0)


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_with_back_off_the_rate_limit_costs_calls_not_labels():
    """The simulator's 429s, waited out and asked again with the same seed: the labels are
    those of a run without any rate limit, at one connection or many."""
    records = RECORDS[:45]
    with C.SimulatorServer(rate_limit=False) as srv:
        free = C.judge_records(srv.ask("lesson", timeout=TIMEOUT), records, max_connections=1)
    with C.SimulatorServer(retry_after=0.01) as srv:
        runs = [
            C.judge_records(srv.ask("lesson", timeout=TIMEOUT), records, max_connections=n)
            for n in (1, 8)
        ]
    for run in runs:
        assert run.labels == free.labels and run.unreadable == free.unreadable
        assert run.waits == (free.calls + run.waits) // L.RATE_LIMIT_EVERY > 0
        assert run.calls == free.calls + run.waits
        assert run.refused == 0


def test_a_429_with_retry_after_is_waited_for():
    with C.SimulatorServer(retry_after=0.3) as srv:
        ask = srv.ask("lesson", timeout=TIMEOUT, on_reset=None)  # the clock runs on
        for _ in range(L.RATE_LIMIT_EVERY - 2):
            ask("temiz mi", 1)
        refused = ask("temiz mi", 1), ask("temiz mi", 2)
        assert refused[1].retry_after == 0.3  # the SDK hands the header over
        for _ in range(L.RATE_LIMIT_EVERY - 1):
            ask("temiz mi", 1)
        started = time.perf_counter()  # the next call is refused
        run = C.judge_records(ask, RECORDS[:1], max_connections=1)
        assert time.perf_counter() - started >= 0.3
    assert (run.waits, run.waited, run.calls - run.retries, run.refused) == (1, 0.3, 2, 0)


def test_refusals_that_outlast_the_back_off_are_counted_then_the_rule_applies():
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    try:
        ask = C.OpenAIAsk(
            f"http://127.0.0.1:{silent.getsockname()[1]}/v1", "k", "lesson", timeout=0.05
        )
        run = C.judge_records(
            ask, RECORDS[:2], max_connections=2, backoff=C.Backoff(max_waits=2, base=0.01)
        )
    finally:
        silent.close()
    assert (run.unreadable, run.refused, run.retries) == (2, 2, 2)
    assert (run.waits, run.calls) == (8, 12)  # 2 records x 2 seeds x (1 + 2 waits)
    assert set(run.labels.values()) == {"temiz"}  # the lesson's fail-open, reported


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
@pytest.mark.parametrize("guideline", [L.GUIDELINE, C.VERDICT_GUIDELINE])
def test_the_lessons_rule_without_back_off_is_the_lessons_judge(guideline):
    with C.SimulatorServer() as srv:
        run = C.judge_records(
            srv.ask("lesson", timeout=TIMEOUT),
            RECORDS,
            backoff=C.NO_BACKOFF,
            max_connections=1,
            guideline=guideline,
        )
    lesson = L.run_judge(RECORDS, guideline=guideline)
    assert run.labels == lesson.labels
    assert (run.calls, run.input_tokens, run.retries) == (
        lesson.calls,
        lesson.input_tokens,
        lesson.retries,
    )


def test_judge_records_asks_for_the_verdict_protocol_by_default(server):
    seen = []

    def ask(prompt, seed):
        seen.append(prompt)
        return "ETİKET: zararli"

    run = C.judge_records(ask, RECORDS[:3], max_connections=1)
    assert all(C.VERDICT_GUIDELINE in p for p in seen) and len(seen) == 3
    assert set(run.labels.values()) == {"zararli"} and run.retries == 0


def test_judge_records_retries_through_the_one_loop_of_the_judge(monkeypatch):
    import lessonlib.judge as J

    calls = []
    real = J.ask_for_label

    def spy(ask, prompt, seed, read=J.read_label):
        calls.append(read)
        return real(ask, prompt, seed, read)

    monkeypatch.setattr(J, "ask_for_label", spy)
    replies = iter(["Temiz değil.", "ETİKET: temiz", "zararli"])
    run = C.judge_records(lambda p, s: next(replies), RECORDS[:2], max_connections=1)
    assert calls == [C.read_reply, C.read_reply]  # judge.ask_for_label, with the protocol
    assert (run.retries, run.unreadable, run.calls) == (1, 0, 3)


def _refusing(statuses, retry_after=None):
    replies = iter(statuses)

    def ask(prompt, seed):
        return C.ClientReply("" if (s := next(replies)) != "ok" else "temiz", None, s,
                             retry_after=retry_after)  # fmt: skip

    return ask


def test_retry_after_is_trusted_only_up_to_the_cap(monkeypatch):
    backoff = C.Backoff(max_waits=2, cap=0.02)
    assert backoff.delay(0, 3600.0) == 0.02 and backoff.delay(0, 0.01) == 0.01
    assert 0.25 <= C.Backoff().delay(0) < 0.5 and C.Backoff(cap=0.1).delay(4) <= 0.1
    slept = []
    monkeypatch.setattr(C.time, "sleep", slept.append)
    ask = _refusing(["rate_limit", "rate_limit", "ok"], 3600.0)
    run = C.judge_records(ask, RECORDS[:1], max_connections=1, backoff=backoff)
    assert slept == [0.02, 0.02] and (run.waits, run.refused, run.calls) == (2, 0, 3)


def test_a_run_stopped_between_a_refusal_and_its_retry_is_refused_too(server, tmp_path):
    ask = server.ask("lesson", timeout=TIMEOUT, cache=C.ReplyCache(tmp_path))
    prompts = [L.build_prompt(r, C.VERDICT_GUIDELINE) for r in RECORDS[:3]]
    for i, prompt in enumerate(prompts):  # every first question held, the first one refused
        reply = C.ClientReply("", None, "rate_limit") if i == 0 else C.ClientReply("temiz", 9)
        ask.cache.put(ask._question(prompt, L.SEED), reply)
    with pytest.raises(ValueError, match="NO_BACKOFF"):
        C.judge_records(ask, RECORDS[:3], backoff=C.NO_BACKOFF, max_connections=1)
    assert server.requests == 0  # refused before any call
    ask.cache.put(ask._question(prompts[0], L.SEED + 1), C.ClientReply("zararli", 9))
    run = C.judge_records(ask, RECORDS[:3], backoff=C.NO_BACKOFF, max_connections=1)
    assert (run.cached, run.calls, run.retries) == (4, 0, 1)  # the whole run, read again


def test_a_server_asking_for_an_hour_keeps_no_run_asleep():
    with C.SimulatorServer(retry_after=3600) as srv:
        start = time.perf_counter()
        run = C.judge_records(
            srv.ask("lesson", timeout=TIMEOUT),
            RECORDS[:40],
            max_connections=1,
            backoff=C.Backoff(max_waits=1, cap=0.01),
        )
    assert run.waits == 1 and run.waited == 0.01
    assert time.perf_counter() - start < 30  # bounded by the cap, not by the hour


def test_resuming_under_the_lessons_rule_is_refused_and_says_why(tmp_path):
    records = RECORDS[:60]
    with C.SimulatorServer() as srv:
        ask = srv.ask("lesson", timeout=TIMEOUT, cache=C.ReplyCache(tmp_path))
        C.judge_records(ask, records[:30], backoff=C.NO_BACKOFF, max_connections=1)
        with pytest.raises(ValueError, match="NO_BACKOFF") as info:
            C.judge_records(ask, records, backoff=C.NO_BACKOFF, max_connections=1)
        assert "30 of its 60 records" in str(info.value) and "Backoff" in str(info.value)
        # the whole run, read again from its cache, is the uninterrupted run exactly
        whole = C.judge_records(ask, records[:30], backoff=C.NO_BACKOFF, max_connections=1)
        fresh = srv.ask("lesson", timeout=TIMEOUT)
        again = C.judge_records(fresh, records[:30], backoff=C.NO_BACKOFF, max_connections=1)
    assert (whole.labels, whole.input_tokens, whole.retries) == (
        again.labels,
        again.input_tokens,
        again.retries,
    )


class _Interrupt(Exception):
    pass


def test_an_interrupted_run_resumed_with_a_cache_makes_no_call_it_already_made(tmp_path):
    records = RECORDS[:40]
    with C.SimulatorServer(rate_limit=False) as srv:
        whole = C.judge_records(srv.ask("lesson", timeout=TIMEOUT), records)
        full_cost = srv.requests
        srv.requests = 0
        ask = srv.ask("lesson", timeout=TIMEOUT, cache=C.ReplyCache(tmp_path))
        made = []

        def flaky(prompt, seed):
            if len(made) >= 15:
                raise _Interrupt("stopped half-way")
            made.append(seed)
            return ask(prompt, seed)

        with pytest.raises(_Interrupt):
            C.judge_records(flaky, records, max_connections=4)
        before = srv.requests
        assert 0 < before == len(made) < full_cost
        resumed = C.judge_records(ask, records, max_connections=4)
        assert srv.requests == full_cost  # nothing asked twice
        assert resumed.cached == before and resumed.calls == full_cost - before
        assert resumed.labels == whole.labels


def test_the_cache_takes_many_writers_at_once(tmp_path):
    cache = C.ReplyCache(tmp_path)
    reply = C.ClientReply("temiz", 3, "ok")
    questions = [{"q": i % 5} for i in range(200)]  # five files, forty writers each
    errors = []

    def write(q):
        try:
            cache.put(q, reply)
            assert cache.get(q).text == "temiz"
        except Exception as exc:  # noqa: BLE001 - collected for the assert below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(q,)) for q in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) == 5
    assert not list(tmp_path.glob("*.part"))


def test_the_cache_takes_two_processes_at_once(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; from lessonlib import client as C\n"
        "c = C.ReplyCache(sys.argv[1])\n"
        "for i in range(300): c.put({'q': i % 3}, C.ClientReply('temiz', 1, 'ok'))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    errs = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    assert len(C.ReplyCache(tmp_path)) == 3


def test_progress_draws_a_bar_on_stdout_only_when_asked(server, capsys):
    ask = server.ask("lesson", timeout=TIMEOUT)
    C.judge_records(ask, RECORDS[:10], progress=False)
    assert capsys.readouterr() == ("", "")
    C.judge_records(ask, RECORDS[:10], progress=True)
    out, err = capsys.readouterr()
    assert err == "" and out.endswith("] 10/10\n") and out.count("\r") == 11


@pytest.mark.parametrize(
    "value, error",
    [(0, ValueError), (-2, ValueError), (2.0, TypeError), ("8", TypeError), (True, TypeError)],
)
def test_max_connections_must_be_a_whole_number_at_least_1(server, value, error):
    ask = server.ask("lesson", timeout=TIMEOUT)
    with pytest.raises(error, match="max_connections"):
        C.judge_records(ask, RECORDS[:2], max_connections=value)
    with pytest.raises(error, match="max_connections"):
        L.Panel([ask]).run(RECORDS[:2], max_connections=value)


def test_a_stateful_in_process_ask_is_refused_more_than_one_connection():
    model = L.SimulatedModel()
    for ask in (model, model.call):
        with pytest.raises(ValueError, match="max_connections must be 1 for an in-process"):
            C.judge_records(ask, RECORDS[:2], max_connections=2)
        with pytest.raises(ValueError, match="max_connections must be 1 for an in-process"):
            L.Panel([ask]).run(RECORDS[:2], max_connections=2)
    assert L.Panel([model]).run(RECORDS[:5], max_connections=1).calls >= 5


@pytest.mark.slow  # whole record sets through HTTP: make test runs it, make check does not
def test_a_panel_of_http_asks_runs_side_by_side_with_the_figures_of_one_connection():
    with C.SimulatorServer(rate_limit=False) as srv:
        panel = L.Panel([srv.ask(n, timeout=TIMEOUT) for n in L.DIVERSE], quorum=2)
        one = panel.run(RECORDS[:15], max_connections=1)
        many = panel.run(RECORDS[:15], max_connections=8)
    assert one == many


def test_an_error_in_one_call_stops_a_concurrent_panel_naming_judge_and_record(server):
    def broken(prompt, seed):
        raise OSError("cable cut")

    broken.concurrent = True
    with pytest.raises(JudgeError, match="cable cut"):
        L.Panel([broken]).run(RECORDS[:20], max_connections=4)


def test_32_simultaneous_async_sdk_requests_all_get_an_answer():
    import asyncio

    import openai

    async def main(url):
        sdk = openai.AsyncOpenAI(
            base_url=url,
            api_key="k",
            max_retries=0,
            timeout=TIMEOUT,
            http_client=openai.DefaultAsyncHttpxClient(trust_env=False),
        )
        async with sdk:
            replies = await asyncio.gather(
                *(
                    sdk.chat.completions.create(
                        model="lesson", seed=i, messages=[{"role": "user", "content": "temiz mi"}]
                    )
                    for i in range(32)
                )
            )
        return [r.choices[0].message.content for r in replies]

    with C.SimulatorServer(latency=0.05, rate_limit=False) as srv:
        texts = asyncio.run(main(srv.base_url))
    assert len(texts) == 32 and all(texts)


def _completion(content):
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    )


@pytest.mark.parametrize(
    "content, label",
    [
        ("Temiz değil.", None),
        ("Zararlı değil.", None),
        ("temiz/zararlı", None),
        ("**Zararlı**", "zararli"),
    ],
)
def test_a_negated_reply_through_the_sdk_never_reaches_a_reader_as_its_label(content, label):
    """The lesson's read_label, used by the panel, would read "Temiz değil." as temiz: the
    ask hands it the label read_reply found, or nothing."""
    fixed = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Fixed)
    fixed.body, fixed.content_type = _completion(content), "application/json"
    thread = threading.Thread(target=fixed.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        ask = C.OpenAIAsk(
            f"http://127.0.0.1:{fixed.server_address[1]}/v1", "k", "m", timeout=TIMEOUT
        )
        reply = ask("temiz mi", 1)
        assert reply.raw == content and L.read_label(reply.text) == label
        run = L.Panel([ask], on_unreadable="abstain").run(RECORDS[:2])
        assert run.unreadable == (2 if label is None else 0)
        assert C.judge_records(ask, RECORDS[:2]).unreadable == (2 if label is None else 0)
    finally:
        fixed.shutdown()
        fixed.server_close()
        thread.join(timeout=TIMEOUT)


def test_the_wait_picture_draws_rounds_of_one_reply_on_log_axes():
    import matplotlib.pyplot as plt

    ax = C.plot_wait_minutes({"one judge": 240, "panel": 2160}, connections=(1, 4, 16))
    try:
        lines = ax.get_lines()
        # ceil(calls / n) rounds of one second: 240 calls at 16 connections are 15 rounds
        assert [list(ln.get_ydata()) for ln in lines] == [
            [4.0, 1.0, 15 / 60],
            [36.0, 9.0, 135 / 60],
        ]
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    finally:
        plt.close("all")
