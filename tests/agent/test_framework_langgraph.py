"""LangGraph graphs run as they are: LangChain's ChatOpenAI over real HTTP."""

import asyncio

import pytest
from langchain_core.messages import RemoveMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer
from framework_script import CONVERSATION, context, http_client, lookup_order, script

TOOLS = [tool(lookup_order)]


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(script) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    opened = Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    yield opened
    opened.close()


def _chat(server, model):
    return ChatOpenAI(
        model=model, base_url=server.base_url, api_key="test", http_async_client=http_client()
    )


def _graph(server, *, handle_tool_errors=False, checkpointer=None, forget=False, pick=None):
    """A hand-built ReAct loop whose model is the one ``config["configurable"]`` names.

    ``forget`` ends it on a node that removes the tool calls and results from the state;
    ``pick`` chooses the model from the state's messages instead.
    """

    async def respond(state: MessagesState, config: RunnableConfig):
        name = config.get("configurable", {}).get("model", "gpt-4.1-mini")
        if pick is not None:
            name = pick(state["messages"])
        reply = await _chat(server, name).bind_tools(TOOLS).ainvoke(state["messages"])
        return {"messages": [reply]}

    def forgetting(state: MessagesState):
        used = [m for m in state["messages"] if m.type == "tool" or getattr(m, "tool_calls", None)]
        return {"messages": [RemoveMessage(id=m.id) for m in used]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", respond)
    graph.add_node("tools", ToolNode(TOOLS, handle_tool_errors=handle_tool_errors))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: "forget"})
    graph.add_edge("tools", "model")
    graph.add_node("forget", forgetting if forget else lambda state: {"messages": []})
    graph.add_edge("forget", END)
    return graph.compile(checkpointer=checkpointer)


def test_a_tool_calling_run_is_stored_with_its_actions_tokens_model_and_cost(server, db):
    agent = agents.langgraph(_graph(server), action_groups={"lookup_order": "orders"})
    suite = assay.Suite("langgraph", agent=agent, checks=[checks.actions()])
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


def test_a_prebuilt_agent_whose_tool_raises_stops_at_that_errored_call(server):
    with pytest.deprecated_call(match="create_react_agent has been moved"):
        graph = create_react_agent(_chat(server, "gpt-4.1-mini"), TOOLS, prompt="Be brief.")
    outcome = asyncio.run(agents.langgraph(graph)("Where is order 9?", context()))
    assert outcome.answer is None and outcome.error == "KeyError: 'no order 9'"
    assert [(a.arguments, a.error) for a in outcome.actions] == [({"order_id": 9}, outcome.error)]
    assert outcome.usage.input_tokens == 1000  # the turn before it stopped


def test_a_tool_error_the_graph_handed_the_model_is_an_errored_call(server):
    agent = agents.langgraph(_graph(server, handle_tool_errors=True))
    outcome = asyncio.run(agent("Where is order 9?", context()))
    assert outcome.answer == "Done: Where is order 9?" and outcome.error is None
    (failed,) = outcome.actions
    assert "no order 9" in failed.error


def test_a_message_list_input_becomes_langchain_messages(server):
    agent = agents.langgraph(_graph(server))
    start = len(server.requests)
    outcome = asyncio.run(agent(CONVERSATION, context()))
    sent = server.requests[start]["messages"]
    assert outcome.answer == "Done: Is order 42 late?"
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[1]["tool_calls"][0]["function"]["name"] == "lookup_order"
    assert outcome.actions == () and outcome.usage.input_tokens == 1000


def test_each_sample_hands_its_model_to_a_graph_that_reads_it(server, db):
    agent = agents.langgraph(_graph(server), model_key="model")
    suite = assay.Suite("matrix", agent=agent, checks=[checks.contains("Done")])
    suite.case("Hello?")
    start = len(server.requests)
    run = assay.run(suite, db=db, models=["gpt-4.1-mini", "gpt-4.1"], progress=False)
    assert sorted(r["model"] for r in server.requests[start:]) == ["gpt-4.1", "gpt-4.1-mini"]
    assert {s.model: s.metadata["answered_model"] for s in run.samples} == {
        "gpt-4.1-mini": "gpt-4.1-mini",
        "gpt-4.1": "gpt-4.1",
    }
    assert all(s.status.value == "passed" for s in run.samples)


def test_a_model_matrix_on_a_graph_with_a_fixed_model_is_refused(server, db):
    suite = assay.Suite("fixed", agent=agents.langgraph(_graph(server)), checks=[])
    suite.case("Hello?")
    with pytest.raises(assay.ConfigurationError, match="model_key="):
        assay.run(suite, db=db, models=["gpt-4.1-mini", "gpt-4.1"], progress=False)
    assert db.history() == []


def test_one_asked_model_the_graph_did_not_call_is_an_error_not_a_verdict(server, db):
    suite = assay.Suite("fixed", agent=agents.langgraph(_graph(server)), checks=[])
    suite.case("Hello?")
    run = assay.run(suite, db=db, models=["gpt-4.1"], progress=False)
    (sample,) = run.samples
    assert sample.status.value == "error" and "gpt-4.1-mini" in sample.error


def test_samples_on_a_checkpointed_graph_each_start_on_a_thread_of_their_own(server, db):
    saver = MemorySaver()
    config = {"configurable": {"thread_id": "eval"}}  # what a checkpointed graph needs
    graph = _graph(server, checkpointer=saver)
    agent = agents.langgraph(graph, config=config, action_groups={"lookup_order": "orders"})
    suite = assay.Suite("threads", agent=agent, checks=[checks.actions()])
    lookup = {"group": "orders", "name": "lookup_order", "arguments": {"order_id": 42}}
    suite.case("Where is order 42?", expected_actions=[lookup])
    suite.case("Hello there, no orders", expected_actions=[])
    run = assay.run(suite, db=db, samples=2, concurrency=1, progress=False)
    for sample in db.get_run(run.id).samples:
        assert sample.status.value == "passed", sample
        assert sample.answer == f"Done: {sample.case_id}"
        ordered = sample.case_id == "Where is order 42?"
        assert len(sample.actions) == (1 if ordered else 0)
        assert sample.usage.input_tokens == (2000 if ordered else 1000)
    threads = {c.config["configurable"]["thread_id"] for c in saver.list(None)}
    assert len(threads) == 4 and "eval" not in threads


def test_a_call_the_graph_removed_from_its_state_is_still_an_action(server):
    agent = agents.langgraph(_graph(server, forget=True))
    outcome = asyncio.run(agent("Where is order 42?", context()))
    assert outcome.answer == "Done: Where is order 42?"
    assert [(a.name, a.result) for a in outcome.actions] == [
        ("lookup_order", {"status": "shipped"})
    ]
    assert outcome.usage.input_tokens == 2000


def test_a_conversation_input_is_told_from_what_the_graph_added_by_id(server):
    agent = agents.langgraph(_graph(server, forget=True))
    outcome = asyncio.run(agent(CONVERSATION, context()))
    assert outcome.answer == "Done: Is order 42 late?" and outcome.actions == ()


def test_a_graph_whose_nodes_call_two_models_prices_each_at_its_own_rate(server, db):
    def pick(messages):  # a cheap model picks the tools, a larger one answers
        return "gpt-4o" if any(m.type == "tool" for m in messages) else "gpt-4.1-nano"

    suite = assay.Suite("two-models", agent=agents.langgraph(_graph(server, pick=pick)), checks=[])
    suite.case("Where is order 42?")
    run = assay.run(suite, db=db, progress=False)
    stored = db.get_run(run.id).samples[0]
    assert "model" not in stored.metadata and stored.metadata["answered_model"] == "gpt-4o"
    assert stored.metadata["model_usage"] == {
        "gpt-4.1-nano": {"input_tokens": 1000, "output_tokens": 100},
        "gpt-4o": {"input_tokens": 1000, "output_tokens": 5},
    }
    nano, large = (1000 * 0.1 + 100 * 0.4) / 1e6, (1000 * 2.5 + 5 * 10) / 1e6
    assert stored.usage.cost_source == "estimated"
    assert stored.usage.cost_usd == pytest.approx(nano + large)
