"""The cache of the chat agents' model calls, over real HTTP with the real openai client."""

from __future__ import annotations

import itertools
import json

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.agent.calls import ModelReply, ToolCallRequest, model_call_key
from assay_agents.cli.app import app
from assay_agents.evaluation import MemoryRunStore
from assay_agents.evaluation.caching import decode_model, encode
from assay_agents.testing import ScriptedServer, reply, tool_calls

STATUS = {"42": "shipped"}


def lookup_order(order_id: str) -> dict:
    """Find an order by its number."""
    return {"order": order_id, "status": STATUS[order_id]}


def numbered_conversation():
    """A tool call on a user's turn, then an answer numbered by the request that made it."""
    count = itertools.count(1)

    def script(body):
        number = next(count)
        if body["messages"][-1]["role"] == "user":
            return tool_calls(("lookup_order", {"order_id": "42"}), input_tokens=100)
        return reply(f"Order 42 is {STATUS['42']} (reply {number}).", input_tokens=200)

    return script


def chat_suite(server, *, tools=True) -> assay.Suite:
    agent = agents.openai_chat(
        "scripted-model",
        tools={"lookup_order": lookup_order} if tools else None,
        base_url=server.base_url,
        api_key="test",
        temperature=0,
    )
    suite = assay.Suite("Cached chat", agent=agent, checks=[checks.contains("42")])
    suite.case("Where is order 42?", id="where")
    return suite


def replayed(run):
    return [
        (s.sample, s.answer, [(a.name, a.arguments, a.result) for a in s.actions])
        for s in sorted(run.samples, key=lambda s: s.sample)
    ]


def test_a_second_run_makes_no_model_request_and_replays_each_sample(store) -> None:
    with ScriptedServer(numbered_conversation()) as server:
        first = assay.run(
            chat_suite(server), db=store, samples=2, cache_model_calls=True, progress=False
        )
        made = list(server.requests)
        second = assay.run(
            chat_suite(server), db=store, samples=2, cache_model_calls=True, progress=False
        )
        # Two samples × (a tool call, then the answer); the second run asked nothing.
        assert len(server.requests) == len(made) == 4
    assert [m["messages"][-1]["role"] for m in made].count("tool") == 2
    # Each sample had replies of its own, and the second run replayed each one exactly.
    answers = [answer for _, answer, _ in replayed(first)]
    assert len(set(answers)) == 2
    assert replayed(second) == replayed(first)
    assert all(
        actions == [("lookup_order", {"order_id": "42"}, {"order": "42", "status": "shipped"})]
        for _, _, actions in replayed(second)
    )
    for sample in first.samples:
        assert sample.usage.cost_source != "cached" and sample.usage.input_tokens == 300
        assert "cached_model_calls" not in sample.metadata
    for sample in second.samples:
        usage = sample.usage
        assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (0, 0, 0.0)
        assert usage.cost_source == "cached" and sample.metadata["cached_model_calls"] == 2
        assert sample.metadata["answered_model"] == "scripted-model"
    assert second.summary.model_cached == 4 and first.summary.model_cached == 0
    assert second.summary.cost_usd == 0.0
    # Stored as they were recorded.
    assert store.get_run(second.id).samples == second.samples
    endpoint = server.base_url.rstrip("/")
    assert [(s.kind, s.source, s.entries) for s in store.cache_stats()] == [
        ("model", f"openai_chat scripted-model @ {endpoint}", 4)
    ]
    assert store.cache_clear(kind="model") == 4 and store.cache_stats() == []


def test_a_new_tool_result_asks_the_model_again_from_that_call_on(monkeypatch) -> None:
    store = MemoryRunStore()
    with ScriptedServer(numbered_conversation()) as server:
        assay.run(chat_suite(server), db=store, cache_model_calls=True, progress=False)
        monkeypatch.setitem(STATUS, "42", "delivered")
        run = assay.run(chat_suite(server), db=store, cache_model_calls=True, progress=False)
        # The first call (the same question) was served; the second saw a new tool result.
        assert len(server.requests) == 3
    (sample,) = run.samples
    assert sample.answer == "Order 42 is delivered (reply 3)."
    assert sample.metadata["cached_model_calls"] == 1
    assert sample.usage.input_tokens == 200 and sample.usage.cost_source != "cached"


def test_without_the_option_nothing_is_served_or_kept(store) -> None:
    with ScriptedServer(numbered_conversation()) as server:
        assay.run(chat_suite(server), db=store, cache_model_calls=True, progress=False)
        run = assay.run(chat_suite(server), db=store, cache=True, progress=False)
        assert len(server.requests) == 4
    assert run.samples[0].usage.cost_source != "cached"
    assert store.cache_stats()[0].entries == 2


def test_other_agents_and_stores_are_refused_before_the_run() -> None:
    store = MemoryRunStore()
    suite = assay.Suite("Plain", agent=lambda text, ctx: "42", checks=[checks.contains("42")])
    suite.case("hi")
    with pytest.raises(assay.ConfigurationError, match="built-in chat agents"):
        assay.run(suite, db=store, cache_model_calls=True, progress=False)
    assert store.history() == []

    class NoCache:
        display_url = "elsewhere"

        def create_run(self, run):
            raise AssertionError("a run was created")

    with ScriptedServer([]) as server, pytest.raises(assay.ConfigurationError, match="keeps no"):
        assay.run(chat_suite(server), db=NoCache(), cache_model_calls=True, progress=False)


def test_a_model_on_another_port_of_the_same_host_is_asked_itself() -> None:
    store = MemoryRunStore()
    with (
        ScriptedServer(lambda body: reply("Order 42: first endpoint.")) as one,
        ScriptedServer(lambda body: reply("Order 42: second endpoint.")) as two,
    ):
        first = assay.run(
            chat_suite(one, tools=False), db=store, cache_model_calls=True, progress=False
        )
        second = assay.run(
            chat_suite(two, tools=False), db=store, cache_model_calls=True, progress=False
        )
        assert (len(one.requests), len(two.requests)) == (1, 1)
    assert [s.answer for s in first.samples] == ["Order 42: first endpoint."]
    assert [s.answer for s in second.samples] == ["Order 42: second endpoint."]
    assert second.summary.model_cached == 0


def test_the_model_cache_names_the_whole_endpoint_and_no_secret() -> None:
    def source(base_url, api_key="test"):
        return agents.openai_chat("m", base_url=base_url, api_key=api_key).cache_source("m")

    assert source("http://127.0.0.1:8001/v1") == "openai_chat m @ http://127.0.0.1:8001/v1"
    assert source("http://u:secret@127.0.0.1:8001/v1/?token=secret", "k") == source(
        "http://127.0.0.1:8001/v1"
    )
    assert source("http://127.0.0.1:8002/v1") != source("http://127.0.0.1:8001/v1")
    assert source("https://example.test:443/v1") == "openai_chat m @ https://example.test/v1"
    litellm = agents.litellm_chat("openai/m", api_base="http://u:p@127.0.0.1:9/v1?k=s")
    assert litellm.cache_source("openai/m") == "litellm_chat openai/m @ http://127.0.0.1:9/v1"


def test_keys_differ_by_sample_call_model_and_options_and_replies_round_trip() -> None:
    base = {
        "source": "openai_chat m @ host",
        "parameters": {"temperature": 0},
        "messages": [{"role": "user", "content": "hi"}],
        "tools": None,
        "sample": 0,
        "call": 0,
    }
    changes = [
        {},
        {"sample": 1},
        {"call": 1},
        {"source": "openai_chat other @ host"},
        {"parameters": {"temperature": 1}},
        {"tools": [{"type": "function"}]},
        {"messages": [{"role": "user", "content": "hello"}]},
    ]
    assert len({model_call_key(**{**base, **change}) for change in changes}) == len(changes)
    kept = ModelReply(None, (ToolCallRequest("c1", "lookup", '{"a": 1}'),), "m", 3, 4, None, True)
    stored = encode(kept)
    assert "cached" not in stored and stored["schema_version"] >= 1
    assert decode_model(json.loads(json.dumps(stored))) == ModelReply(
        None, (ToolCallRequest("c1", "lookup", '{"a": 1}'),), "m", 3, 4
    )
    assert decode_model({"tool_calls": "x"}) is None and decode_model(None) is None


def test_the_command_line_caches_model_calls_and_shows_and_clears_them(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/assay.db"
    assay.Store.open(url, migrate=True).close()
    runner = CliRunner()
    with ScriptedServer(numbered_conversation()) as server:
        path = tmp_path / "chat_suite.py"
        path.write_text(
            "import assay_agents as assay\nfrom assay_agents import agents, checks\n"
            f"agent = agents.openai_chat('m', base_url={server.base_url!r}, api_key='test')\n"
            "suite = assay.Suite('Chat', agent=agent, checks=[checks.contains('42')])\n"
            "suite.case('Where is order 42?', id='where')\n"
        )
        words = ["run", str(path), "--db", url, "--cache-model-calls"]
        first = runner.invoke(app, words)
        assert first.exit_code == 0, first.output
        result = runner.invoke(app, words)
        assert result.exit_code == 0, result.output
        # A tool call (to a tool the agent lacks), then the answer: asked once, in the first run.
        assert len(server.requests) == 2
    assert "(2 model calls cached)" in result.output
    stats = runner.invoke(app, ["cache", "stats", "--db", url])
    assert stats.exit_code == 0 and f"model openai_chat m @ {server.base_url}: 2" in stats.output
    cleared = runner.invoke(app, ["cache", "clear", "--kind", "model", "--db", url])
    assert cleared.exit_code == 0 and "Cleared 2 cached replies" in cleared.output
