"""Capture from real frameworks talking to the local scripted server (no framework mocked).

pydantic-ai's own OpenTelemetry instrumentation and the OpenAI Agents SDK's own tracing each
report a tool-calling turn; the sample's actions and tokens are read from them and match what
the server answered. The scripted server proves transport and orchestration, not reasoning.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import MemoryRunStore
from assay_agents.otel import CALLS_KEY, DIFFERENCES_KEY
from assay_agents.testing.server import ScriptedServer, reply, tool_calls
from framework_script import context


def script(body: dict[str, Any]):
    """Call lookup_order with the number the user asked about, then answer with it."""
    messages = body.get("messages") or body.get("input") or []
    asked = next(m["content"] for m in messages if m.get("role") == "user")
    if any(m.get("role") == "tool" for m in messages):
        return reply(f"Order {asked} has shipped.", input_tokens=30, output_tokens=8)
    return tool_calls(("lookup_order", {"order": int(asked)}), input_tokens=20, output_tokens=6)


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(script) as running:
        yield running


def lookup_order(order: int) -> dict[str, Any]:
    """Look an order up."""
    return {"order": order, "status": "shipped"}


def suite_of(agent: Any, cases: int) -> assay.Suite:
    suite = assay.Suite("Framework", agent=agent, capture="spans")
    for number in range(cases):
        suite.case(str(number), id=f"order-{number}", checks=[checks.contains("shipped")])
    return suite


def assert_captured(run: assay.Run, model: str) -> None:
    for sample in run.samples:
        order = int(sample.case_id.removeprefix("order-"))
        assert sample.status is assay.SampleStatus.PASSED, sample.error
        assert [(a.name, a.arguments) for a in sample.actions or ()] == [
            ("lookup_order", {"order": order})
        ]
        assert sample.actions is not None
        assert sample.actions[0].result == {"order": order, "status": "shipped"}
        assert sample.usage is not None
        assert (sample.usage.input_tokens, sample.usage.output_tokens) == (50, 14)
        assert sample.metadata["model"] == model


def test_pydantic_ai_instrumentation(server: ScriptedServer, exporter) -> None:
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def agent(text: str) -> str:
        # A client per sample, closed with it: the run's event loop is its own.
        async with AsyncOpenAI(base_url=server.base_url, api_key="test") as client:
            model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
            framework = Agent(model, capabilities=[Instrumentation()], tools=[lookup_order])
            return (await framework.run(text)).output

    run = assay.run(suite_of(agent, 6), db=MemoryRunStore(), progress=False, concurrency=6)
    assert_captured(run, "gpt-4o")


def test_openai_agents_sdk_tracing(server: ScriptedServer, exporter) -> None:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from openai import AsyncOpenAI

    from assay_agents.otel.openai_agents import capture_agents_tracing

    capture_agents_tracing(replace=True)  # nothing is posted to OpenAI from a test

    async def agent(text: str) -> str:
        async with AsyncOpenAI(base_url=server.base_url, api_key="test") as client:
            framework = Agent(
                name="support",
                model=OpenAIChatCompletionsModel("gpt-4o", openai_client=client),
                tools=[function_tool(lookup_order)],
            )
            return str((await Runner.run(framework, text)).final_output)

    run = assay.run(suite_of(agent, 6), db=MemoryRunStore(), progress=False, concurrency=6)
    assert_captured(run, "gpt-4o")


def test_agents_sdk_response_and_failed_function_spans_are_read() -> None:
    from agents.tracing import function_span, response_span, trace

    from assay_agents.otel import Captured
    from assay_agents.otel.capture import Collected, watched
    from assay_agents.otel.openai_agents import capture_agents_tracing

    capture_agents_tracing(replace=True)
    collected = Collected()
    token = watched.set(collected)
    try:
        with trace("support"):
            with response_span() as span:
                span.span_data.usage = {"input_tokens": 12, "output_tokens": 4}
            with function_span("refund", input='{"order": 9}') as failed:
                failed.set_error({"message": "refunds are closed", "data": None})
    finally:
        watched.reset(token)
    captured = Captured.of(collected.records)
    assert captured.usage is not None
    assert (captured.usage.input_tokens, captured.usage.output_tokens) == (12, 4)
    ((name, arguments, error),) = [(a.name, a.arguments, a.error) for a in captured.actions]
    assert (name, arguments, error) == ("refund", {"order": 9}, "refunds are closed")


class Spy:
    """A trace processor as the user's own (or the SDK's default one, which posts to OpenAI)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_trace_start(self, trace: Any) -> None:
        self.seen.append("trace")

    def on_trace_end(self, trace: Any) -> None:
        self.seen.append("trace end")

    def on_span_start(self, span: Any) -> None:
        self.seen.append(type(span.span_data).__name__)

    def on_span_end(self, span: Any) -> None:
        self.seen.append("span end")

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def test_the_agents_sdk_adapter_is_captured_without_tracing_and_posts_nothing(
    server: ScriptedServer, exporter
) -> None:
    from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_trace_processors
    from openai import AsyncOpenAI

    from assay_agents import agents
    from framework_script import http_client

    spy = Spy()
    set_trace_processors([spy])  # the processors a process has before Assay runs
    client = AsyncOpenAI(base_url=server.base_url, api_key="test", http_client=http_client())
    framework = Agent(
        name="support",
        model=OpenAIChatCompletionsModel("gpt-4o", openai_client=client),
        tools=[function_tool(lookup_order)],
    )
    quiet = suite_of(agents.openai_agents(framework), 3)
    run = assay.run(quiet, db=MemoryRunStore(), progress=False, concurrency=3)
    assert_captured(run, "gpt-4o")
    for sample in run.samples:  # read from the SDK's spans, and agreeing with the adapter
        calls = [call["operation"] for call in sample.metadata[CALLS_KEY]]
        assert calls == ["chat", "execute_tool", "chat"]
        assert DIFFERENCES_KEY not in sample.metadata
    assert spy.seen == []  # traced for Assay alone: no other processor saw any of it

    traced = suite_of(agents.openai_agents(framework, tracing=True), 1)
    assay.run(traced, db=MemoryRunStore(), progress=False)
    assert "FunctionSpanData" in spy.seen  # asked for: the other processors see it as before

    spy.seen.clear()
    outside = asyncio.run(agents.openai_agents(framework)("7", context()))
    assert outside.answer is not None and spy.seen == []  # not captured: tracing stays off
