"""Replay through the runner: only the agent call is wrapped, and the evidence decides."""

import asyncio
import json
import threading
import time

import httpx
import requests

import assay_agents as assay
from assay_agents import checks
from assay_agents.record import write
from assay_agents.replay import _interception
from assay_agents.results import SampleStatus
from assay_agents.runner import Execution, MemorySink, Runner

API = "https://shipping.example"
SECRET = "sk-live-secret-abcdefghij"


def execute(suite, *, concurrency=8, timeout=None):
    runner = Runner(
        suite.agent,
        sink=MemorySink(),
        execution=Execution(concurrency=concurrency, timeout=timeout),
    )
    return asyncio.run(runner.execute(suite.plan()))


def order_fixtures():
    return (
        assay.api()
        .expect_request("GET", f"{API}/orders", query={"id": "42"})
        .respond_with(json={"status": "ready"})
    )


def swallowing_agent(question, ctx):
    order = "41" if "wrong" in question else "42"
    try:
        return httpx.get(
            f"{API}/orders", params={"id": order}, headers={"Authorization": f"Bearer {SECRET}"}
        ).json()["status"]
    except httpx.HTTPError:
        return "ready"  # swallowed, and still the expected answer


def test_a_swallowed_mismatch_is_an_agent_error_even_with_the_right_answer():
    suite = assay.Suite("S", agent=swallowing_agent, checks=[checks.exact_match()])
    suite.case("right", expected="ready", api=order_fixtures())
    suite.case("wrong", expected="ready", api=order_fixtures())
    right, wrong = execute(suite)
    assert right.status is SampleStatus.PASSED and right.error is None
    assert right.metadata["api_replay"]["passed"] is True
    assert wrong.status is SampleStatus.ERROR and wrong.answer == "ready"
    assert wrong.metric("exact_match").passed  # the checks still ran, outside the replay
    assert wrong.error == (
        "API replay failed: request 1 GET https://shipping.example/orders"
        "?id=41 does not match api[0]: query: missing id=42, "
        "not expected id=41"
    )
    evidence = wrong.metadata["api_replay"]
    assert evidence["requests"][0]["status"] == "mismatch" and evidence["passed"] is False
    assert SECRET not in json.dumps(write(wrong))


def test_a_missing_call_is_an_agent_error():
    suite = assay.Suite("S", agent=lambda q, ctx: "ready", checks=[checks.exact_match()])
    suite.case("lazy", expected="ready", api=order_fixtures())
    (result,) = execute(suite)
    assert result.status is SampleStatus.ERROR
    assert result.error == (
        "API replay failed: api[0] GET https://shipping.example/orders?id=42 was never requested"
    )
    assert result.metadata["api_replay"]["missing"][0]["declaration"] == 0


def test_an_escaping_refusal_is_reported_once():
    def careless(question, ctx):
        return requests.get(f"{API}/undeclared", timeout=5).text

    suite = assay.Suite("S", agent=careless, checks=[checks.exact_match()])
    suite.case("q", expected="x", api=assay.api())
    (result,) = execute(suite)
    assert result.error.splitlines() == [
        "API replay failed: request 1 GET https://shipping.example/undeclared: not declared",
        "agent error: it did not catch the ReplayConnectionError",
    ]


def test_the_agents_own_metadata_is_kept_next_to_the_evidence():
    def agent(question, ctx):
        return {
            "answer": httpx.get(f"{API}/orders?id=42").json()["status"],
            "metadata": {"trace": "t-1"},
        }

    suite = assay.Suite("S", agent=agent, checks=[checks.exact_match()])
    suite.case("q", expected="ready", api=order_fixtures())
    (result,) = execute(suite)
    assert result.metadata["trace"] == "t-1" and result.metadata["api_replay"]["passed"]


def test_checks_run_outside_the_replay(live_server):
    seen = []

    def calls_the_network(answer, ctx):
        seen.append(httpx.get(f"{live_server.url}/from-a-check").json()["live"])
        return True

    async def agent(question, ctx):
        async with httpx.AsyncClient() as client:
            return (await client.get(f"{API}/orders?id=42")).json()["status"]

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.custom(calls_the_network, name="live")], api=order_fixtures())
    (result,) = execute(suite)
    assert result.status is SampleStatus.PASSED and seen == [True]


def test_samples_without_fixtures_are_not_replayed(live_server):
    def agent(question, ctx):
        return httpx.get(f"{live_server.url}/unreplayed").json()["path"]

    suite = assay.Suite("S", agent=agent, checks=[checks.exact_match()])
    suite.case("plain", expected="/unreplayed")
    suite.case("strict", expected="/unreplayed", api=assay.api())
    plain, strict = execute(suite)
    assert plain.status is SampleStatus.PASSED and "api_replay" not in plain.metadata
    assert strict.status is SampleStatus.ERROR and "not declared" in strict.error


def test_a_timed_out_agent_is_refused_even_after_its_sample_ended(live_server):
    late, done = [], threading.Event()

    def slow(question, ctx):
        try:
            time.sleep(0.3)  # outlives the 0.05 s timeout and the sample
            late.append(httpx.get(f"{live_server.url}/late").json())
        except httpx.HTTPError as error:
            late.append(str(error))
        finally:
            done.set()
        return "ready"

    suite = assay.Suite("S", agent=slow, checks=[checks.exact_match()])
    # 127.0.0.1 is not allowed: a live request would reach the server, a refusal would not.
    suite.case("q", expected="ready", api=order_fixtures())
    (result,) = execute(suite, timeout=0.05)
    assert result.status is SampleStatus.ERROR
    assert "was never requested" in result.error and "timed out" in result.error
    assert done.wait(5)
    assert live_server.count("/late") == 0
    assert len(late) == 1 and "already finished" in late[0]
    deadline = time.monotonic() + 5
    while _interception.installed() and time.monotonic() < deadline:
        time.sleep(0.01)  # the worker thread releases interception as it returns
    assert not _interception.installed()


def test_evidence_is_persisted_and_shown_by_every_report(store):
    suite = assay.Suite("Shipping", agent=swallowing_agent, checks=[checks.exact_match()])
    suite.case("wrong", expected="ready", api=order_fixtures())
    run = assay.run(suite, db=store, progress=False)
    stored = store.get_run(run.id)
    (sample,) = stored.samples
    assert sample.metadata["api_replay"]["requests"][0]["differences"] == [
        "query: missing id=42, not expected id=41"
    ]
    report = assay.Report(stored)
    for text in (report.to_text(), report.to_markdown(), report.to_json()):
        assert "query: missing id=42, not expected id=41" in text
        assert SECRET not in text
    assert json.loads(report.to_json())["samples"][0]["metadata"]["api_replay"]["passed"] is False


def test_judges_run_outside_the_replay(store):
    from assay_agents import judges
    from assay_agents.testing import ScriptedServer, verdict

    def agent(question, ctx):
        return httpx.get(f"{API}/orders?id=42").json()["status"]

    with ScriptedServer(lambda body: verdict(1, "Same facts.")) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        suite = assay.Suite("Judged replay", agent=agent, judge=judge)
        # Strict fixtures with no allowed host: a judge call inside the replay would fail.
        suite.case(
            "Track order 42",
            expected="ready",
            api=order_fixtures(),
            criteria=["semantic_accuracy"],
            minimum_scores={"semantic_accuracy": 0.5},
        )
        run = assay.run(suite, db=store, progress=False)
    (sample,) = run.samples
    assert sample.status is SampleStatus.PASSED, sample.error
    assert sample.metric("semantic_accuracy").score == 1.0
    assert sample.metadata["api_replay"]["requests"][0]["status"] == "matched"
