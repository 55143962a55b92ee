"""pydantic-ai agents run as they are: its own OpenAI model classes over real HTTP."""

import asyncio

import httpx
import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

import assay
from assay import agents, checks
from assay.store import Store
from assay.testing import ScriptedServer, reply, tool_calls
from assay.testing.server import responses_reply, responses_tool_calls

ORDERS = {42: {"status": "shipped"}, 7: {"error": "the order service is down"}}


def lookup_order(order_id: int) -> dict:
    """Find an order by its number."""
    if order_id not in ORDERS:
        raise KeyError(f"no order {order_id}")
    return ORDERS[order_id]


def _script(body):
    """Answers per conversation: the question picks the calls; tool results end the turn."""
    chat = body.get("messages") or body.get("input") or []
    question = next(m.get("content") for m in chat if m.get("role") == "user")
    answered = any(m.get("role") == "tool" or m.get("type") == "function_call_output" for m in chat)
    responses = "input" in body
    if answered or "hello" in str(question).lower():
        text = f"Done: {question}"
        return responses_reply(text) if responses else reply(text, input_tokens=1000)
    calls = [("lookup_order", {"order_id": n}) for n in _orders(str(question))]
    if responses:
        return responses_tool_calls(*calls)
    return tool_calls(*calls, input_tokens=1000, output_tokens=100)


def _orders(question: str) -> list[int]:
    return [int(word) for word in question.replace("?", " ").split() if word.isdigit()]


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(_script) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    opened = Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    yield opened
    opened.close()


def _agent(server, kind=OpenAIChatModel, name="gpt-4.1-mini"):
    provider = OpenAIProvider(base_url=server.base_url, api_key="test", http_client=_http())
    return Agent(kind(name, provider=provider), tools=[lookup_order], instructions="Be brief.")


def _http():
    # No connection outlives a request: each run's event loop closes with the run.
    return httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))


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
    assert stored.usage.cost_source == "estimated" and stored.usage.cost_usd == pytest.approx(
        (2000 * 0.4 + 105 * 1.6) / 1e6
    )


def test_a_tool_that_raises_is_the_errored_call_that_stopped_the_run(server):
    agent = agents.pydantic_ai(_agent(server))
    outcome = asyncio.run(agent("Where are orders 42 and 9?", _context()))
    assert outcome.answer is None and "KeyError" in outcome.error
    assert [(a.arguments["order_id"], a.error) for a in outcome.actions] == [
        (42, None),
        (9, outcome.error),
    ]
    assert outcome.usage.input_tokens == 1000  # the one response before it stopped


def test_a_message_list_input_becomes_pydantic_ais_own_history(server):
    agent = agents.pydantic_ai(_agent(server))
    start = len(server.requests)
    conversation = [
        {"role": "user", "content": "Is order 42 late?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order_id": 42}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": '{"status": "shipped"}'},
        {"role": "assistant", "content": "It has shipped."},
        {"role": "user", "content": "Hello again"},
    ]
    outcome = asyncio.run(agent(conversation, _context()))
    sent = server.requests[start]["messages"]
    assert outcome.answer == "Done: Is order 42 late?"
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "lookup_order"
    assert sent[-1]["content"] == "Hello again"
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
    outcome = asyncio.run(agent("Where is order 42?", _context("gpt-4.1")))
    assert "input" in server.requests[start] and _sent(server, start) == ["gpt-4.1"] * 2
    assert outcome.answer == "Done: Where is order 42?"
    assert [a.result for a in outcome.actions] == [{"status": "shipped"}]
    assert outcome.metadata["answered_model"] == "gpt-4.1"


def test_a_model_the_agent_cannot_be_pointed_at_is_refused_before_the_run(server, db):
    from pydantic_ai.models.function import FunctionModel

    fixed = Agent(FunctionModel(lambda messages, info: None))
    suite = assay.Suite("fixed", agent=agents.pydantic_ai(fixed), checks=[checks.contains("x")])
    suite.case("Hello?")
    with pytest.raises(assay.ConfigurationError, match="model_for="):
        assay.run(suite, db=db, models=["gpt-4.1"], progress=False)


def _context(model=None):
    suite = assay.Suite("S", agent=lambda text, ctx: "")
    case = suite.case("q")
    spec = None if model is None else assay.ModelSpec.parse(model)
    return assay.AgentContext(case=case, model=spec, sample=0, setup=None)
