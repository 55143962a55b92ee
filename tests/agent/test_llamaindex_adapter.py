"""assay_agents.agents.llamaindex against the real LlamaIndex packages over real HTTP.

The scripted server answers by the question a request carries and by how many assistant turns
it already holds, so samples running concurrently each get their own conversation. Replies
are streamed, as LlamaIndex's agents ask for them by default.
"""

import dataclasses

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.llms.mock import MockLLM
from llama_index.llms.openai import OpenAI

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.testing import ScriptedServer, reply, streamed, tool_calls

SCRIPTS = {
    "order 42": [
        streamed(
            None,
            ("lookup_order", {"order_id": 42}),
            ("refund", {"order_id": 42}),
            input_tokens=1000,
            output_tokens=100,
        ),
        streamed(None, ("cancel", {"order_id": 42}), input_tokens=1000, output_tokens=100),
        streamed("Order 42 has shipped; no refund.", input_tokens=1000, output_tokens=100),
    ],
    "hello": [streamed("Hello!", input_tokens=10, output_tokens=2)],
    "unstreamed": [
        tool_calls(("lookup_order", {"order_id": 42}), input_tokens=300, output_tokens=30),
        reply("It has shipped.", input_tokens=400, output_tokens=40),
    ],
    "no usage": [
        streamed(None, ("lookup_order", {"order_id": 42}), input_tokens=100, output_tokens=10),
        streamed("It has shipped.", usage=False),
    ],
    "loop forever": [tool_calls(("lookup_order", {"order_id": 7}))] * 20
    + [reply("Order 7 has shipped.")],
    "react question": [
        streamed(
            'Thought: I need the order.\nAction: lookup_order\nAction Input: {"order_id": 42}',
            input_tokens=500,
            output_tokens=50,
        ),
        streamed(
            "Thought: I can answer.\nAnswer: It has shipped.", input_tokens=600, output_tokens=60
        ),
    ],
}


def script(body):
    text = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    # A turn per round of tool calls; ReAct hands results back as text.
    turn = sum(1 for m in body["messages"] if m.get("tool_calls")) + text.count("Observation:")
    found = next((turns[turn] for key, turns in SCRIPTS.items() if key in text), None)
    response = found or reply("unscripted")
    # The LLM's clients live as long as it does: closing each connection after its reply
    # leaves no socket open for the garbage collector to find.
    return dataclasses.replace(response, headers={**response.headers, "connection": "close"})


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(script) as running:
        yield running


def lookup_order(order_id: int) -> dict:
    """Find an order by its number."""
    return {"status": "shipped"}


def refund(order_id: int) -> dict:
    """Refund an order."""
    raise PermissionError("refund window closed")


def cancel(order_id: int) -> dict:
    """Cancel an order."""
    return {"error": "already shipped"}


def llm(server, **options):
    return OpenAI(model="gpt-4.1-mini", api_base=server.base_url, api_key="test", **options)


def function_agent(server, **options):
    return FunctionAgent(tools=[lookup_order, refund, cancel], llm=llm(server), **options)


def test_a_tool_loop_is_stored_with_its_actions_tokens_model_and_cost(server, store):
    own = function_agent(server)
    groups = {"lookup_order": "orders", "refund": "changes", "cancel": "changes"}
    agent = agents.llamaindex(own, action_groups=groups)
    suite = assay.Suite("llamaindex support", agent=agent, checks=[checks.contains("shipped")])
    expected = [
        {"group": groups[name], "name": name, "arguments": {"order_id": 42}}
        for name in ("lookup_order", "refund", "cancel")
    ]
    suite.case("Where is order 42?", expected_actions=expected)
    run = assay.run(suite, db=store, progress=False)
    sample = store.get_run(run.id).samples[0]
    assert sample.status.value == "passed"
    assert sample.answer == "Order 42 has shipped; no refund."
    assert [(a.group, a.name, a.arguments) for a in sample.actions] == [
        ("orders", "lookup_order", {"order_id": 42}),
        ("changes", "refund", {"order_id": 42}),
        ("changes", "cancel", {"order_id": 42}),
    ]
    looked, refunded, cancelled = sample.actions
    assert looked.result == {"status": "shipped"} and looked.error is None
    assert refunded.error == "PermissionError: refund window closed"
    assert cancelled.result == {"error": "already shipped"}
    assert cancelled.error == "already shipped"
    # The streamed replies carry usage because the adapter asked for it, on its own copy.
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (3000, 300)
    assert sample.metadata["answered_model"] == "gpt-4.1-mini"
    assert sample.usage.cost_source == "estimated" and sample.usage.cost_usd == pytest.approx(
        3000 * 0.4e-6 + 300 * 1.6e-6
    )
    assert "stream_options" not in own.llm.additional_kwargs


def test_streamed_usage_is_asked_for_on_every_streamed_call(store):
    asked = []

    def recording(body):
        asked.append(body.get("stream_options"))
        return script(body)

    with ScriptedServer(recording) as local:
        suite = assay.Suite("llamaindex usage", agent=agents.llamaindex(function_agent(local)))
        suite.case("Where is order 42?", checks=[checks.contains("shipped")])
        run = assay.run(suite, db=store, progress=False)
    assert asked == [{"include_usage": True}] * 3
    assert run.samples[0].usage.input_tokens == 3000


def test_an_unstreamed_agent_counts_each_reply_once(server, store):
    agent = agents.llamaindex(function_agent(server, streaming=False))
    suite = assay.Suite("llamaindex unstreamed", agent=agent)
    suite.case("Where is the unstreamed order?", checks=[checks.contains("shipped")])
    sample = assay.run(suite, db=store, progress=False).samples[0]
    assert [a.name for a in sample.actions] == ["lookup_order"]
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (700, 70)


def test_each_samples_model_is_called_and_recorded(server, store):
    suite = assay.Suite("llamaindex matrix", agent=agents.llamaindex(function_agent(server)))
    suite.case("Say hello", checks=[checks.contains("Hello")])
    run = assay.run(suite, db=store, models=["gpt-4.1-mini", "gpt-4.1"], samples=2, progress=False)
    answered = sorted((s.model, s.metadata["answered_model"]) for s in run.samples)
    assert answered == [("gpt-4.1", "gpt-4.1")] * 2 + [("gpt-4.1-mini", "gpt-4.1-mini")] * 2
    assert all(s.status.value == "passed" for s in run.samples)


def test_a_message_list_becomes_the_agents_chat_history(store):
    seen = []

    def recording(body):
        seen.append(body["messages"])
        return script(body)

    with ScriptedServer(recording) as local:
        suite = assay.Suite("llamaindex messages", agent=agents.llamaindex(function_agent(local)))
        conversation = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "My order is 42."},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": [{"type": "text", "text": "Say hello"}]},
        ]
        suite.case(conversation, checks=[checks.contains("Hello")])
        run = assay.run(suite, db=store, progress=False)
    assert run.samples[0].answer == "Hello!"
    assert [(m["role"], m["content"]) for m in seen[0]] == [
        ("system", "Be brief."),
        ("user", "My order is 42."),
        ("assistant", "Noted."),
        ("user", "Say hello"),
    ]


def test_a_react_agent_is_read_from_the_same_events(server, store):
    agent = agents.llamaindex(ReActAgent(tools=[lookup_order], llm=llm(server)))
    suite = assay.Suite("llamaindex react", agent=agent)
    suite.case("A react question: where is it?", checks=[checks.contains("shipped")])
    sample = assay.run(suite, db=store, progress=False).samples[0]
    assert sample.answer == "It has shipped."
    assert [(a.name, a.arguments, a.result) for a in sample.actions] == [
        ("lookup_order", {"order_id": 42}, {"status": "shipped"})
    ]
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (1100, 110)


def test_an_llm_that_names_no_model_refuses_a_model_matrix(store):
    agent = agents.llamaindex(ReActAgent(tools=[lookup_order], llm=MockLLM()))
    suite = assay.Suite("llamaindex fixed", agent=agent)
    suite.case("Say hello", checks=[checks.contains("Hello")])
    with pytest.raises(assay.ConfigurationError, match=r"cannot be switched.*'openai/gpt-4\.1'"):
        assay.run(suite, db=store, models=["openai/gpt-4.1"], progress=False)


def test_a_reply_without_usage_leaves_the_samples_usage_unknown(server, store):
    suite = assay.Suite("llamaindex no usage", agent=agents.llamaindex(function_agent(server)))
    suite.case("Where is the no usage order?", checks=[checks.contains("shipped")])
    sample = assay.run(suite, db=store, progress=False).samples[0]
    assert sample.answer == "It has shipped." and sample.usage is None


@pytest.mark.parametrize("stopping", ["force", "generate"])
def test_a_run_stopped_by_the_iteration_limit_is_an_error_with_its_actions(server, store, stopping):
    agent = function_agent(server, streaming=False, early_stopping_method=stopping)
    suite = assay.Suite("llamaindex limit", agent=agents.llamaindex(agent))
    suite.case("loop forever on order 7", checks=[checks.contains("shipped")])
    sample = assay.run(suite, db=store, progress=False).samples[0]
    assert sample.status.value == "error" and "20" in sample.error
    assert "iteration" in sample.error.lower()
    assert {a.name for a in sample.actions} == {"lookup_order"} and len(sample.actions) >= 19


@pytest.mark.parametrize(
    ("models", "refused"),
    [
        (["openai/gpt-4.1", "azure/gpt-4.1", "openrouter/gpt-4.1"], "'azure/gpt-4.1', 'openrouter"),
        (["anthropic/claude-sonnet-4"], "'anthropic/claude-sonnet-4'"),
    ],
)
def test_the_openai_llm_refuses_models_of_another_provider(server, store, models, refused):
    suite = assay.Suite("llamaindex providers", agent=agents.llamaindex(function_agent(server)))
    suite.case("Say hello", checks=[checks.contains("Hello")])
    with pytest.raises(assay.ConfigurationError, match=rf"OpenAI\) reaches openai.*{refused}"):
        assay.run(suite, db=store, models=models, progress=False)
    assert all(r["model"] != "claude-sonnet-4" for r in server.requests)


def test_an_llm_of_the_users_own_endpoint_refuses_models_of_several_providers(server, store):
    class OwnEndpoint(OpenAI):
        """An LLM class of the user's own, as OpenAILike is: its provider is theirs to know."""

    own = OwnEndpoint(model="qwen3:8b", api_base=server.base_url, api_key="t")
    agent = agents.llamaindex(FunctionAgent(tools=[lookup_order], llm=own))
    suite = assay.Suite("llamaindex endpoint", agent=agent)
    suite.case("Say hello", checks=[checks.contains("Hello")])
    refused = r"one endpoint.*'openai/gpt-4.1' \(openai\)"
    with pytest.raises(assay.ConfigurationError, match=refused):
        assay.run(suite, db=store, models=["qwen3:8b", "openai/gpt-4.1"], progress=False)


def test_something_else_is_refused_with_what_is_expected():
    with pytest.raises(assay.SpecError, match="not a LlamaIndex agent"):
        agents.llamaindex(object())
