"""Span capture: its overhead per sample, and its correctness against the server's own log.

Overhead: 2,000 samples at concurrency 50 of an agent that emits two ``chat`` and two
``execute_tool`` GenAI spans (to the same SDK provider either way), run with
``capture="spans"`` and answering text, and without capture (untraced), returning the same
actions, usage and model by hand, as an adapter would; the difference in this process's CPU time per
sample (wall time too, which other processes on a shared machine disturb), median of 7
alternating rounds. Target: < 0.2 ms per sample.

Correctness: 50 samples of a pydantic-ai agent with its OpenTelemetry instrumentation at
concurrency 50 against the local scripted server; every sample's actions, tokens and cost
must equal what the server's request log says it answered that sample.

Run: ``python bench/capture.py``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import MemoryRunStore
from assay_agents.results.pricing import estimate_cost, load_catalogue
from assay_agents.testing.server import ScriptedServer, reply, tool_calls

SAMPLES = 2_000
CONCURRENCY = 50
ROUNDS = 7
TARGET_MS = 0.2
TRACER = trace.get_tracer("bench-framework")


def emit(name: str, attributes: dict[str, Any]) -> None:
    with TRACER.start_as_current_span(name, attributes=attributes):
        pass


async def emitting(text: str) -> None:
    for turn in range(2):
        emit(
            "chat bench",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 3,
            },
        )
        emit(
            "execute_tool lookup",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.arguments": json.dumps({"turn": turn}),
                "gen_ai.tool.call.result": '{"ok": true}',
            },
        )
        await asyncio.sleep(0)


async def captured_agent(text: str, ctx: assay.AgentContext) -> str:
    await emitting(text)
    return text


async def reporting_agent(text: str, ctx: assay.AgentContext) -> assay.Outcome:
    await emitting(text)
    actions = tuple(
        assay.Action("lookup", {"turn": turn}, result={"ok": True}) for turn in range(2)
    )
    return assay.Outcome(
        answer=text, actions=actions, usage=assay.Usage(20, 6), metadata={"model": "gpt-4o"}
    )


def spans_suite(capture: str | None) -> assay.Suite:
    agent = reporting_agent if capture is None else captured_agent
    suite = assay.Suite("capture bench", agent=agent, agent_name="bench", capture=capture)
    for index in range(SAMPLES):
        suite.case(f"q{index}", checks=[checks.contains("q")])
    return suite


def timed(capture: str | None) -> tuple[float, float]:
    """The run's CPU time and wall time, in seconds."""
    suite = spans_suite(capture)
    cpu, wall = time.process_time(), time.perf_counter()
    # The plain run is untraced (trace=False), as without the otel extra: the difference is
    # everything capturing costs, the sample's own span included.
    run = assay.run(
        suite,
        db=MemoryRunStore(),
        progress=False,
        concurrency=CONCURRENCY,
        trace=capture is not None,
    )
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert all(len(sample.actions or ()) == 2 for sample in run.samples)
    return cpu, wall


def overhead() -> None:
    timed("spans"), timed(None)  # warm-up: imports, the provider, the caches
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(ROUNDS):
        plain, captured = timed(None), timed("spans")
        cpu.append((captured[0] - plain[0]) / SAMPLES * 1000)
        wall.append((captured[1] - plain[1]) / SAMPLES * 1000)
    print(f"overhead: {SAMPLES} samples x {ROUNDS} rounds at concurrency {CONCURRENCY}")
    print("  CPU per sample (ms):  " + ", ".join(f"{value:.3f}" for value in cpu))
    print("  wall per sample (ms): " + ", ".join(f"{value:.3f}" for value in wall))
    median = statistics.median(cpu)
    verdict = "OK" if median < TARGET_MS else "MISSED"
    print(f"  median CPU = {median:.3f} ms per sample (target < {TARGET_MS}) {verdict}")
    print(f"  median wall = {statistics.median(wall):.3f} ms per sample")


def script(body: dict[str, Any]) -> Any:
    messages = body["messages"]
    asked = next(m["content"] for m in messages if m["role"] == "user")
    if any(m["role"] == "tool" for m in messages):
        return reply(f"Order {asked} shipped.", input_tokens=40 + int(asked), output_tokens=9)
    return tool_calls(("lookup_order", {"order": int(asked)}), input_tokens=25, output_tokens=7)


def lookup_order(order: int) -> dict[str, Any]:
    """Look an order up."""
    return {"order": order, "status": "shipped"}


def from_log(server: ScriptedServer) -> dict[str, tuple[list[tuple[str, Any]], int, int]]:
    """Per question, what the server answered: the tool calls and the tokens."""
    answered: dict[str, tuple[list[tuple[str, Any]], int, int]] = {}
    for body in server.requests:
        message = json.loads(script(body).body)
        asked = next(m["content"] for m in body["messages"] if m["role"] == "user")
        calls, tokens_in, tokens_out = answered.get(asked, ([], 0, 0))
        for call in message["choices"][0]["message"].get("tool_calls") or ():
            calls.append((call["function"]["name"], json.loads(call["function"]["arguments"])))
        usage = message["usage"]
        answered[asked] = (
            calls,
            tokens_in + usage["prompt_tokens"],
            tokens_out + usage["completion_tokens"],
        )
    return answered


def correctness() -> None:
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    load_catalogue()
    with ScriptedServer(script) as server:

        async def agent(text: str) -> str:
            async with AsyncOpenAI(base_url=server.base_url, api_key="bench") as client:
                model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
                framework = Agent(model, capabilities=[Instrumentation()], tools=[lookup_order])
                return (await framework.run(text)).output

        suite = assay.Suite("capture correctness", agent=agent, capture="spans")
        for index in range(CONCURRENCY):
            suite.case(str(index), checks=[checks.contains("shipped")])
        run = assay.run(suite, db=MemoryRunStore(), progress=False, concurrency=CONCURRENCY)
        log = from_log(server)
    wrong = 0
    for sample in run.samples:
        question = str(sample.case_id)
        calls, tokens_in, tokens_out = log[next(c.input for c in suite.cases if c.id == question)]
        usage = sample.usage
        estimate = estimate_cost("openai", "gpt-4o", tokens_in, tokens_out)
        expected_cost = None if estimate is None else estimate.cost_usd
        same = (
            [(action.name, action.arguments) for action in sample.actions or ()] == calls
            and usage is not None
            and (usage.input_tokens, usage.output_tokens) == (tokens_in, tokens_out)
            and usage.cost_usd == expected_cost
        )
        wrong += not same
    print(f"correctness: {len(run.samples)} pydantic-ai samples at concurrency {CONCURRENCY}")
    print(f"  requests in the server's log = {len(server.requests)}")
    print(f"  samples whose actions, tokens and cost equal the log = {len(run.samples) - wrong}")
    print(f"  {'OK' if wrong == 0 else 'MISSED'}")


def main() -> None:
    trace.set_tracer_provider(TracerProvider())  # the user's provider, exporting nowhere
    overhead()
    correctness()


if __name__ == "__main__":
    main()
