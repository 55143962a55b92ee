"""What the framework adapters share: one error rule, lazy imports, and the extras they name."""

import asyncio
import subprocess
import sys

import pytest

import assay_agents as assay
from assay_agents import agents
from assay_agents.testing import ScriptedServer
from framework_script import context, http_client, script

MCP_FAILURE = {"isError": True, "content": [{"type": "text", "text": "order service down"}]}


def lookup_order(order_id: int) -> dict:
    """Find an order by its number."""
    return MCP_FAILURE if order_id == 7 else {"status": "shipped", "error": None}


def _pydantic_ai(url):
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=url, api_key="test", http_client=http_client())
    return agents.pydantic_ai(Agent(OpenAIChatModel("m", provider=provider), tools=[lookup_order]))


def _openai_agents(url):
    from agents import Agent, OpenAIChatCompletionsModel, function_tool
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url, api_key="test", http_client=http_client())
    model = OpenAIChatCompletionsModel("m", client)
    return agents.openai_agents(Agent(name="a", model=model, tools=[function_tool(lookup_order)]))


def _langgraph(url):
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    chat = ChatOpenAI(model="m", base_url=url, api_key="test", http_async_client=http_client())
    with pytest.deprecated_call(match="create_react_agent has been moved"):
        return agents.langgraph(create_react_agent(chat, [lookup_order]))


@pytest.mark.parametrize("build", [_pydantic_ai, _openai_agents, _langgraph])
def test_every_adapter_reads_a_tools_top_level_error_by_the_one_rule(build):
    with ScriptedServer(script) as server:
        outcome = asyncio.run(build(server.base_url)("Where are orders 42 and 7?", context()))
    fine, failed = outcome.actions
    assert fine.error is None  # {"error": null, ...} is a successful call
    assert failed.error is not None and "order service down" in failed.error
    assert failed.error == assay.agents.tool_error(MCP_FAILURE)


@pytest.mark.process  # what a fresh interpreter imports
def test_the_adapters_import_their_framework_only_when_an_agent_runs():
    code = (
        "import sys, assay_agents as assay\n"
        "for make in (assay.agents.pydantic_ai, assay.agents.openai_agents, "
        "assay.agents.langgraph):\n"
        "    make(object())\n"
        "print(*sys.modules)\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    frameworks = {"pydantic_ai", "agents", "langgraph", "langchain_core", "langchain_openai"}
    assert not [name for name in loaded if name.split(".")[0] in frameworks]


@pytest.mark.parametrize(
    ("make", "module", "extra"),
    [
        (agents.pydantic_ai, "pydantic_ai", "pydantic-ai"),
        (agents.openai_agents, "agents", "openai-agents"),
        (agents.langgraph, "langgraph", "langgraph"),
    ],
)
def test_a_missing_framework_is_refused_with_its_extra(monkeypatch, make, module, extra):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a)
    )
    with pytest.raises(assay.ConfigurationError, match=rf"pip install 'assay-agents\[{extra}\]'"):
        make(object())
