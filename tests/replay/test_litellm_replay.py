"""Assay's own LiteLLM agent records and replays through LiteLLM's default aiohttp transport.

The real ``litellm`` package calls the scripted server; the replay runs after the server is
stopped, so a call that escaped the interception would fail to connect.
"""

import asyncio

import pytest

import assay_agents as assay
from assay_agents import agents
from assay_agents.agent import AgentContext
from assay_agents.agent.adapters.optional import import_litellm
from assay_agents.load.recorded import read_fixture_file
from assay_agents.replay import ReplaySession
from assay_agents.testing.server import ScriptedServer, reply, streamed


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_the_litellm_agent_records_and_replays_without_the_network(tmp_path):
    litellm = import_litellm()
    assert litellm.disable_aiohttp_transport is False  # its default transport is what we test
    path = tmp_path / "litellm.json"
    server = ScriptedServer([reply("Order 42 shipped.")]).start()
    agent = agents.litellm_chat("openai/support-v1", api_base=server.base_url, api_key="test")
    case = assay.Case(id="track", name="track", input="Where is order 42?")

    def ask():
        context = AgentContext(case=case, model=None, sample=0, setup=None)
        return asyncio.run(agent("Where is order 42?", context))

    with ReplaySession(record=path).active():
        live = ask()
    server.stop()
    assert len(server.requests) == 1

    session = ReplaySession(read_fixture_file(path))
    with session.active():
        replayed = ask()
    assert replayed.answer == live.answer == "Order 42 shipped."
    assert session.evidence().passed, session.evidence().problems()


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_a_streamed_litellm_call_replays_its_chunks_in_order(tmp_path):
    litellm = import_litellm()
    path = tmp_path / "streamed.json"
    server = ScriptedServer([streamed("Order 42 shipped.")]).start()

    async def ask():
        chunks = await litellm.acompletion(
            model="openai/support-v1",
            api_base=server.base_url,
            api_key="test",
            messages=[{"role": "user", "content": "Where is order 42?"}],
            stream=True,
        )
        return [
            chunk.choices[0].delta.content
            async for chunk in chunks
            if chunk.choices and chunk.choices[0].delta.content
        ]

    with ReplaySession(record=path).active():
        live = asyncio.run(ask())
    server.stop()
    session = ReplaySession(read_fixture_file(path))
    with session.active():
        replayed = asyncio.run(ask())
    assert replayed == live == ["Order ", "42 ", "shipped."]
    assert session.evidence().passed, session.evidence().problems()
