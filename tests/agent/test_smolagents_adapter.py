"""assay_agents.agents.smolagents against the real smolagents package over real HTTP.

The scripted server answers by the task a request carries and by how many tool calls it
already holds (smolagents merges consecutive turns of one role, so turns are counted by the
calls and tool errors it reports), so samples running concurrently each get their own conversation.
"""

import pytest
from smolagents import CodeAgent, OpenAIServerModel, ToolCallingAgent, tool

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.testing import ScriptedServer, reply, streamed, tool_calls

SCRIPTS = {
    "order 42": [
        tool_calls(("lookup_order", {"order_id": 42}), input_tokens=1000, output_tokens=100),
        tool_calls(("refund", {"order_id": 42}), input_tokens=1000, output_tokens=100),
        tool_calls(("cancel", {"order_id": 42}), input_tokens=1000, output_tokens=100),
        tool_calls(
            ("final_answer", {"answer": "Order 42 has shipped; no refund."}),
            input_tokens=1000,
            output_tokens=100,
        ),
    ],
    "hello": [tool_calls(("final_answer", {"answer": "Hello!"}), input_tokens=10, output_tokens=2)],
    "loop forever": [
        tool_calls(("lookup_order", {"order_id": 7}), input_tokens=10, output_tokens=1)
    ]
    * 3,
}


def script(body):
    text = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
    told = " ".join(str(m.get("content")) for m in body["messages"])
    # A call that raised is not written back as a call, only as its error.
    turn = told.count("Calling tools:") + told.count("Error executing tool")
    for key, turns in SCRIPTS.items():
        if key in text:
            # Asked without tools, smolagents wants a summary of a run that hit its step limit.
            return turns[turn] if body.get("tools") else reply("Order 7 has shipped.")
    return reply("unscripted")


@pytest.fixture(scope="module")
def server():
    with ScriptedServer(script) as running:
        yield running


@pytest.fixture(scope="module")
def model(server):
    # One client for the module, closed at its end: a client per agent would leave sockets.
    made = OpenAIServerModel(model_id="gpt-4.1-mini", api_base=server.base_url, api_key="test")
    yield made
    made.client.close()


@tool
def lookup_order(order_id: int) -> dict:
    """Find an order by its number.

    Args:
        order_id: the order's number
    """
    return {"status": "shipped"}


@tool
def refund(order_id: int) -> dict:
    """Refund an order.

    Args:
        order_id: the order's number
    """
    raise PermissionError("refund window closed")


@tool
def cancel(order_id: int) -> dict:
    """Cancel an order.

    Args:
        order_id: the order's number
    """
    return {"error": "already shipped"}


def build(model):
    return ToolCallingAgent(tools=[lookup_order, refund, cancel], model=model, verbosity_level=-1)


def test_a_tool_loop_is_stored_with_its_actions_tokens_model_and_cost(model, store):
    groups = {"lookup_order": "orders", "refund": "changes", "cancel": "changes"}
    agent = agents.smolagents(build(model), action_groups=groups)
    suite = assay.Suite("smolagents support", agent=agent, checks=[checks.contains("shipped")])
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
    ]  # final_answer is the answer, not an action
    looked, refunded, cancelled = sample.actions
    assert looked.result == {"status": "shipped"} and looked.error is None
    assert refunded.error == "PermissionError: refund window closed"
    assert cancelled.result == {"error": "already shipped"}
    assert cancelled.error == "already shipped"
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (4000, 400)
    assert sample.metadata["answered_model"] == "gpt-4.1-mini"
    assert sample.usage.cost_source == "estimated" and sample.usage.cost_usd == pytest.approx(
        4000 * 0.4e-6 + 400 * 1.6e-6
    )


def test_each_samples_model_is_called_and_recorded(model, store):
    agent = agents.smolagents(lambda: build(model))
    suite = assay.Suite("smolagents matrix", agent=agent, checks=[checks.contains("Hello")])
    suite.case("Say hello")
    run = assay.run(suite, db=store, models=["gpt-4.1-mini", "gpt-4.1"], samples=2, progress=False)
    answered = sorted((s.model, s.metadata["answered_model"]) for s in run.samples)
    assert answered == [("gpt-4.1", "gpt-4.1")] * 2 + [("gpt-4.1-mini", "gpt-4.1-mini")] * 2
    assert all(s.usage.cost_source == "estimated" for s in run.samples)


def test_one_agent_object_serves_a_model_matrix_without_changing_the_users_model(model, store):
    own = build(model)
    suite = assay.Suite("smolagents shared", agent=agents.smolagents(own))
    suite.case("Say hello", checks=[checks.contains("Hello")])
    run = assay.run(suite, db=store, models=["gpt-4.1"], samples=3, progress=False)
    assert {s.metadata["answered_model"] for s in run.samples} == {"gpt-4.1"}
    assert own.model.model_id == "gpt-4.1-mini"


def test_a_message_list_reaches_the_agent_as_its_task(store):
    seen = []

    def recording(body):
        seen.append(body["messages"])
        return script(body)

    with ScriptedServer(recording) as local:
        own = OpenAIServerModel(model_id="gpt-4.1-mini", api_base=local.base_url, api_key="t")
        agent = agents.smolagents(build(own))
        suite = assay.Suite("smolagents messages", agent=agent)
        conversation = [
            {"role": "user", "content": "My order is 42."},
            {"role": "assistant", "content": "Thanks, noted."},
            {"role": "user", "content": [{"type": "text", "text": "Say hello"}]},
        ]
        suite.case(conversation, checks=[checks.contains("Hello")])
        run = assay.run(suite, db=store, progress=False)
        own.client.close()
    assert run.samples[0].answer == "Hello!" and run.samples[0].error is None
    task = str(seen[0][-1]["content"])
    assert "user: My order is 42." in task and "assistant: Thanks, noted." in task
    assert "Say hello" in task and "'role'" not in task


def test_a_model_that_cannot_be_switched_refuses_a_model_matrix(store):
    from smolagents.models import Model

    class Fixed(Model):
        def generate(self, *args, **kwargs):
            raise AssertionError("never called: the run is refused first")

    agent = agents.smolagents(
        CodeAgent(tools=[], model=Fixed(model_id="local"), verbosity_level=-1)
    )
    suite = assay.Suite("smolagents fixed", agent=agent)
    suite.case("Say hello", checks=[checks.contains("Hello")])
    with pytest.raises(assay.ConfigurationError, match=r"cannot be switched.*'openai/gpt-4\.1'"):
        assay.run(suite, db=store, models=["openai/gpt-4.1"], progress=False)


def test_a_run_stopped_by_the_step_limit_is_an_error_with_its_actions(model, store):
    agent = ToolCallingAgent(tools=[lookup_order], model=model, max_steps=2, verbosity_level=-1)
    suite = assay.Suite("smolagents limit", agent=agents.smolagents(agent))
    suite.case("loop forever on order 7", checks=[checks.contains("shipped")])
    sample = assay.run(suite, db=store, progress=False).samples[0]
    assert sample.status.value == "error"
    assert "max_steps=2" in sample.error
    assert [a.name for a in sample.actions] == ["lookup_order"] * 2
    assert sample.usage.input_tokens > 20  # the two steps and the summary call


def test_streamed_replies_without_usage_leave_usage_unknown(store):
    answer = streamed(None, ("final_answer", {"answer": "Hello!"}), usage=False)
    with ScriptedServer(lambda body: answer) as local:
        own = OpenAIServerModel(model_id="gpt-4.1-mini", api_base=local.base_url, api_key="t")
        agent = ToolCallingAgent(tools=[], model=own, verbosity_level=-1, stream_outputs=True)
        suite = assay.Suite("smolagents no usage", agent=agents.smolagents(agent))
        suite.case("Say hello", checks=[checks.contains("Hello")])
        sample = assay.run(suite, db=store, progress=False).samples[0]
        own.client.close()
    assert sample.answer == "Hello!" and sample.usage is None


@pytest.mark.parametrize(
    "models",
    [["openai/gpt-4.1", "azure/gpt-4.1"], ["openai/gpt-4.1", "anthropic/gpt-4.1"]],
)
def test_an_endpoint_model_refuses_models_of_several_providers(model, store, models):
    suite = assay.Suite("smolagents providers", agent=agents.smolagents(lambda: build(model)))
    suite.case("Say hello", checks=[checks.contains("Hello")])
    with pytest.raises(assay.ConfigurationError, match=r"'azure/gpt-4\.1'|'anthropic/gpt-4\.1'"):
        assay.run(suite, db=store, models=models, progress=False)


def test_the_openai_api_model_refuses_another_providers_model(store):
    own = OpenAIServerModel(model_id="gpt-4.1-mini", api_key="t")
    suite = assay.Suite("smolagents openai", agent=agents.smolagents(build(own)))
    suite.case("Say hello")
    with pytest.raises(assay.ConfigurationError, match=r"reaches openai.*'anthropic/claude"):
        assay.run(suite, db=store, models=["anthropic/claude-sonnet-4"], progress=False)


def test_a_build_function_returning_one_shared_agent_is_refused(model, store):
    shared = build(model)
    suite = assay.Suite("smolagents one agent", agent=agents.smolagents(lambda: shared))
    suite.case("Say hello", checks=[checks.contains("Hello")])
    with pytest.raises(assay.ConfigurationError, match=r"<lambda>.*same agent"):
        assay.run(suite, db=store, progress=False)


def test_something_else_is_refused_with_what_is_expected():
    with pytest.raises(assay.SpecError, match="not a smolagents agent"):
        agents.smolagents("agent")
