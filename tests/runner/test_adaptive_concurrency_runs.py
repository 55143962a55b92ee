"""Rate limits end to end: the local server refuses with 429, the run adapts and says so."""

import json

import httpx
import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.agents import openai_chat
from assay_agents.report import Report
from assay_agents.runner.progress import Progress
from assay_agents.testing import ScriptedServer, Throttle, reply, slow, verdict


class Notes(Progress):
    def __init__(self):
        self.notes: list[str] = []

    def start(self, total, description):
        pass

    def advance(self, result):
        pass

    def note(self, message):
        self.notes.append(message)

    def stop(self):
        pass


def echo(body):
    return reply(f"answer to {body['messages'][-1]['content']}")


def chat_suite(server, cases=6, **settings):
    agent = openai_chat(base_url=server.base_url, api_key="test")
    suite = assay.Suite("Rate limited", agent=agent, **settings)
    for number in range(cases):
        suite.case(
            f"q{number}",
            id=f"q{number}",
            expected=f"answer to q{number}",
            checks=[checks.exact_match()],
        )
    return suite


def test_the_chat_adapter_waits_out_429s_and_every_sample_is_right(store):
    progress = Notes()
    with ScriptedServer(echo, throttle=Throttle(first=2, retry_after=0)) as server:
        run = assay.run(
            chat_suite(server),
            db=store,
            models=["openai/gpt-4.1-mini"],
            concurrency=4,
            progress=progress,
        )
        assert server.throttled == 2
    assert [sample.status for sample in run.samples] == [assay.SampleStatus.PASSED] * 6
    assert all(s.answer == f"answer to {s.case_id}" for s in run.samples)
    retried = [sample for sample in run.samples if sample.pacing is not None]
    assert sum(sample.pacing.retries for sample in retried) == 2
    stored = store.get_run(run.id)
    adjustments = [a for s in stored.samples if s.pacing for a in s.pacing.adjustments]
    # Both 429s may land before or after the first drop: one drop at least, 4 → 2 first.
    assert adjustments and (adjustments[0].before, adjustments[0].after) == (4, 2)
    assert {a.model for a in adjustments} == {"openai/gpt-4.1-mini"}
    assert {a.reason for a in adjustments} == {"rate limited"}
    assert sum(s.pacing.retries for s in stored.samples if s.pacing) == 2
    assert "waiting 0 s, rate limited (gpt-4.1-mini)" in progress.notes
    assert stored.settings.adaptive.floor == 1


def test_above_a_concurrency_level_the_run_drops_to_it_and_records_the_adjustments(store):
    # The server answers two at a time and refuses a third; the run starts at eight.
    slow_echo = lambda body: slow(echo(body), 0.05)  # noqa: E731
    throttle = Throttle(above=2, retry_after=0)
    with ScriptedServer(slow_echo, throttle=throttle) as server:
        run = assay.run(
            chat_suite(server, cases=12, concurrency_floor=2, rate_limit_retries=20),
            db=store,
            models=["openai/gpt-4.1-mini"],
            concurrency=8,
            progress=False,
        )
        refused = server.throttled
    assert refused >= 1
    assert all(s.status is assay.SampleStatus.PASSED for s in run.samples)
    stored = store.get_run(run.id)
    # Samples are stored in case order, not in the order their calls were refused: the
    # first drop is the earliest in time, as the reports list them.
    drops = sorted(
        (a for s in stored.samples if s.pacing for a in s.pacing.adjustments), key=lambda a: a.at
    )
    assert drops[0].before == 8 and all(a.after >= 2 for a in drops)
    assert sum(s.pacing.retries for s in stored.samples if s.pacing) == refused
    report = Report(stored)
    text, markdown = report.to_text(), report.to_markdown()
    document = json.loads(report.to_json())
    assert "8 → 4 (rate limited)" in text and "8 → 4 (rate limited)" in markdown
    assert document["rate_limits"]["retries"] == refused
    assert document["rate_limits"]["adjustments"][0]["before"] == 8
    assert "<h3>Rate limits</h3>" in report.to_html()
    assert "8 → 4 (rate limited)" in report.to_html()


def test_a_user_agent_raising_a_rate_limit_is_run_again(store):
    calls = []

    def agent(question):
        calls.append(question)
        if len(calls) == 1:
            request = httpx.Request("POST", "http://provider.test/v1/chat")
            response = httpx.Response(429, headers={"retry-after": "0"}, request=request)
            response.raise_for_status()
        return "done"

    suite = assay.Suite("Own agent", agent=agent)
    suite.case("q", id="q", expected="done", checks=[checks.exact_match()])
    run = assay.run(suite, db=store, progress=False)
    assert calls == ["q", "q"]
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.PASSED and sample.answer == "done"
    assert sample.pacing.retries == 1 and sample.pacing.adjustments[0].model == "the agent"


def test_retries_are_bounded_per_sample(store):
    def agent(question):
        request = httpx.Request("POST", "http://provider.test/v1/chat")
        httpx.Response(503, request=request).raise_for_status()

    suite = assay.Suite("Always overloaded", agent=agent, rate_limit_retries=2)
    suite.case("q", id="q", expected="done", checks=[checks.exact_match()])
    # Without Retry-After the pacer backs off 0.5 s, then 1 s: kept short with the floor.
    run = assay.run(suite, db=store, progress=False)
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.ERROR and "503" in sample.error
    assert sample.pacing.retries == 2


def test_a_rate_limited_judge_lowers_the_judge_models_concurrency(store):
    progress = Notes()
    with ScriptedServer(
        lambda body: verdict(1, "Same facts."), throttle=Throttle(first=1, retry_after=0)
    ) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        suite = assay.Suite("Judged", agent=lambda text: "Thirty days.", judge=judge)
        suite.case("Q?", id="q", expected="30 days", minimum_scores={"semantic_accuracy": 0.5})
        run = assay.run(suite, db=store, progress=progress, concurrency=4)
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.PASSED
    assert sample.judge_usage.attempts == 2
    assert sample.pacing.retries == 1
    assert [(a.model, a.before, a.after) for a in sample.pacing.adjustments] == [
        ("judge judge-model", 4, 2)
    ]
    assert progress.notes == [
        "waiting 0 s, rate limited (judge judge-model); HTTP 429, attempt 2 of 4"
    ]


def test_a_floor_above_the_ceiling_is_refused_before_anything_runs(store):
    suite = assay.Suite("Bad bounds", agent=lambda text: "x", concurrency_floor=4)
    suite.case("q", id="q", expected="x")
    with pytest.raises(assay.SpecError, match="concurrency_floor"):
        assay.run(suite, db=store, progress=False, concurrency_ceiling=2)


def test_a_server_error_is_retried_by_the_chat_adapter_and_said_without_a_drop(store):
    progress = Notes()
    with ScriptedServer(echo, throttle=Throttle(first=1, status=500)) as server:
        run = assay.run(
            chat_suite(server, cases=1),
            db=store,
            models=["openai/gpt-4.1-mini"],
            progress=progress,
        )
    sample = run.samples[0]
    assert sample.status is assay.SampleStatus.PASSED
    assert sample.pacing.retries == 1 and sample.pacing.adjustments == ()
    assert progress.notes == ["waiting 0.5 s, HTTP 500 (gpt-4.1-mini)"]
