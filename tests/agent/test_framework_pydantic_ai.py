"""pydantic-ai agents run as they are: its own OpenAI model classes over real HTTP."""

import asyncio

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer
from assay_agents.testing.server import failure
from framework_script import CONVERSATION, context, http_client, lookup_order, script


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(script) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    opened = Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    yield opened
    opened.close()


def _agent(server, kind=OpenAIChatModel, name="gpt-4.1-mini", tools=(lookup_order,)):
    provider = OpenAIProvider(base_url=server.base_url, api_key="test", http_client=http_client())
    return Agent(kind(name, provider=provider), tools=list(tools), instructions="Be brief.")


def _sent(server, since):
    return [request.get("model") for request in server.requests[since:]]


def test_a_tool_calling_run_is_stored_with_its_actions_tokens_model_and_cost(server, db):
    agent = agents.pydantic_ai(_agent(server), action_groups={"lookup_order": "orders"})
    suite = assay.Suite("pydantic-ai", agent=agent, checks=[checks.actions()])
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
    assert stored.metadata["model"] == stored.metadata["answered_model"] == "gpt-4.1-mini"
    assert stored.usage.cost_source == "estimated"
    assert stored.usage.cost_usd == pytest.approx((2000 * 0.4 + 105 * 1.6) / 1e6)


def test_a_tool_that_raises_is_the_errored_call_that_stopped_the_run(server):
    agent = agents.pydantic_ai(_agent(server))
    outcome = asyncio.run(agent("Where is order 9?", context()))
    assert outcome.answer is None and outcome.error == "KeyError: 'no order 9'"
    assert [(a.arguments, a.error) for a in outcome.actions] == [({"order_id": 9}, outcome.error)]
    assert outcome.usage.input_tokens == 1000  # the one response before it stopped
    asked = [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Order 9?"}]
    after_history = asyncio.run(agent(asked, context()))
    assert [a.error for a in after_history.actions] == [outcome.error]


def test_a_tool_asking_for_a_retry_is_a_failed_call(server):
    def lookup_order(order_id: int) -> dict:
        """Find an order by its number."""
        raise ModelRetry("try the customer's other order")

    agent = agents.pydantic_ai(_agent(server, tools=[lookup_order]))
    outcome = asyncio.run(agent("Where is order 5?", context()))
    assert outcome.answer == "Done: Where is order 5?"
    assert "try the customer's other order" in outcome.actions[0].error


def test_a_message_list_input_becomes_pydantic_ais_own_history(server):
    agent = agents.pydantic_ai(_agent(server))
    start = len(server.requests)
    outcome = asyncio.run(agent(CONVERSATION, context()))
    sent = server.requests[start]["messages"]
    assert outcome.answer == "Done: Is order 42 late?"
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "lookup_order"
    assert sent[-1]["content"] == "Thanks, and hello again"
    assert outcome.actions == ()  # the input's calls were not this run's
    assert outcome.usage.input_tokens == 1000


def test_each_sample_runs_on_the_model_the_run_asks_for(server, db):
    agent = agents.pydantic_ai(_agent(server, name="house-model"))
    suite = assay.Suite("matrix", agent=agent, checks=[checks.contains("Done")])
    suite.case("Hello?")
    start = len(server.requests)
    run = assay.run(suite, db=db, models=["gpt-4.1-mini", "gpt-4.1"], progress=False)
    assert sorted(_sent(server, start)) == ["gpt-4.1", "gpt-4.1-mini"]
    by_model = {s.model: s for s in run.samples}
    assert {m: s.metadata["answered_model"] for m, s in by_model.items()} == {
        "gpt-4.1-mini": "gpt-4.1-mini",
        "gpt-4.1": "gpt-4.1",
    }
    assert all(s.status.value == "passed" for s in run.samples)


def test_the_responses_model_is_kept_when_the_model_changes(server):
    agent = agents.pydantic_ai(_agent(server, kind=OpenAIResponsesModel))
    start = len(server.requests)
    outcome = asyncio.run(agent("Where is order 42?", context("gpt-4.1")))
    assert "input" in server.requests[start] and _sent(server, start) == ["gpt-4.1"] * 2
    assert outcome.answer == "Done: Where is order 42?"
    assert [a.result for a in outcome.actions] == [{"status": "shipped"}]
    assert outcome.metadata["answered_model"] == "gpt-4.1"


def test_a_model_the_agent_cannot_be_pointed_at_is_refused_before_the_run(db):
    from pydantic_ai.models.function import FunctionModel

    fixed = Agent(FunctionModel(lambda messages, info: None))
    suite = assay.Suite("fixed", agent=agents.pydantic_ai(fixed), checks=[checks.contains("x")])
    suite.case("Hello?")
    with pytest.raises(assay.ConfigurationError, match="model_for="):
        assay.run(suite, db=db, models=["gpt-4.1"], progress=False)


def test_the_agents_tools_are_the_roster_diagnosis_reads(server):
    from assay_agents.evaluation.diagnosis import roster_of

    suite = assay.Suite("roster", agent=agents.pydantic_ai(_agent(server)))
    assert roster_of(suite).tools == {"lookup_order": "Find an order by its number."}


def _flaky(body):
    """The shared script, except that gpt-4.1-nano fails once a tool result is in."""
    done = any(m.get("role") == "tool" for m in body.get("messages", []))
    if body.get("model") == "gpt-4.1-nano" and done:
        return failure(503, "overloaded")
    return script(body)


def test_a_run_a_fallback_model_finished_prices_each_models_tokens_at_its_own_rate(db):
    from openai import AsyncOpenAI
    from pydantic_ai.models.fallback import FallbackModel

    with ScriptedServer(_flaky) as flaky:
        client = AsyncOpenAI(
            base_url=flaky.base_url, api_key="test", max_retries=0, http_client=http_client()
        )
        provider = OpenAIProvider(openai_client=client)
        both = [OpenAIChatModel(name, provider=provider) for name in ("gpt-4.1-nano", "gpt-4o")]
        agent = Agent(FallbackModel(*both), tools=[lookup_order])
        suite = assay.Suite("fallback", agent=agents.pydantic_ai(agent), checks=[])
        suite.case("Where is order 42?")
        run = assay.run(suite, db=db, progress=False)
    stored = db.get_run(run.id).samples[0]
    assert stored.answer == "Done: Where is order 42?"
    assert "model" not in stored.metadata and stored.metadata["answered_model"] == "gpt-4o"
    assert stored.metadata["model_usage"] == {
        "gpt-4.1-nano": {"input_tokens": 1000, "output_tokens": 100},
        "gpt-4o": {"input_tokens": 1000, "output_tokens": 5},
    }
    nano, large = (1000 * 0.1 + 100 * 0.4) / 1e6, (1000 * 2.5 + 5 * 10) / 1e6
    assert stored.usage.cost_source == "estimated"
    assert stored.usage.cost_usd == pytest.approx(nano + large)
