"""OpenAI Agents SDK agents run as they are: Chat Completions and Responses over real HTTP."""

import asyncio
import io
import logging

import pytest
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    add_trace_processor,
    function_tool,
)
from agents.tracing import TracingProcessor
from openai import AsyncOpenAI

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer
from framework_script import CONVERSATION, context, http_client, lookup_order, script

KINDS = [OpenAIChatCompletionsModel, OpenAIResponsesModel]


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(script) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    opened = Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    yield opened
    opened.close()


def _agent(server, kind=OpenAIChatCompletionsModel, name="gpt-4.1-mini", handoffs=()):
    client = AsyncOpenAI(base_url=server.base_url, api_key="test", http_client=http_client())
    return Agent(
        name="support",
        instructions="Be brief.",
        model=kind(name, client),
        tools=[function_tool(lookup_order)],
        handoffs=list(handoffs),
    )


def _handing_off(server):
    """A support agent on a small model that hands every question to an expert on gpt-4o."""
    client = AsyncOpenAI(base_url=server.base_url, api_key="test", http_client=http_client())
    expert = Agent(name="expert", model=OpenAIChatCompletionsModel("gpt-4o", client))
    return _agent(server, name="gpt-4.1-nano", handoffs=[expert])


def test_a_tool_calling_run_is_stored_with_its_actions_tokens_model_and_cost(server, db):
    agent = agents.openai_agents(_agent(server), action_groups={"lookup_order": "orders"})
    suite = assay.Suite("agents-sdk", agent=agent, checks=[checks.actions()])
    suite.case(
        "Where are orders 42 and 7?",
        expected_actions=[
            {"group": "orders", "name": "lookup_order", "arguments": {"order_id": 42}},
            {"group": "orders", "name": "lookup_order", "arguments": {"order_id": 7}},
        ],
    )
    run = assay.run(suite, db=db, progress=False)
    stored = db.get_run(run.id).samples[0]
    assert stored.status.value == "passed", stored
    assert stored.answer == "Done: Where are orders 42 and 7?"
    shipped, down = stored.actions
    assert shipped.result == {"status": "shipped"} and shipped.error is None
    assert down.error == "the order service is down"  # a top-level {"error": ...} result
    assert (stored.usage.input_tokens, stored.usage.output_tokens) == (2000, 105)
    assert stored.metadata["model"] == "gpt-4.1-mini"  # the SDK's result names none
    assert stored.usage.cost_source == "estimated"
    assert stored.usage.cost_usd == pytest.approx((2000 * 0.4 + 105 * 1.6) / 1e6)


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_that_raises_is_an_errored_call_and_the_run_goes_on(server, kind):
    outcome = asyncio.run(agents.openai_agents(_agent(server, kind))("Is order 9 in?", context()))
    assert outcome.answer == "Done: Is order 9 in?" and outcome.error is None
    (failed,) = outcome.actions
    assert failed.arguments == {"order_id": 9} and "no order 9" in failed.error


def test_the_responses_model_records_actions_and_tokens(server):
    agent = agents.openai_agents(_agent(server, OpenAIResponsesModel))
    outcome = asyncio.run(agent("Where are orders 42 and 7?", context()))
    assert outcome.answer == "Done: Where are orders 42 and 7?"
    assert [a.error for a in outcome.actions] == [None, "the order service is down"]
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (20, 10)


@pytest.mark.parametrize("kind", KINDS)
def test_a_message_list_input_becomes_the_sdks_own_items(server, kind):
    agent = agents.openai_agents(_agent(server, kind))
    start = len(server.requests)
    outcome = asyncio.run(agent(CONVERSATION, context()))
    sent = server.requests[start]
    assert outcome.answer == "Done: Is order 42 late?"
    assert outcome.actions == ()  # the input's calls were not this run's
    if kind is OpenAIChatCompletionsModel:
        roles = [m["role"] for m in sent["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
        assert sent["messages"][3]["tool_call_id"] == "call_a"
    else:
        kinds = [item.get("type") or item.get("role") for item in sent["input"]]
        assert kinds == ["user", "function_call", "function_call_output", "assistant", "user"]


@pytest.mark.parametrize("kind", KINDS)
def test_each_sample_runs_on_the_model_the_run_asks_for(server, db, kind):
    agent = agents.openai_agents(_agent(server, kind, name="house-model"))
    suite = assay.Suite("matrix", agent=agent, checks=[checks.contains("Done")])
    suite.case("Hello?")
    start = len(server.requests)
    run = assay.run(suite, db=db, models=["gpt-4.1-mini", "gpt-4.1"], progress=False)
    assert sorted(r["model"] for r in server.requests[start:]) == ["gpt-4.1", "gpt-4.1-mini"]
    assert {s.model: s.metadata["model"] for s in run.samples} == {
        "gpt-4.1-mini": "gpt-4.1-mini",
        "gpt-4.1": "gpt-4.1",
    }
    assert all(s.status.value == "passed" for s in run.samples)


def test_a_sample_another_model_answered_is_an_error_not_the_asked_models(server, db):
    agent = agents.openai_agents(_agent(server, OpenAIResponsesModel))
    suite = assay.Suite("impostor", agent=agent, checks=[checks.contains("Done")])
    suite.case("Hello impostor?")
    run = assay.run(suite, db=db, models=["gpt-4.1"], progress=False)
    (sample,) = run.samples
    assert sample.status.value == "error" and "gpt-3.5-turbo" in sample.error
    assert sample.metadata["answered_model"] == "gpt-3.5-turbo"


class _Seen(TracingProcessor):
    def __init__(self):
        self.traces = []

    def on_trace_start(self, trace):
        self.traces.append(trace)

    def on_trace_end(self, trace):
        pass

    def on_span_start(self, span):
        self.traces.append(span)

    def on_span_end(self, span):
        pass

    def shutdown(self):
        pass

    def force_flush(self):
        pass


def test_the_sdks_tracing_stays_off_so_nothing_is_posted(server):
    seen = _Seen()
    add_trace_processor(seen)  # beside the SDK's own exporter, which would post them
    agent = agents.openai_agents(_agent(server))
    asyncio.run(agent("Where is order 42?", context()))
    assert seen.traces == []


def test_a_model_object_the_adapter_cannot_rename_is_refused_before_the_run(db):
    from agents.models.interface import Model

    class Custom(Model):
        async def get_response(self, *args, **kwargs):
            raise AssertionError("never called")

        def stream_response(self, *args, **kwargs):
            raise AssertionError("never called")

    agent = agents.openai_agents(Agent(name="custom", model=Custom()))
    suite = assay.Suite("custom", agent=agent, checks=[checks.contains("x")])
    suite.case("Hello?")
    with pytest.raises(assay.ConfigurationError, match=r"cannot be pointed at 'gpt-4\.1'"):
        assay.run(suite, db=db, models=["gpt-4.1"], progress=False)


def test_the_agents_tools_and_instructions_are_the_roster_diagnosis_reads(server):
    from assay_agents.evaluation.diagnosis import roster_of

    roster = roster_of(assay.Suite("roster", agent=agents.openai_agents(_agent(server))))
    assert roster.tools == {"lookup_order": "Find an order by its number."}
    assert roster.instructions == "Be brief."


def test_a_run_handed_off_to_another_model_prices_each_models_tokens_at_its_own_rate(server, db):
    suite = assay.Suite("handoff", agent=agents.openai_agents(_handing_off(server)), checks=[])
    suite.case("Hello?")
    run = assay.run(suite, db=db, progress=False)
    stored = db.get_run(run.id).samples[0]
    assert stored.answer == "Done: Hello?"
    assert "model" not in stored.metadata  # no one model answered it
    assert stored.metadata["answered_model"] == "gpt-4o"  # the final answer's
    assert stored.metadata["model_usage"] == {
        "gpt-4.1-nano": {"input_tokens": 300, "output_tokens": 10},
        "gpt-4o": {"input_tokens": 1000, "output_tokens": 5},
    }
    nano, large = (300 * 0.1 + 10 * 0.4) / 1e6, (1000 * 2.5 + 5 * 10) / 1e6
    assert (stored.usage.input_tokens, stored.usage.output_tokens) == (1300, 15)
    assert stored.usage.cost_source == "estimated"
    assert stored.usage.cost_usd == pytest.approx(nano + large)


def test_a_run_on_an_asked_model_runs_every_agent_of_a_handoff_on_it(server, db):
    suite = assay.Suite("handoff", agent=agents.openai_agents(_handing_off(server)), checks=[])
    suite.case("Hello?")
    start = len(server.requests)
    run = assay.run(suite, db=db, models=["gpt-4.1"], progress=False)
    assert [r["model"] for r in server.requests[start:]] == ["gpt-4.1", "gpt-4.1"]
    (sample,) = run.samples
    assert sample.metadata["model"] == "gpt-4.1" and "model_usage" not in sample.metadata
    assert sample.usage.cost_usd == pytest.approx((1300 * 2 + 15 * 8) / 1e6)


def test_a_failed_tools_log_record_reaches_the_users_handlers_and_nothing_stays(
    server, monkeypatch, caplog
):
    from agents import _debug

    monkeypatch.setattr(_debug, "DONT_LOG_TOOL_DATA", False)  # the SDK then logs a traceback
    sdk = logging.getLogger("openai.agents")
    before = list(sdk.handlers)
    with caplog.at_level(logging.ERROR, logger="openai.agents"):
        asyncio.run(agents.openai_agents(_agent(server))("Is order 9 in?", context()))
    assert any("no order 9" in record.getMessage() for record in caplog.records)
    assert sdk.handlers == before and logging.getLogger("agents").handlers == []


def test_a_failed_tool_prints_nothing_when_logging_is_not_configured(server, monkeypatch):
    from agents import _debug

    monkeypatch.setattr(_debug, "DONT_LOG_TOOL_DATA", False)  # the SDK then logs a traceback
    printed = io.StringIO()
    # As in a fresh process: no handler anywhere, so Python's last resort prints to stderr.
    monkeypatch.setattr(logging.root, "handlers", [])
    monkeypatch.setattr(logging, "lastResort", logging.StreamHandler(printed))
    outcome = asyncio.run(agents.openai_agents(_agent(server))("Is order 9 in?", context()))
    assert "no order 9" in outcome.actions[0].error and printed.getvalue() == ""
    logging.getLogger("openai.agents").error("after the sample")
    assert printed.getvalue() == "after the sample\n"  # outside a sample, as ever
