"""Capture from spans: a sample's actions, usage and model read from the GenAI spans it emits."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from opentelemetry import trace

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import MemoryRunStore
from assay_agents.otel import CALLS_KEY, DIFFERENCES_KEY

TRACER = trace.get_tracer("framework-under-test")


def chat(model: str, tokens_in: int, tokens_out: int) -> None:
    """A model call as a GenAI-instrumented framework reports it."""
    with TRACER.start_as_current_span(
        f"chat {model}",
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.response.model": f"{model}-2024",
            "gen_ai.usage.input_tokens": tokens_in,
            "gen_ai.usage.output_tokens": tokens_out,
        },
    ):
        pass


def tool(name: str, arguments: dict[str, object], result: object, *, fail: bool = False) -> None:
    """A tool call as a GenAI-instrumented framework reports it."""
    with TRACER.start_as_current_span(
        f"execute_tool {name}",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
            "gen_ai.tool.call.result": json.dumps(result),
        },
    ) as span:
        if fail:
            span.set_status(trace.StatusCode.ERROR, "lookup timed out")


def run(suite: assay.Suite, **options: object) -> assay.Run:
    return assay.run(suite, db=MemoryRunStore(), progress=False, **options)  # type: ignore[arg-type]


def test_actions_usage_and_model_come_from_the_spans(exporter) -> None:
    async def agent(text: str, ctx: assay.AgentContext) -> str:
        with TRACER.start_as_current_span("invoke_agent support"):
            chat("gpt-4o", 100, 20)
            tool("lookup_order", {"id": 42}, {"status": "shipped"})
            tool("refund", {"id": 42}, {"error": "not allowed"})
            chat("gpt-4o", 150, 30)
        return "Your order has shipped."

    suite = assay.Suite("Captured", agent=agent, capture="spans")
    suite.case("Where is order 42?", checks=[checks.contains("shipped")])
    (sample,) = run(suite).samples

    assert sample.status is assay.SampleStatus.PASSED
    assert [(a.name, a.arguments, a.result) for a in sample.actions or ()] == [
        ("lookup_order", {"id": 42}, {"status": "shipped"}),
        ("refund", {"id": 42}, {"error": "not allowed"}),
    ]
    assert sample.actions is not None and sample.actions[1].error == "not allowed"
    assert sample.usage is not None
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (250, 50)
    assert sample.metadata["model"] == "gpt-4o-2024"
    calls = sample.metadata[CALLS_KEY]
    assert [call["operation"] for call in calls] == ["chat", "execute_tool", "execute_tool", "chat"]
    assert all(call["latency_ms"] >= 0 for call in calls)
    assert calls[0]["input_tokens"] == 100


def test_a_tool_span_with_an_error_status_is_an_errored_action(exporter) -> None:
    def agent(text: str) -> str:
        tool("lookup_order", {"id": 7}, None, fail=True)
        return "Sorry."

    suite = assay.Suite("Errored tool", agent=agent, capture="spans")
    suite.case("Where is order 7?", checks=[checks.contains("Sorry")])
    (sample,) = run(suite).samples
    assert sample.actions is not None
    assert sample.actions[0].error == "lookup timed out"


def test_what_the_agent_returns_wins_and_the_difference_is_recorded(exporter) -> None:
    def agent(text: str) -> assay.Outcome:
        chat("gpt-4o", 10, 5)
        tool("search", {"q": "x"}, [])
        return assay.Outcome(
            answer="done",
            actions=(assay.Action("search"), assay.Action("book")),
            usage=assay.Usage(10, 5),
        )

    suite = assay.Suite("Merged", agent=agent, capture="spans")
    suite.case("Book it", checks=[checks.contains("done")])
    (sample,) = run(suite).samples
    assert [action.name for action in sample.actions or ()] == ["search", "book"]
    assert sample.usage is not None and sample.usage.input_tokens == 10
    assert sample.metadata[DIFFERENCES_KEY] == {
        "actions": {"returned": ["search", "book"], "spans": ["search"]}
    }


def test_fifty_interleaving_async_samples_each_get_their_own_spans(exporter) -> None:
    # Every sample emits its first spans, then waits until all fifty are in flight before
    # emitting the rest: their spans are interleaved whatever order the loop runs them in.
    started = 0
    everyone_in = asyncio.Event()

    async def agent(text: str, ctx: assay.AgentContext) -> str:
        nonlocal started
        tool("first", {"case": text}, text)
        started += 1
        if started == 50:
            everyone_in.set()
        await everyone_in.wait()
        chat("m", int(text), 1)
        tool("second", {"case": text}, text)
        return text

    suite = assay.Suite("Fifty", agent=agent, capture="spans")
    for number in range(50):
        suite.case(str(number), id=f"c{number}", checks=[checks.contains(str(number))])
    samples = run(suite, concurrency=50).samples

    assert len(samples) == 50
    for sample in samples:
        text = sample.case_id[1:]
        assert [(a.name, a.arguments) for a in sample.actions or ()] == [
            ("first", {"case": text}),
            ("second", {"case": text}),
        ]
        assert sample.usage is not None and sample.usage.input_tokens == int(text)


def test_sync_agents_on_threads_keep_their_spans_apart(exporter) -> None:
    # A barrier holds all twenty threads between their first and second spans.
    barrier = threading.Barrier(20, timeout=30)

    def agent(text: str) -> str:
        tool("first", {"case": text}, None)
        barrier.wait()
        tool("second", {"case": text}, None)
        return text

    suite = assay.Suite("Threads", agent=agent, capture="spans")
    for number in range(20):
        suite.case(str(number), id=f"c{number}", checks=[checks.contains(str(number))])
    samples = run(suite, concurrency=20).samples
    for sample in samples:
        text = sample.case_id[1:]
        assert [a.arguments for a in sample.actions or ()] == [{"case": text}, {"case": text}]


def test_the_users_exporter_still_receives_every_span_nested_under_its_sample(exporter) -> None:
    def agent(text: str) -> str:
        tool("lookup_order", {"id": 1}, "ok")
        return "ok"

    suite = assay.Suite("Exported", agent=agent, capture="spans")
    suite.case("q", id="only", checks=[checks.contains("ok")])
    run_ = run(suite)
    spans = {span.name: span for span in exporter.get_finished_spans()}
    sample_span, tool_span = spans["assay.sample"], spans["execute_tool lookup_order"]
    assert tool_span.parent is not None
    assert tool_span.parent.span_id == sample_span.context.span_id
    assert sample_span.parent is None  # each sample is the root of its own trace
    assert sample_span.attributes is not None
    assert sample_span.attributes["assay.run_id"] == run_.id
    assert sample_span.attributes["assay.case_id"] == "only"
    assert sample_span.attributes["assay.sample"] == 0
    assert "assay.run" in spans
    (sample,) = run_.samples
    assert sample.traces is not None
    assert sample.traces.trace_id == trace.format_trace_id(sample_span.context.trace_id)


def test_a_capture_that_is_not_known_is_refused() -> None:
    with pytest.raises(assay.SpecError, match="capture"):
        assay.Suite("Bad", agent=lambda text: text, capture="logs")
