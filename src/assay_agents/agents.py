"""Agent adapters: tool-calling chat agents on real clients, and conversations as outcomes.

>>> from assay_agents import agents
>>> agent = agents.openai_chat(tools={"lookup_order": lookup_order},      # doctest: +SKIP
...                            action_groups={"lookup_order": "orders"})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from assay_agents.agent.adapters.chat import ChatAgent, LiteLLMChatAgent, OpenAIChatAgent
from assay_agents.agent.adapters.messages import from_messages
from assay_agents.agent.adapters.optional import require
from assay_agents.agent.tool_errors import tool_error

if TYPE_CHECKING:
    from assay_agents.agent.adapters.langgraph import LangGraphAgent
    from assay_agents.agent.adapters.llamaindex import LlamaIndexAgent
    from assay_agents.agent.adapters.openai_agents import OpenAIAgentsAgent
    from assay_agents.agent.adapters.pydantic_ai import PydanticAIAgent
    from assay_agents.agent.adapters.smolagents import SmolagentsAgent

__all__ = ["ChatAgent", "from_messages", "litellm_chat", "openai_chat", "tool_error"]
__all__ += ["langgraph", "openai_agents", "pydantic_ai"]


def openai_chat(
    model: str | None = None,
    *,
    tools: Mapping[str, Callable[..., Any]] | None = None,
    action_groups: Mapping[str, str] | None = None,
    instructions: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_turns: int = 10,
    default_model: str | None = None,
    **options: Any,
) -> OpenAIChatAgent:
    """A tool-calling agent on the ``openai`` client (``pip install 'assay-agents[openai]'``).

    Each sample is a fresh conversation. Tools are plain functions (sync or async); their
    schemas come from their signatures and docstrings. Every call is recorded as an action
    with its arguments, result, size in bytes and error; ``action_groups`` names the group
    of each tool (a tool it does not name has none). ``options`` go to
    ``chat.completions.create`` (e.g. ``temperature=0``).

    The model: without ``model``, each sample's (``--model``), else ``default_model``. A fixed
    ``model`` is the only one called: a run asking for another is refused before it starts.
    """
    require("openai", "openai")
    return OpenAIChatAgent(
        model=model,
        default_model=default_model,
        tools=dict(tools or {}),
        action_groups=dict(action_groups or {}),
        instructions=instructions,
        max_turns=max_turns,
        options=options,
        base_url=base_url,
        api_key=api_key,
    )


def litellm_chat(
    model: str | None = None,
    *,
    tools: Mapping[str, Callable[..., Any]] | None = None,
    action_groups: Mapping[str, str] | None = None,
    instructions: str | None = None,
    max_turns: int = 10,
    default_model: str | None = None,
    **options: Any,
) -> LiteLLMChatAgent:
    """The same agent through LiteLLM (``pip install 'assay-agents[litellm]'``).

    Models are named ``provider/model`` and chosen as for :func:`openai_chat`; ``options`` go
    to ``litellm.acompletion`` (e.g. ``api_base=``).
    """
    require("litellm", "litellm")
    return LiteLLMChatAgent(
        model=model,
        default_model=default_model,
        tools=dict(tools or {}),
        action_groups=dict(action_groups or {}),
        instructions=instructions,
        max_turns=max_turns,
        options=options,
    )


def pydantic_ai(
    agent: Any,
    *,
    action_groups: Mapping[str, str] | None = None,
    model_for: Callable[[str], Any] | None = None,
    **options: Any,
) -> PydanticAIAgent:
    """A pydantic-ai ``Agent`` as an Assay agent (``pip install 'assay-agents[pydantic-ai]'``).

    Each sample is one ``agent.run``; a case whose input is a list of chat messages is handed
    over as pydantic-ai's own message history. Every tool call is an action (``action_groups``
    names the group of each tool), tokens are summed over the run's responses and the model
    each response names is recorded. With ``--model``, each sample runs on its model: the
    agent's own model class and provider with that model name, or ``model_for(name)``'s
    model. ``options`` go to ``agent.run`` (e.g. ``deps=``).
    """
    require("pydantic_ai", "pydantic-ai")
    from assay_agents.agent.adapters.pydantic_ai import PydanticAIAgent

    return PydanticAIAgent(
        agent=agent,
        action_groups=dict(action_groups or {}),
        model_for=model_for,
        options=options,
    )


def openai_agents(
    agent: Any,
    *,
    action_groups: Mapping[str, str] | None = None,
    run_config: Any = None,
    tracing: bool = False,
    max_turns: int | None = None,
    **options: Any,
) -> OpenAIAgentsAgent:
    """An OpenAI Agents SDK ``Agent`` as an agent (``pip install 'assay-agents[openai-agents]'``).

    Each sample is one ``Runner.run`` (with ``run_config``, ``max_turns`` and ``options`` such
    as ``context=``); a case whose input is a list of chat messages is handed over as the
    SDK's own input items. Every tool call is an action (``action_groups`` names the group of
    each tool) and tokens are summed over the model's responses. With ``--model``, each
    sample runs on its model through ``RunConfig(model=...)``: the agent's own Chat
    Completions or Responses model class on its own client, or the name for a model given
    by name. The SDK's result names no model: each response counts for the model its agent
    was configured to call (after a handoff to another model, each model's tokens are
    recorded apart), and a run naming models reads the answering one from the HTTP
    responses. The SDK's tracing stays off unless ``tracing=True``.
    """
    require("agents", "openai-agents")
    from assay_agents.agent.adapters.openai_agents import OpenAIAgentsAgent

    return OpenAIAgentsAgent(
        agent=agent,
        action_groups=dict(action_groups or {}),
        run_config=run_config,
        tracing=tracing,
        max_turns=max_turns,
        options=options,
    )


def langgraph(
    graph: Any,
    *,
    action_groups: Mapping[str, str] | None = None,
    model_key: str | None = None,
    messages_key: str = "messages",
    config: Mapping[str, Any] | None = None,
) -> LangGraphAgent:
    """A LangGraph graph as an Assay agent (``pip install 'assay-agents[langgraph]'``).

    Each sample runs the compiled graph (a prebuilt ReAct agent, or a ``StateGraph`` keeping
    its messages under ``messages_key``) from the case's input as LangChain messages, with
    ``config`` (e.g. ``{"recursion_limit": 10}``) and a new ``thread_id`` per sample (in
    place of any the config gives, so a checkpointer starts every sample afresh). Every tool
    call is an action (``action_groups`` names the group of each tool); tokens are the AI messages'
    ``usage_metadata`` and the answering model their ``model_name``. The graph's model is its
    own: with ``model_key``, each sample's model is handed over as
    ``config["configurable"][model_key]``; without it, a run asking for several models is
    refused.
    """
    require("langgraph", "langgraph")
    require("langchain_core", "langgraph")
    from assay_agents.agent.adapters.langgraph import LangGraphAgent

    return LangGraphAgent(
        graph=graph,
        action_groups=dict(action_groups or {}),
        model_key=model_key,
        messages_key=messages_key,
        config=dict(config or {}),
    )


def smolagents(agent: Any, *, action_groups: Mapping[str, str] | None = None) -> SmolagentsAgent:
    """A smolagents agent as an Assay agent (``pip install 'assay-agents[smolagents]'``).

    ``agent`` is a ``ToolCallingAgent`` or ``CodeAgent``, or a function that builds one (one
    agent object keeps its memory, so its samples run one at a time; a function's agents run
    concurrently). Each tool call is an action (``final_answer`` is the answer, not an
    action), tokens are summed over the steps, and an API model (``OpenAIServerModel``,
    ``LiteLLMModel``, ...) is switched to each sample's model (``--model``).
    """
    require("smolagents", "smolagents")
    from assay_agents.agent.adapters.smolagents import smolagents_agent

    return smolagents_agent(agent, action_groups=action_groups)


def llamaindex(agent: Any, *, action_groups: Mapping[str, str] | None = None) -> LlamaIndexAgent:
    """A LlamaIndex agent workflow as an Assay agent (``pip install 'assay-agents[llamaindex]'``).

    ``agent`` is a ``FunctionAgent`` or ``ReActAgent``. Each tool call is an action, streamed
    replies are asked for their usage, and an LLM that names its model (``llm.model``) is
    switched to each sample's model (``--model``) on a copy of the agent.
    """
    require("llama_index.core", "llamaindex")
    from assay_agents.agent.adapters.llamaindex import llamaindex_agent

    return llamaindex_agent(agent, action_groups=action_groups)


__all__ += ["llamaindex", "smolagents"]
