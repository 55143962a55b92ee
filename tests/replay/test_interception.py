"""Real httpx, requests and openai clients inside a replay session."""

import asyncio
import contextvars
import json
import threading

import httpx
import openai
import pytest
import requests

import assay_agents as assay
from assay_agents.replay import ReplaySession

API = "https://shipping.example"
EXACT = b'{\n  "status" : "ready"\n}\n'


def session_for(fixtures):
    return ReplaySession(fixtures)


@pytest.fixture
def order_file(tmp_path):
    path = tmp_path / "order.json"
    path.write_bytes(EXACT)
    return path


def test_exact_bytes_status_and_headers_reach_every_client(order_file):
    def fixtures():
        return (
            assay.api()
            .expect_request("GET", f"{API}/orders", query={"id": "42"})
            .respond_with(status=202, headers={"X-Trace": "t-1"}, body_file=order_file)
        )

    with session_for(fixtures()).active():
        sync = httpx.get(f"{API}/orders", params={"id": "42"})
    with session_for(fixtures()).active():
        legacy = requests.get(f"{API}/orders", params={"id": "42"}, timeout=5)

    async def call():
        async with httpx.AsyncClient() as client:
            return await client.get(f"{API}/orders?id=42")

    with session_for(fixtures()).active():
        asynchronous = asyncio.run(call())
    for response in (sync, legacy, asynchronous):
        assert response.status_code == 202 and response.content == EXACT
        assert response.headers["x-trace"] == "t-1"
        assert response.headers["content-type"] == "application/json"
    legacy_streamed = session_for(fixtures())
    with legacy_streamed.active():
        chunks = requests.get(f"{API}/orders?id=42", stream=True, timeout=5).iter_content(4)
        assert b"".join(chunks) == EXACT


def test_declarations_are_consumed_once_in_order():
    fixtures = (
        assay.api()
        .expect_request("GET", f"{API}/orders", query={"id": "1"})
        .respond_with(json=1)
        .expect_request("GET", f"{API}/orders", query={"id": "1"})
        .respond_with(json=2)
        .expect_request("POST", f"{API}/quotes", json={"id": "1"})
        .respond_with(json=3)
    )
    session = session_for(fixtures)
    with session.active(), httpx.Client() as client:
        first = client.get(f"{API}/orders?id=1").json()
        second = client.get(f"{API}/orders?id=1").json()
        third = client.post(f"{API}/quotes", json={"id": "1"}).json()
        with pytest.raises(assay.ReplayError, match="already used"):
            client.get(f"{API}/orders?id=1")
    assert (first, second, third) == (1, 2, 3)
    evidence = session.evidence()
    assert [r.status for r in evidence.requests] == ["matched"] * 3 + ["exhausted"]
    assert not evidence.passed and evidence.missing == ()


def test_a_refusal_is_the_clients_own_connection_error_too():
    session = session_for(assay.api())
    with session.active():
        with pytest.raises(httpx.ConnectError, match="not declared"):
            httpx.get(f"{API}/anything")
        with pytest.raises(requests.ConnectionError, match="not declared"):
            requests.get(f"{API}/anything", timeout=5)
    assert [r.status for r in session.evidence().requests] == ["unexpected", "unexpected"]


def test_an_undeclared_request_does_not_use_up_the_next_declaration():
    fixtures = assay.api().expect_request("GET", f"{API}/orders").respond_with(json="ok")
    session = session_for(fixtures)
    with session.active():
        with pytest.raises(httpx.ConnectError) as refused:
            httpx.get(f"{API}/other")
        assert httpx.get(f"{API}/orders").json() == "ok"
    assert "next declared: api[0] GET https://shipping.example/orders" in str(refused.value)
    assert [r.status for r in session.evidence().requests] == ["unexpected", "matched"]


def test_a_mismatch_uses_up_its_declaration_and_the_rest_are_missing():
    fixtures = (
        assay.api()
        .expect_request("POST", f"{API}/quotes", json={"order_id": "77"})
        .respond_with(json={"eta_days": 3})
        .expect_request("GET", f"{API}/orders")
        .respond_with(json="ok")
    )
    session = session_for(fixtures)
    with session.active(), pytest.raises(requests.ConnectionError):
        requests.post(f"{API}/quotes", json={"order_id": 77}, timeout=5)
    evidence = session.evidence()
    assert evidence.requests[0].status == "mismatch"
    assert evidence.requests[0].differences == (
        'json $.order_id: expected "77" (string), got 77 (number)',
    )
    assert evidence.missing == (1,)
    assert evidence.problems()[-1] == (
        "api[1] GET https://shipping.example/orders was never requested"
    )


def test_allowed_hosts_go_live_but_never_bypass_a_declaration(live_server):
    fixtures = (
        assay.api(allow_hosts=["127.0.0.1"])
        .expect_request("GET", f"{live_server.url}/declared")
        .respond_with(json="canned")
    )
    before = live_server.count("/declared"), live_server.count("/live")
    session = session_for(fixtures)
    with session.active():
        assert httpx.get(f"{live_server.url}/live").json()["live"] is True
        assert requests.get(f"{live_server.url}/live", timeout=5).json()["live"] is True
        assert httpx.get(f"{live_server.url}/declared").json() == "canned"
        with pytest.raises(httpx.ConnectError, match="already used"):
            httpx.get(f"{live_server.url}/declared")
    assert live_server.count("/declared") == before[0]
    assert live_server.count("/live") == before[1] + 2
    statuses = [r.status for r in session.evidence().requests]
    assert statuses == ["allowed", "allowed", "matched", "exhausted"]


def test_allowed_hosts_are_exact(live_server):
    session = session_for(assay.api(allow_hosts=["0.0.1"]))
    with session.active(), pytest.raises(httpx.ConnectError, match="not declared"):
        httpx.get(f"{live_server.url}/suffix")


def test_requests_outside_the_session_are_untouched(live_server):
    inside = threading.Event()
    release = threading.Event()
    session = session_for(assay.api())

    def replaying():
        with session.active():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=replaying)
    worker.start()
    inside.wait(5)
    try:
        # Patched while the other thread's session is open, but this context has none.
        assert httpx.get(f"{live_server.url}/outside").json()["live"] is True
        assert requests.get(f"{live_server.url}/outside", timeout=5).json()["live"] is True
    finally:
        release.set()
        worker.join()
    assert session.evidence().requests == ()


def test_requests_after_the_session_closed_are_refused():
    # A thread that outlives its sample (a timed-out sync agent) keeps the sample's context;
    # while interception is installed (another sample is replaying) it is refused, not served.
    session = session_for(assay.api().expect_request("GET", f"{API}/o").respond_with(json=1))
    with session_for(assay.api()).active():
        with session.active():
            context = contextvars.copy_context()
        with pytest.raises(httpx.ConnectError, match="already finished"):
            context.run(httpx.get, f"{API}/o")
    assert session.evidence().missing == (0,)


def test_state_is_restored_when_the_block_raises():
    original = httpx.HTTPTransport.handle_request
    with pytest.raises(RuntimeError), session_for(assay.api()).active():
        assert httpx.HTTPTransport.handle_request is not original
        raise RuntimeError("agent crashed")
    assert httpx.HTTPTransport.handle_request is original


def completion(content):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }


def chat_fixtures(content="ready"):
    return (
        assay.api()
        .expect_request(
            "POST",
            "https://llm.example/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            headers={"Authorization": "Bearer sk-test-key-0123456789"},
        )
        .respond_with(json=completion(content))
    )


def test_the_openai_client_is_replayed_sync_and_async():
    messages = [{"role": "user", "content": "hi"}]
    with (
        session_for(chat_fixtures()).active(),
        openai.OpenAI(
            api_key="sk-test-key-0123456789", base_url="https://llm.example/v1", max_retries=0
        ) as client,
    ):
        answer = client.chat.completions.create(model="m", messages=messages)

    async def ask():
        async with openai.AsyncOpenAI(
            api_key="sk-test-key-0123456789", base_url="https://llm.example/v1", max_retries=0
        ) as client:
            return await client.chat.completions.create(model="m", messages=messages)

    with session_for(chat_fixtures("async")).active():
        later = asyncio.run(ask())
    assert answer.choices[0].message.content == "ready"
    assert later.choices[0].message.content == "async"


def test_openai_credentials_never_reach_the_evidence():
    session = session_for(chat_fixtures())
    with (
        session.active(),
        openai.OpenAI(
            api_key="sk-wrong-key-9876543210", base_url="https://llm.example/v1", max_retries=0
        ) as client,
        pytest.raises(openai.APIConnectionError),
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    evidence = json.dumps(session.evidence().to_json())
    assert "header authorization" in evidence and "$.messages[0].content" in evidence
    assert "sk-wrong" not in evidence and "sk-test" not in evidence
