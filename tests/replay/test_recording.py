"""Recording real HTTP calls as fixtures, then replaying them strictly with the server gone.

The scripted server plays the provider over a real socket; the real ``openai``, ``httpx``
and ``requests`` clients make the calls. A replay runs after the server is stopped, so a
request that reached for the network would fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import httpx
import openai
import pytest
import requests

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import ConfigurationError, ReplayError, SpecError
from assay_agents.evaluation import MemoryRunStore
from assay_agents.load.recorded import read_fixture_file, replaying
from assay_agents.replay import ReplaySession
from assay_agents.testing.server import (
    Response,
    ScriptedServer,
    event_stream,
    reply,
    slow,
    streamed,
)

SECRET_KEY = "sk-live0123456789abcdefghijklmnopqrstuvwx"


def replayed(path: Path) -> ReplaySession:
    return ReplaySession(read_fixture_file(path))


def ask_streaming(client: openai.OpenAI) -> list[str]:
    stream = client.chat.completions.create(
        model="support-v1",
        messages=[{"role": "user", "content": "Where is order 42?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    return [
        chunk.choices[0].delta.content or ""
        for chunk in stream
        if chunk.choices and chunk.choices[0].delta.content
    ]


def test_a_streamed_openai_call_records_its_events_and_replays_them_in_order(tmp_path):
    path = tmp_path / "stream.json"
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    server = ScriptedServer([streamed("Order 42 shipped.", input_tokens=7, output_tokens=3)])
    server.start()
    # Closed here: a client left to the collector may leave its socket to a later test.
    with openai.OpenAI(base_url=server.base_url, api_key=SECRET_KEY, max_retries=0) as client:
        with ReplaySession(record=path).active():
            live = ask_streaming(client)
        server.stop()

        written = json.loads(path.read_text())
        events = written["interactions"][0]["response"]["events"]
        assert [event["data"] for event in events][-1] == "[DONE]"
        assert events[-2]["data"]["usage"] == usage
        assert written["interactions"][0]["json"]["stream"] is True
        assert SECRET_KEY not in path.read_text()

        session = replayed(path)
        with session.active():
            again = ask_streaming(client)
    assert again == live == ["Order ", "42 ", "shipped."]
    assert session.evidence().passed, session.evidence().problems()


def test_a_replayed_stream_arrives_one_event_per_chunk(tmp_path):
    path = tmp_path / "chunks.json"
    server = ScriptedServer([event_stream(['{"n": 1}', '{"n": 2}', "[DONE]"])]).start()
    url = f"{server.base_url}/chat/completions"

    async def read_chunks() -> list[bytes]:
        async with (
            httpx.AsyncClient() as client,
            client.stream("POST", url, json={"stream": True}) as response,
        ):
            return [chunk async for chunk in response.aiter_raw()]

    with ReplaySession(record=path).active():
        asyncio.run(read_chunks())
    server.stop()
    with replayed(path).active():
        chunks = asyncio.run(read_chunks())
    assert chunks == [b'data: {"n":1}\n\n', b'data: {"n":2}\n\n', b"data: [DONE]\n\n"]


def test_credentials_are_never_written_and_the_recording_still_replays(tmp_path, live_server):
    path = tmp_path / "secret.json"
    url = f"{live_server.url}/v1/lookup"

    def call() -> str:
        response = requests.post(
            url,
            params={"api_key": SECRET_KEY, "region": "eu"},
            headers={"Authorization": f"Bearer {SECRET_KEY}"},
            json={"model": "m", "password": "hunter2-very-secret", "note": f"key {SECRET_KEY}"},
            timeout=5,
        )
        return str(response.json()["path"])

    with ReplaySession(record=path).active():
        assert call().startswith("/v1/lookup?")
    reached = live_server.count("/v1/lookup")

    text = path.read_text()
    assert SECRET_KEY not in text and "hunter2" not in text
    interaction = json.loads(text)["interactions"][0]
    assert "headers" not in interaction  # no request header is asserted, so none is written
    assert "ignore" not in interaction  # hidden values are still compared, by fingerprint
    assert interaction["query"]["api_key"].startswith("[redacted sha256:")
    assert interaction["json"]["note"].startswith("key [redacted sha256:")
    session = replayed(path)
    with session.active():
        assert call().startswith("/v1/lookup?")
    assert session.evidence().passed, session.evidence().problems()
    assert live_server.count("/v1/lookup") == reached


def test_a_replayed_recording_still_reports_a_changed_request(tmp_path):
    path = tmp_path / "changed.json"
    server = ScriptedServer([reply("ok")]).start()
    url = f"{server.base_url}/chat/completions"
    with ReplaySession(record=path).active():
        httpx.post(url, json={"model": "m", "n": 1})
    server.stop()
    session = replayed(path)
    with session.active(), pytest.raises(ReplayError):
        httpx.post(url, json={"model": "m", "n": 2})
    assert "json $.n: expected 1, got 2" in session.evidence().problems()[0]


def test_an_edited_fixture_is_kept_and_an_unedited_recording_is_replaced(tmp_path):
    path = tmp_path / "kept.json"
    server = ScriptedServer([reply("first"), reply("second")]).start()
    url = f"{server.base_url}/chat/completions"
    with ReplaySession(record=path).active():
        httpx.post(url, json={"n": 1})
    with ReplaySession(record=path).active():  # unedited: replaced
        httpx.post(url, json={"n": 2})
    server.stop()
    assert json.loads(path.read_text())["interactions"][0]["json"] == {"n": 2}

    edited = path.read_text().replace('"n": 2', '"n": 3')
    path.write_text(edited)
    with pytest.raises(ConfigurationError, match="was edited since"):
        ReplaySession(record=path)
    assert path.read_text() == edited
    hand_written = tmp_path / "hand.json"
    hand_written.write_text('{"interactions": []}')
    with pytest.raises(ConfigurationError, match=str(hand_written)):
        ReplaySession(record=hand_written)
    with pytest.raises(ConfigurationError, match="is a folder"):
        ReplaySession(record=tmp_path)


def test_a_malformed_event_stream_is_not_recorded(tmp_path):
    path = tmp_path / "broken.json"
    bad = Response(200, b"data: \xff\xfe\n\n", {"content-type": "text/event-stream"})
    server = ScriptedServer([bad]).start()
    session = ReplaySession(record=path)
    refused = pytest.raises(ReplayError, match=r"broken\.json.*request 1 POST .*not UTF-8")
    with refused, session.active():
        httpx.post(f"{server.base_url}/chat/completions", json={})
    server.stop()
    assert not path.exists()


def test_a_fixture_file_with_a_bad_ignore_path_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "bad.json"
    interaction = {
        "method": "POST",
        "url": "https://api.example/v1/chat/completions",
        "json": {"model": "m"},
        "ignore": ["$.metadata", "metadata.user"],
        "response": {"json": {}},
    }
    path.write_text(json.dumps({"interactions": [interaction]}))
    with pytest.raises(SpecError) as raised:
        read_fixture_file(path)
    assert str(raised.value).startswith(f"{path}: api[0].ignore[1]: 'metadata.user' is not")


def test_a_fixture_file_with_malformed_events_names_the_file_and_the_event(tmp_path):
    path = tmp_path / "events.json"
    response = {"events": [{"data": {"n": 1}}, {"data": "x", "event": "a\nb"}]}
    interaction = {"method": "GET", "url": "https://api.example/s", "response": response}
    path.write_text(json.dumps({"interactions": [interaction]}))
    with pytest.raises(SpecError) as raised:
        read_fixture_file(path)
    assert str(raised.value).startswith(f"{path}: api[0].response.events[1].event: ")
    response["events"] = "data: x\n\n"
    path.write_text(json.dumps({"interactions": [interaction]}))
    with pytest.raises(SpecError, match=r"api\[0\]\.response\.events: must be a list"):
        read_fixture_file(path)


def test_a_credential_in_a_url_path_is_never_written(tmp_path, live_server):
    path = tmp_path / "bot.json"
    token = "123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0"
    session = ReplaySession(record=path)
    with pytest.raises(ReplayError, match="looks like a credential"), session.active():
        requests.get(f"{live_server.url}/bot{token}/getMe", timeout=5)
    assert not path.exists()


HEX_KEY = "3f9a1c0e5b7d4e2f8a6c1b0d9e3f5a7c"


def echo_server() -> ScriptedServer:
    def script(body: object) -> Response:
        answer = {"auth": False, "retries": 0, "session": None, "key": "ORDER-42", "echo": body}
        return Response(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})

    return ScriptedServer(script).start()


@pytest.fixture(scope="module")
def echo() -> object:
    server = echo_server()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("params", "body"),
    [
        ({"subscription-key": HEX_KEY}, {"q": 1}),
        ({"appid": HEX_KEY}, {"q": 1}),
        ({}, {"auth_key": HEX_KEY}),
        ({}, {"bearer": "abc123XYZ"}),
        ({}, {"messages": [{"role": "user", "content": f"use key {HEX_KEY} today"}]}),
    ],
)
def test_keys_without_a_known_shape_or_under_key_like_names_are_not_written(
    tmp_path, echo, params, body
):
    path = tmp_path / "keys.json"
    with ReplaySession(record=path).active():
        httpx.post(f"{echo.base_url}/chat/completions", params=params, json=body)
    text = path.read_text()
    assert HEX_KEY not in text and "abc123XYZ" not in text
    assert "[redacted sha256:" in text


def test_a_secret_environment_value_is_hidden_wherever_it_appears(tmp_path, echo, monkeypatch):
    secret = "proxy-Secret-Value-77"
    monkeypatch.setenv("MY_PROXY_KEY", secret)
    monkeypatch.setenv("MY_PROXY_TIMEOUT", "proxy-Secret")  # not a secret's name: kept
    path = tmp_path / "env.json"
    with ReplaySession(record=path).active():
        httpx.post(
            f"{echo.base_url}/chat/completions",
            json={"metadata": {"proxy": secret, "note": f"via {secret}!"}},
        )
    text = path.read_text()
    assert secret not in text
    written = json.loads(text)["interactions"][0]
    assert written["json"]["metadata"]["note"].startswith("via [redacted sha256:")
    assert written["json"]["metadata"]["note"].endswith("]!")


def record_then_replay(path: Path, url: str, recorded: dict, replayed_as: dict) -> ReplaySession:
    with ReplaySession(record=path).active():
        httpx.post(url, **recorded)
    session = replayed(path)
    with session.active(), contextlib.suppress(httpx.ConnectError):
        httpx.post(url, **replayed_as)
    return session


def test_a_value_hidden_by_its_name_still_has_to_match_on_replay(tmp_path, echo):
    url = f"{echo.base_url}/chat/completions"
    recorded = {"json": {"key": "ORDER-42", "session": "s-7", "action": "refund"}}
    same = record_then_replay(tmp_path / "a.json", url, recorded, recorded)
    assert same.evidence().passed, same.evidence().problems()
    other = {"json": {"key": "ORDER-99", "session": "s-7", "action": "refund"}}
    changed = record_then_replay(tmp_path / "b.json", url, recorded, other)
    assert not changed.evidence().passed
    assert "$.key" in changed.evidence().problems()[0]


def test_a_prompt_holding_a_password_is_compared_around_the_hidden_part(tmp_path, echo):
    url = f"{echo.base_url}/chat/completions"

    def prompt(text: str) -> dict:
        return {"json": {"messages": [{"role": "user", "content": text}]}}

    recorded = prompt("reset: password=hunter2 please")
    same = record_then_replay(tmp_path / "a.json", url, recorded, recorded)
    assert same.evidence().passed, same.evidence().problems()
    assert "hunter2" not in (tmp_path / "a.json").read_text()
    for other in ("DELETE ALL USERS", "reset: password=hunter3 please"):
        changed = record_then_replay(tmp_path / "b.json", url, recorded, prompt(other))
        assert not changed.evidence().passed, other
        (tmp_path / "b.json").unlink()


def test_ordinary_query_state_and_code_are_kept_and_compared(tmp_path, echo):
    url = f"{echo.base_url}/chat/completions"
    recorded = {"params": {"state": "shipped", "code": "US"}, "json": {"n": 1}}
    path = tmp_path / "q.json"
    other = {"params": {"state": "cancelled", "code": "US"}, "json": {"n": 1}}
    session = record_then_replay(path, url, recorded, other)
    assert json.loads(path.read_text())["interactions"][0]["query"] == {
        "state": "shipped",
        "code": "US",
    }
    assert not session.evidence().passed


def test_true_false_numbers_and_null_under_secret_names_are_kept(tmp_path, echo):
    path = tmp_path / "r.json"
    with ReplaySession(record=path).active():
        httpx.post(f"{echo.base_url}/chat/completions", json={"token": None, "pass": True})
    written = json.loads(path.read_text())["interactions"][0]
    assert written["json"] == {"token": None, "pass": True}
    response = written["response"]["json"]
    assert (response["auth"], response["retries"], response["session"]) == (False, 0, None)
    assert response["key"] == "[redacted]"


def test_a_call_cancelled_by_a_timeout_leaves_no_shortened_recording(tmp_path):
    server = ScriptedServer([reply("one"), slow(reply("two"), 2.5)]).start()
    path = tmp_path / "partial.json"
    session = ReplaySession(record=path)

    async def agent() -> None:
        async with httpx.AsyncClient() as client:
            await client.post(f"{server.base_url}/chat/completions", json={"n": 1})
            await client.post(f"{server.base_url}/chat/completions", json={"n": 2})

    async def main() -> None:
        with session.active(save=False), contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(agent(), 1.0)

    asyncio.run(main())
    with pytest.raises(ReplayError, match=r"got no response \(CancelledError\)"):
        session.save()
    assert not path.exists()
    server.stop()


def test_a_sample_that_timed_out_writes_no_fixture_and_says_why(tmp_path):
    server = ScriptedServer([reply("one"), slow(reply("two"), 2.5)]).start()

    async def agent(text: str) -> str:
        async with httpx.AsyncClient() as client:
            await client.post(f"{server.base_url}/chat/completions", json={"n": 1})
            await client.post(f"{server.base_url}/chat/completions", json={"n": 2})
        return "done"

    suite = assay.Suite("t", agent=agent)
    suite.case("q", id="q", checks=[checks.contains("done")])
    run = assay.run(suite, db=MemoryRunStore(), progress=False, record=tmp_path, timeout=1.0)
    note = run.samples[0].metadata["api_record"]
    assert "not written" in note["error"] and "did not finish" in note["error"]
    assert not (tmp_path / "q.json").exists()
    server.stop()


def test_a_runs_own_patterns_reach_the_recording_and_its_replay(tmp_path, echo):
    def agent(text: str) -> str:
        httpx.post(f"{echo.base_url}/chat/completions", json={"account": "acct-123456"})
        return "done"

    suite = assay.Suite("t", agent=agent)
    suite.case("q", id="q", checks=[checks.contains("done")])
    run = assay.run(
        suite, db=MemoryRunStore(), progress=False, record=tmp_path, record_redact=[r"acct-\d{6}"]
    )
    assert run.samples[0].status.value == "passed", run.samples[0].error
    text = (tmp_path / "q.json").read_text()
    assert "acct-123456" not in text
    assert json.loads(text)["redact"] == [r"acct-\d{6}"]
    again = assay.run(replaying(suite, tmp_path), db=MemoryRunStore(), progress=False)
    assert again.samples[0].status.value == "passed", again.samples[0].error


def test_a_run_refuses_a_redact_pattern_that_matches_nothing(tmp_path):
    suite = assay.Suite("t", agent=lambda text: "done")
    suite.case("q", id="q", checks=[checks.contains("done")])
    with pytest.raises(SpecError, match="record_redact"):
        assay.run(suite, db=MemoryRunStore(), progress=False, record=tmp_path, record_redact=["x*"])


@pytest.mark.parametrize("ids", [("order 42", "order-42-59096d5a"), ("Refund", "refund")])
def test_two_cases_that_would_share_a_fixture_file_are_refused_before_any_agent_runs(tmp_path, ids):
    called: list[str] = []

    def agent(text: str) -> str:
        called.append(text)
        return "done"

    suite = assay.Suite("t", agent=agent)
    for case_id in ids:
        suite.case(case_id, id=case_id, checks=[checks.contains("done")])
    with pytest.raises(SpecError, match="would both record into") as refused:
        assay.run(suite, db=MemoryRunStore(), progress=False, record=tmp_path)
    assert all(repr(case_id) in str(refused.value) for case_id in ids)
    assert called == [] and list(tmp_path.iterdir()) == []


def test_an_empty_response_body_is_recorded_and_replayed(tmp_path):
    server = ScriptedServer(lambda body: Response(204, b"", {})).start()
    url = f"{server.base_url}/chat/completions"
    path = tmp_path / "empty.json"
    with ReplaySession(record=path).active():
        assert httpx.post(url, json={"id": 1}).status_code == 204
    server.stop()
    assert json.loads(path.read_text())["interactions"][0]["response"] == {"status": 204}
    session = replayed(path)
    with session.active():
        again = httpx.post(url, json={"id": 1})
    assert (again.status_code, again.content) == (204, b"")
    assert session.evidence().passed, session.evidence().problems()


def test_an_events_retry_time_is_recorded_and_replayed(tmp_path):
    body = b'retry: 100\ndata: {"t": "b"}\n\nretry: soon\ndata: [DONE]\n\n'
    server = ScriptedServer(
        lambda _: Response(200, body, {"content-type": "text/event-stream"})
    ).start()
    url = f"{server.base_url}/chat/completions"
    path = tmp_path / "sse.json"
    with ReplaySession(record=path).active():
        httpx.post(url, json={"stream": True})
    server.stop()
    events = json.loads(path.read_text())["interactions"][0]["response"]["events"]
    assert events == [{"data": {"t": "b"}, "retry": 100}, {"data": "[DONE]"}]
    with replayed(path).active():
        again = httpx.post(url, json={"stream": True}).content
    assert b"retry: 100\n" in again


@pytest.mark.parametrize("retry", [-1, True, "100"])
def test_a_declared_retry_must_be_a_whole_number_of_milliseconds(retry):
    with pytest.raises(SpecError, match=r"events\[0\]\.retry"):
        assay.api().expect_request("GET", "https://api.example.com/x").respond_with(
            events=[{"data": "x", "retry": retry}]
        )
