"""The built-in judge over real HTTP: the real openai client against a scripted local server."""

import asyncio
import json
import time

import pytest

from assay_agents import judges
from assay_agents.judging import BUILTIN, JudgeInput, JudgeUsage, assess
from assay_agents.judging.judge import wait_listener
from assay_agents.judging.retry import RetryPolicy, retry_after
from assay_agents.testing import ScriptedServer, failure, malformed, reply, slow, verdict

FAST = RetryPolicy(attempts=3, base=0.01, ceiling=2.0)
DATA = JudgeInput("How long is the return window?", "Thirty days.", "30 days")


def grade(server, *, votes=1, timeout=5.0):
    judge = judges.openai(
        "openai/judge-model", base_url=server.base_url, api_key="test", retry=FAST, timeout=timeout
    )
    usage = JudgeUsage()
    metric = asyncio.run(
        assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=votes, usage=usage)
    )
    return metric, usage


def test_a_good_verdict_over_http_with_usage():
    with ScriptedServer([verdict(0.95, "Same facts, paraphrased.")]) as server:
        metric, usage = grade(server)
        request = server.requests[0]
    assert metric.score == 0.95 and metric.passed and metric.reason == "Same facts, paraphrased."
    assert usage.calls == 1 and usage.input_tokens == 10 and usage.output_tokens == 5
    assert request["model"] == "judge-model" and request["temperature"] == 0
    assert request["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_prose_malformed_bodies_and_out_of_range_scores_are_metric_errors():
    with ScriptedServer([reply("Looks right to me!")]) as server:
        metric, _ = grade(server)
    assert metric.error and not metric.passed and metric.votes[0].reply == "Looks right to me!"
    with ScriptedServer([malformed()]) as server:
        metric, _ = grade(server)
    assert metric.error and not metric.passed
    with ScriptedServer([verdict(7, "too high")]) as server:
        metric, _ = grade(server)
    assert "outside" in metric.error


def test_429_with_retry_after_is_retried_and_the_wait_is_reported():
    waits = []
    token = wait_listener.set(waits.append)
    try:
        with ScriptedServer([failure(429, retry_after=0.2), verdict(1, "ok")]) as server:
            started = time.monotonic()
            metric, usage = grade(server)
            elapsed = time.monotonic() - started
    finally:
        wait_listener.reset(token)
    assert metric.passed and usage.calls == 1
    assert len(server.requests) == 2 and elapsed >= 0.2
    assert waits and "HTTP 429" in waits[0] and "0.2 s" in waits[0]


def test_server_errors_are_retried_then_give_up_as_a_metric_error():
    with ScriptedServer([failure(500), failure(503), verdict(1, "ok")]) as server:
        metric, _ = grade(server)
    assert metric.passed and len(server.requests) == 3
    with ScriptedServer([failure(500)] * 3) as server:
        metric, _ = grade(server)
    assert metric.error and "InternalServerError" in metric.error and len(server.requests) == 3


def test_a_client_error_is_not_retried():
    with ScriptedServer([failure(400), verdict(1, "never asked")]) as server:
        metric, _ = grade(server)
    assert metric.error and len(server.requests) == 1


def test_timeouts_are_retried_and_recorded():
    with ScriptedServer([slow(verdict(1, "late"), 1.0)] * 3) as server:
        metric, _ = grade(server, timeout=0.2)
    assert metric.error and "Timeout" in metric.error


def test_votes_with_one_failure_keep_the_majority_of_the_rest():
    script = iter([verdict(1, "a"), reply("not json"), verdict(0.5, "b"), verdict(1, "c")])
    with ScriptedServer(lambda body: next(script)) as server:
        metric, usage = grade(server, votes=4)
    assert metric.score == 1.0 and usage.calls == 4
    assert sum(1 for vote in metric.votes if vote.error is not None) == 1


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({}, None),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
    ],
)
def test_retry_after_header_forms(headers, seconds):
    assert retry_after(headers) == seconds


def test_one_judge_serves_several_event_loops_building_its_tls_once(monkeypatch):
    import httpx

    built = []
    create = httpx.create_ssl_context
    monkeypatch.setattr(httpx, "create_ssl_context", lambda *a, **k: built.append(1) or create())
    with ScriptedServer([verdict(1, "one"), verdict(0.5, "two"), verdict(0, "three")]) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        judge.prepare()
        # Each asyncio.run is a new event loop: a client of an earlier loop would fail here.
        replies = [asyncio.run(judge.complete("grade", "it")).text for _ in range(3)]
        assert len(server.requests) == 3
    assert [json.loads(reply)["reason"] for reply in replies] == ["one", "two", "three"]
    assert len(built) == 1


def test_a_prepared_judge_can_be_sent_to_another_process() -> None:
    import pickle

    from assay_agents import judges

    judge = judges.openai("gpt-4.1-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    judge.prepare()
    copy = pickle.loads(pickle.dumps(judge))
    assert copy.model == judge.model and copy.base_url == judge.base_url
    assert copy._tls() is not None
