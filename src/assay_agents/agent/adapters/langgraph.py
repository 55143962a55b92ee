"""A LangGraph graph of LangChain messages as an Assay agent.

Needs ``pip install 'assay-agents[langgraph]'``.

Each sample streams the graph once from a fresh ``{"messages": [...]}`` state (a prebuilt
ReAct agent, or any ``StateGraph`` whose state keeps its messages under one key) on a thread
of its own: ``config["configurable"]["thread_id"]`` is a new id for every sample, in place of
any the config gave, so a graph compiled with a checkpointer never continues another
sample's conversation. The sample's messages are those, in any state the graph passed
through, whose id is not one of the input's: a graph that trims or removes messages still
shows every call it made. Tool calls come from each ``AIMessage``'s ``tool_calls`` and their
results from the ``ToolMessage`` answering each (errored when its ``status`` is ``"error"``,
or when it reports an error at its top level). Tokens are each ``AIMessage``'s
``usage_metadata``, read from the messages themselves because LangChain's converters to the
OpenAI shape drop it; the model that answered is its ``response_metadata["model_name"]``. A
graph whose nodes call different models has each model's tokens recorded apart, so each is
priced at its own rate (:mod:`assay_agents.agent.usage_by_model`).

A graph's model is fixed inside it. With ``model_key``, each sample's model name is handed
to the graph as ``config["configurable"][model_key]`` for the graph to use (a configurable
chat model, or a node that reads it); without one, a run asking for several models is
refused, since every sample would reach the same model.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters.framework import (
    ModelTokens,
    ToolLog,
    Turn,
    answered_metadata,
    chat_turns,
    text_of,
)
from assay_agents.agent.context import AgentContext
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Outcome
from assay_agents.errors import ConfigurationError
from assay_agents.spec import JSON


@dataclass(kw_only=True)
class LangGraphAgent:
    """Runs a LangGraph graph for each sample (see :func:`assay_agents.agents.langgraph`)."""

    graph: Any
    action_groups: Mapping[str, str] = field(default_factory=dict)
    model_key: str | None = None
    messages_key: str = "messages"
    config: Mapping[str, Any] = field(default_factory=dict)

    def prepare(self) -> None:
        """Import LangChain's message types before any sample's clock starts."""
        import langchain_core.messages  # noqa: F401

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse a model matrix the graph cannot follow: it would measure one model."""
        if self.model_key is None and len(models) > 1:
            raise ConfigurationError(
                "the LangGraph graph calls the model built into it, so every model of the run "
                f"({', '.join(spec.label for spec in models)}) would get that model's answers: "
                "make the graph's model configurable and pass model_key= (the key it reads "
                "from config['configurable']), or run one model at a time"
            )

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """Stream the graph over the case's input and read the messages it added."""
        given = _messages(chat_turns(value))
        seen = _Seen({message.id for message in given})
        stopped = None
        try:
            async for state in self.graph.astream(
                {self.messages_key: given}, self._config(ctx.model), stream_mode="values"
            ):
                if isinstance(state, Mapping) and self.messages_key in state:
                    seen.add(state[self.messages_key])
        except Exception as error:  # the messages so far still say what the agent did
            stopped = f"{type(error).__name__}: {error}"
        asked = ctx.model.model if ctx.model is not None and self.model_key else None
        return self._outcome(seen, stopped, asked)

    def _config(self, spec: ModelSpec | None) -> dict[str, Any]:
        config = dict(self.config)
        configurable = dict(config.get("configurable") or {})
        # Each sample is a fresh start: a fixed thread id would have a checkpointer hand
        # every sample the conversation of the ones before it.
        configurable["thread_id"] = f"assay-{uuid.uuid4().hex}"
        if spec is not None and self.model_key is not None:
            configurable[self.model_key] = spec.model
        config["configurable"] = configurable
        return config

    def _outcome(self, seen: _Seen, stopped: str | None, asked: str | None) -> Outcome:
        log = ToolLog(self.action_groups)
        named: list[Any] = []
        tokens = ModelTokens(asked)
        for message in seen.added():
            if message.type == "ai":
                model = (message.response_metadata or {}).get("model_name")
                named.append(model)
                usage = message.usage_metadata
                if usage:
                    tokens.add(model, usage.get("input_tokens"), usage.get("output_tokens"))
            _record(message, log)
        metadata: dict[str, JSON] = answered_metadata(asked, named)
        metadata.update(tokens.metadata())
        answer = None if stopped else _answer(seen)
        return Outcome(
            answer=answer,
            actions=log.actions(stopped),
            usage=tokens.usage(),
            error=stopped or (None if answer is not None else "the graph ended without an answer"),
            metadata=metadata,
        )


@dataclass
class _Seen:
    """The messages a sample added, in the order they first appeared, found by their ids."""

    given: set[str | None]
    final: list[Any] = field(default_factory=list)
    _added: dict[Any, Any] = field(default_factory=dict)

    def add(self, messages: Sequence[Any]) -> None:
        """Note one state's messages: what is new, and what the state now ends on."""
        self.final = list(messages)
        for message in messages:
            if message.id is None or message.id not in self.given:
                self._added[_identity(message)] = message  # a message updated in place wins

    def added(self) -> list[Any]:
        """Every message the sample added, including any the graph later removed."""
        return list(self._added.values())

    def last(self) -> Any:
        """The final state's last message, when the sample added it."""
        final = self.final[-1] if self.final else None
        return final if final is not None and _identity(final) in self._added else None


def _identity(message: Any) -> Any:
    # add_messages gives every message an id; a graph without that reducer may not.
    if message.id is not None:
        return message.id
    return (message.type, repr(message.content), repr(getattr(message, "tool_calls", None)))


def _record(message: Any, log: ToolLog) -> None:
    if message.type == "ai":
        for call in message.tool_calls or []:
            log.call(str(call.get("id")), str(call.get("name")), call.get("args") or {})
    elif message.type == "tool":
        text = text_of(message.content)
        failed = getattr(message, "status", "success") == "error"
        log.result(message.tool_call_id, message.content, text=text, error=text if failed else None)


def _answer(seen: _Seen) -> str | None:
    """The final AI message's text, when the graph ended on one it added that calls no tool."""
    final = seen.last()
    if final is None or final.type != "ai" or final.tool_calls:
        return None
    return text_of(final.content) or None


def _messages(turns: list[Turn]) -> list[Any]:
    """The case's input as LangChain messages."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    # Ids of their own, so the messages the graph adds are told from the input's by id.
    prefix = f"assay-input-{uuid.uuid4().hex}"
    messages: list[Any] = []
    for index, turn in enumerate(turns):
        named = f"{prefix}-{index}"
        if turn.role == "assistant":
            calls = [_tool_call(c.id, c.name, c.arguments) for c in turn.calls]
            messages.append(AIMessage(content=turn.text, tool_calls=calls, id=named))
        elif turn.role == "tool":
            call_id = turn.call_id or ""
            messages.append(ToolMessage(content=turn.text, tool_call_id=call_id, id=named))
        elif turn.role in ("system", "developer"):
            messages.append(SystemMessage(content=turn.text, id=named))
        else:
            messages.append(HumanMessage(content=turn.text, id=named))
    return messages


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    import json

    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        args = {}
    return {"id": call_id, "name": name, "args": args if isinstance(args, dict) else {}}
