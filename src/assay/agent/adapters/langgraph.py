"""A LangGraph graph of LangChain messages as an Assay agent (``pip install 'assay[langgraph]'``).

Each sample streams the graph once from a fresh ``{"messages": [...]}`` state (a prebuilt
ReAct agent, or any ``StateGraph`` whose state keeps its messages under one key) and reads
the messages it added. Tool calls come from each ``AIMessage``'s ``tool_calls`` and their
results from the ``ToolMessage`` answering each (errored when its ``status`` is ``"error"``,
or when it reports an error at its top level). Tokens are each ``AIMessage``'s
``usage_metadata``, read from the messages themselves because LangChain's converters to the
OpenAI shape drop it; the model that answered is its ``response_metadata["model_name"]``.

A graph's model is fixed inside it. With ``model_key``, each sample's model name is handed
to the graph as ``config["configurable"][model_key]`` for the graph to use (a configurable
chat model, or a node that reads it); without one, a run asking for several models is
refused, since every sample would reach the same model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.agent.adapters.framework import ToolLog, Turn, answered_metadata, chat_turns, text_of
from assay.agent.context import AgentContext
from assay.agent.model import ModelSpec
from assay.agent.outcome import Outcome, Usage
from assay.errors import ConfigurationError
from assay.spec import JSON


@dataclass(kw_only=True)
class LangGraphAgent:
    """Runs a LangGraph graph for each sample (see :func:`assay.agents.langgraph`)."""

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
        latest: list[Any] = list(given)
        stopped = None
        try:
            async for state in self.graph.astream(
                {self.messages_key: given}, self._config(ctx.model), stream_mode="values"
            ):
                if isinstance(state, Mapping) and self.messages_key in state:
                    latest = list(state[self.messages_key])
        except Exception as error:  # the messages so far still say what the agent did
            stopped = f"{type(error).__name__}: {error}"
        asked = ctx.model.model if ctx.model is not None and self.model_key else None
        return self._outcome(latest[len(given) :], stopped, asked)

    def _config(self, spec: ModelSpec | None) -> dict[str, Any]:
        config = dict(self.config)
        if spec is not None and self.model_key is not None:
            configurable = dict(config.get("configurable") or {})
            configurable[self.model_key] = spec.model
            config["configurable"] = configurable
        return config

    def _outcome(self, added: list[Any], stopped: str | None, asked: str | None) -> Outcome:
        log = ToolLog(self.action_groups)
        named: list[Any] = []
        tokens: list[int] | None = None
        for message in added:
            if message.type == "ai":
                named.append((message.response_metadata or {}).get("model_name"))
                usage = message.usage_metadata
                if usage:
                    tokens = tokens or [0, 0]
                    tokens[0] += usage.get("input_tokens") or 0
                    tokens[1] += usage.get("output_tokens") or 0
            _record(message, log)
        metadata: dict[str, JSON] = answered_metadata(asked, named)
        called = asked or metadata.get("answered_model")
        if called is not None:
            metadata["model"] = called
        answer = None if stopped else _answer(added)
        return Outcome(
            answer=answer,
            actions=log.actions(stopped),
            usage=None if tokens is None else Usage(tokens[0], tokens[1]),
            error=stopped or (None if answer is not None else "the graph ended without an answer"),
            metadata=metadata,
        )


def _record(message: Any, log: ToolLog) -> None:
    if message.type == "ai":
        for call in message.tool_calls or []:
            log.call(str(call.get("id")), str(call.get("name")), call.get("args") or {})
    elif message.type == "tool":
        text = text_of(message.content)
        failed = getattr(message, "status", "success") == "error"
        log.result(message.tool_call_id, message.content, text=text, error=text if failed else None)


def _answer(added: list[Any]) -> str | None:
    """The final AI message's text, when the graph ended on one that calls no tool."""
    final = added[-1] if added else None
    if final is None or final.type != "ai" or final.tool_calls:
        return None
    return text_of(final.content) or None


def _messages(turns: list[Turn]) -> list[Any]:
    """The case's input as LangChain messages."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    messages: list[Any] = []
    for turn in turns:
        if turn.role == "assistant":
            calls = [_tool_call(c.id, c.name, c.arguments) for c in turn.calls]
            messages.append(AIMessage(content=turn.text, tool_calls=calls))
        elif turn.role == "tool":
            messages.append(ToolMessage(content=turn.text, tool_call_id=turn.call_id or ""))
        elif turn.role in ("system", "developer"):
            messages.append(SystemMessage(content=turn.text))
        else:
            messages.append(HumanMessage(content=turn.text))
    return messages


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    import json

    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        args = {}
    return {"id": call_id, "name": name, "args": args if isinstance(args, dict) else {}}
