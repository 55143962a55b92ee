"""Chat adapters over real HTTP: the openai client and LiteLLM against a scripted server."""

import asyncio

import pytest

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.agent.adapters.optional import import_litellm
from assay_agents.testing import ScriptedServer, reply, tool_calls

ORDERS = {42: {"status": "shipped"}}


def lookup_order(order_id: int) -> dict:
    """Find an order by its number."""
    if order_id not in ORDERS:
        raise KeyError(f"no order {order_id}")
    return ORDERS[order_id]


async def refund(order_id: int, amount: float = 0.0) -> dict:
    """Refund an order."""
    return {"refunded": order_id, "amount": amount}


def context(model=None):
    suite = assay.Suite("S", agent=lambda t, c: "")
    case = suite.case("q")
    spec = None if model is None else assay.ModelSpec.parse(model)
    return assay.AgentContext(case=case, model=spec, sample=0, setup=None)


def conversation():
    return [
        tool_calls(("lookup_order", {"order_id": 42}), input_tokens=100, output_tokens=10),
        tool_calls(
            ("lookup_order", {"order_id": 7}),
            ("refund", {"order_id": 42}),
            input_tokens=150,
            output_tokens=12,
        ),
        reply("Order 42 has shipped.", input_tokens=200, output_tokens=8),
    ]


def test_openai_chat_records_every_tool_call_in_order():
    agent = agents.openai_chat(
        tools={"lookup_order": lookup_order, "refund": refund},
        action_groups={"lookup_order": "orders"},
        instructions="Be brief.",
        api_key="test",
    )
    with ScriptedServer(conversation()) as server:
        agent.base_url = server.base_url
        outcome = asyncio.run(agent("Where is order 42?", context("openai/gpt-4.1-mini")))
        requests = server.requests
    assert outcome.answer == "Order 42 has shipped."
    assert [(a.group, a.name, a.arguments) for a in outcome.actions] == [
        ("orders", "lookup_order", {"order_id": 42}),
        ("orders", "lookup_order", {"order_id": 7}),
        (None, "refund", {"order_id": 42}),  # no group given: none invented
    ]
    assert outcome.actions[0].result == {"status": "shipped"} and not outcome.actions[0].error
    assert "KeyError" in outcome.actions[1].error
    assert outcome.actions[0].result_bytes == len('{"status": "shipped"}')
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (450, 30)
    assert requests[0]["model"] == "gpt-4.1-mini"
    assert requests[0]["messages"][0] == {"role": "system", "content": "Be brief."}
    schema = requests[0]["tools"][0]["function"]
    assert schema["name"] == "lookup_order"
    assert schema["description"] == "Find an order by its number."
    assert schema["parameters"]["properties"]["order_id"]["type"] == "integer"
    tool_messages = [m for m in requests[2]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 3 and "no order 7" in tool_messages[1]["content"]


def test_each_sample_is_a_fresh_conversation_and_turns_are_bounded():
    agent = agents.openai_chat(
        "fixed-model", tools={"lookup_order": lookup_order}, api_key="test", max_turns=2
    )
    with ScriptedServer(
        [tool_calls(("lookup_order", {"order_id": 42}))] * 2 + [reply("first"), reply("second")]
    ) as server:
        agent.base_url = server.base_url
        looping = asyncio.run(agent("q", context()))
        first = asyncio.run(agent("q1", context()))
        second = asyncio.run(agent("q2", context()))
        requests = server.requests
    assert looping.error and "2 turns" in looping.error and len(looping.actions) == 2
    assert (first.answer, second.answer) == ("first", "second")
    assert [m["content"] for m in requests[3]["messages"]] == ["q2"]
    assert first.metadata["model"] == "fixed-model"


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_litellm_chat_runs_the_same_loop():
    import_litellm()  # the dev extra installs it; imported offline
    with ScriptedServer(conversation()) as server:
        agent = agents.litellm_chat(
            "openai/scripted",
            tools={"lookup_order": lookup_order, "refund": refund},
            api_base=server.base_url,
            api_key="test",
        )
        outcome = asyncio.run(agent("Where is order 42?", context()))
    assert outcome.answer == "Order 42 has shipped."
    assert [a.name for a in outcome.actions] == ["lookup_order", "lookup_order", "refund"]
    assert outcome.usage.input_tokens == 450


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_litellm_chat_follows_each_samples_model(store):
    import_litellm()

    def support(body):
        return reply("refund approved" if body["model"] == "support-v1" else "no idea")

    with ScriptedServer(support) as server:
        agent = agents.litellm_chat(api_base=server.base_url, api_key="test")
        suite = assay.Suite("Routed", agent=agent, checks=[checks.contains("refund")])
        suite.case("Refund?")
        run = assay.run(
            suite, db=store, models=["openai/support-v1", "openai/support-v2"], progress=False
        )
        sent = sorted(request["model"] for request in server.requests)
    assert sent == ["support-v1", "support-v2"]
    answered = {s.model: (s.status.value, s.metadata["answered_model"]) for s in run.samples}
    assert answered == {
        "openai/support-v1": ("passed", "support-v1"),
        "openai/support-v2": ("failed", "support-v2"),
    }


def test_a_model_matrix_run_through_the_adapter_prices_tokens(store):
    def script(body):
        return reply(f"answered by {body['model']}", input_tokens=1000, output_tokens=100)

    with ScriptedServer(script) as server:
        agent = agents.openai_chat(base_url=server.base_url, api_key="test")
        suite = assay.Suite("Matrix", agent=agent, checks=[checks.contains("answered")])
        suite.case("Hello?")
        run = assay.run(suite, db=store, models=["gpt-4.1-mini", "ollama/qwen3:8b"], progress=False)
    by_model = {s.model: s for s in run.samples}
    assert by_model["gpt-4.1-mini"].answer == "answered by gpt-4.1-mini"
    assert by_model["ollama/qwen3:8b"].answer == "answered by qwen3:8b"
    priced = by_model["gpt-4.1-mini"].usage
    assert priced.cost_source == "estimated" and priced.cost_usd == pytest.approx(0.00056)
    assert by_model["gpt-4.1-mini"].metadata["cost_rate"]["input"] == 0.4
    assert by_model["ollama/qwen3:8b"].usage.cost_usd is None  # unknown to the catalogue
    summary = run.summary.by_model["gpt-4.1-mini"]
    assert summary.estimated == 1 and summary.cost_per_1000_usd == pytest.approx(0.56)
    assert run.summary.by_model["ollama/qwen3:8b"].priced == 0


def test_a_fixed_model_is_priced_as_itself(store):
    with ScriptedServer(lambda body: reply("ok", input_tokens=1000, output_tokens=100)) as server:
        agent = agents.openai_chat("gpt-4.1-mini", base_url=server.base_url, api_key="test")
        suite = assay.Suite("Fixed", agent=agent, checks=[checks.contains("ok")])
        suite.case("Hello?")
        run = assay.run(suite, db=store, progress=False)
        sent = server.requests[0]["model"]
    assert sent == "gpt-4.1-mini"
    assert run.samples[0].usage.cost_usd == pytest.approx(0.00056)  # gpt-4.1-mini's rates
    assert run.samples[0].metadata["answered_model"] == "gpt-4.1-mini"


def test_a_fixed_model_is_never_reported_under_another_models_label(store):
    with ScriptedServer(lambda body: reply("ok")) as server:
        agent = agents.openai_chat("gpt-4.1-mini", base_url=server.base_url, api_key="test")
        suite = assay.Suite("Fixed", agent=agent, checks=[checks.contains("ok")])
        suite.case("Hello?")
        refused = r"fixed model 'gpt-4\.1-mini'.*'gpt-4o'"
        with pytest.raises(assay.ConfigurationError, match=refused):
            assay.run(suite, db=store, models=["gpt-4.1-mini", "gpt-4o"], progress=False)
        assert server.requests == []


@pytest.mark.parametrize(
    "make",
    [
        lambda: agents.openai_chat("gpt-4.1-mini", api_key="test"),
        lambda: agents.litellm_chat("openai/gpt-4.1-mini", api_key="test"),
    ],
)
def test_a_fixed_model_agrees_with_the_same_model_however_it_is_spelled(make):
    agent = make()
    agent.preflight(assay.agent.parse_models(["gpt-4.1-mini"]))
    agent.preflight(assay.agent.parse_models(["openai/gpt-4.1-mini"]))
    with pytest.raises(assay.ConfigurationError, match="--model"):
        agent.preflight(assay.agent.parse_models(["gpt-4.1"]))


def test_the_default_model_is_called_only_when_the_run_names_none():
    agent = agents.openai_chat(default_model="house-model", api_key="test")
    agent.preflight(assay.agent.parse_models(["support-v2"]))  # followed, never refused
    with ScriptedServer([reply("a"), reply("b")]) as server:
        agent.base_url = server.base_url
        asyncio.run(agent("q", context()))
        asyncio.run(agent("q", context("support-v2")))
        sent = [request["model"] for request in server.requests]
    assert sent == ["house-model", "support-v2"]


def test_the_answering_model_is_the_asked_ones_own_name_when_a_turn_gave_it():
    agent = agents.openai_chat(tools={"lookup_order": lookup_order}, api_key="test")
    script = [
        tool_calls(("lookup_order", {"order_id": 42}), model="support-v1"),
        reply("shipped", model="support-v2-2025-01-01"),
        tool_calls(("lookup_order", {"order_id": 42}), model="support-v1"),
        reply("shipped", model="support-v1"),
    ]
    with ScriptedServer(script) as server:
        agent.base_url = server.base_url
        outcome = asyncio.run(agent("q", context("support-v2")))
        other = asyncio.run(agent("q", context("support-v2")))
    assert outcome.metadata["model"] == "support-v2"
    assert outcome.metadata["answered_model"] == "support-v2-2025-01-01"
    assert other.metadata["answered_model"] == "support-v1"


def test_a_missing_client_package_is_refused_with_the_install_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    with pytest.raises(assay.ConfigurationError, match=r"pip install 'assay-agents\[openai\]'"):
        agents.openai_chat("gpt-4.1-mini")
    with pytest.raises(assay.ConfigurationError, match=r"assay-agents\[openai\]"):
        assay.judges.openai("gpt-4.1-mini")


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_a_litellm_chat_agent_without_its_provider_key_is_refused_before_the_run(
    store, monkeypatch
):
    import assay_agents as assay
    from assay_agents import checks

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = agents.litellm_chat()
    suite = assay.Suite("Keyless", agent=agent, checks=[checks.contains("x")])
    suite.case("q")
    with pytest.raises(assay.ConfigurationError, match="ANTHROPIC_API_KEY"):
        assay.run(suite, db=store, models=["anthropic/claude-sonnet-4"], progress=False)
    assert store.history() == []  # refused before any run was created
