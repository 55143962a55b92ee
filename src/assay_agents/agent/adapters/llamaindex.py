"""A LlamaIndex agent workflow (``FunctionAgent``, ``ReActAgent``) as an Assay agent.

The run is read from the workflow's events: each ``ToolCall`` is an action, completed by the
``ToolCallResult`` with its id (a tool that raised, or a tool the model named that does not
exist, is an errored action); the answer is the final ``AgentOutput``'s message. Tokens come
from the raw responses: a streamed reply carries usage only when the request asked for it, so
an OpenAI LLM is asked (``stream_options={"include_usage": True}``) on the sample's copy of
the agent, never on the user's own object.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters._framework import (
    Answered,
    Prompt,
    Tokens,
    model_matrix_refused,
    prompt,
    providers_refused,
)
from assay_agents.agent.adapters.framework import json_value, tool_arguments
from assay_agents.agent.context import AgentContext
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Action, Outcome
from assay_agents.agent.tool_errors import describe_exception
from assay_agents.errors import ConfigurationError

_INCLUDE_USAGE = {"include_usage": True}
_ROLES = {"system", "user", "assistant", "developer"}
# LlamaIndex's LLM packages that each reach one provider, by the package's name.
_PROVIDER_PACKAGES = {
    "openai": "openai",
    "azure_openai": "azure",
    "anthropic": "anthropic",
    "ollama": "ollama",
    "openrouter": "openrouter",
}


@dataclass(kw_only=True)
class LlamaIndexAgent:
    """Runs a LlamaIndex agent workflow on each sample and reads its events.

    Workflows keep a run's state in its own context, so samples run concurrently on one
    agent. The model is the sample's (``--model``) when the agent's LLM names its model
    (``llm.model``): each model gets a copy of the agent on a copy of the LLM, made before
    the first sample starts; an LLM without one answers every sample, and a run asking for
    another model is refused before it starts.
    """

    agent: Any
    action_groups: Mapping[str, str] = field(default_factory=dict)
    _copies: dict[ModelSpec | None, Any] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """Run one sample: the workflow's events become the outcome."""
        asked = prompt(value)
        agent = self._agent_for(ctx.model)
        reading = _Reading(self.action_groups, Answered(_model_of(agent.llm)))
        try:
            handler = agent.run(user_msg=asked.text, chat_history=_history(asked))
            async for event in handler.stream_events():
                reading.add(event)
            result = await handler
            limit = await _iteration_limit_reached(handler)
        except Exception as error:  # the framework's failure is the sample's
            return reading.outcome(error=describe_exception(error))
        if limit is not None:
            # early_stopping_method="generate": the answer is a summary, not the agent's.
            return reading.outcome(
                error=f"the agent stopped at its iteration limit (max_iterations={limit}) "
                "without a final answer"
            )
        return reading.outcome(answer=_answer(result))

    def prepare(self) -> None:
        """Import the workflow events and copy the agent for its own model, off the clock."""
        import llama_index.core.agent.workflow  # noqa: F401

        self._agent_for(None)

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse a model matrix the LLM cannot follow; else copy the agent for each model."""
        llm = self.agent.llm
        called = _model_of(llm)
        if models and not _switchable(llm):
            others = [spec.label for spec in models if called not in (spec.model, spec.label)]
            if others:
                raise ConfigurationError(model_matrix_refused("LlamaIndex", called, others))
            return
        client = f"LLM ({type(llm).__name__})"
        refused = providers_refused("LlamaIndex", client, _reaches(llm), models)
        if refused:
            raise ConfigurationError(refused)
        for spec in models:
            self._agent_for(spec)

    def _agent_for(self, model: ModelSpec | None) -> Any:
        """The agent on ``model`` (its own when ``None``), copied once per model."""
        with self._lock:
            found = self._copies.get(model)
            if found is None:
                found = self._copies[model] = _copied(self.agent, model)
            return found


def _copied(agent: Any, spec: ModelSpec | None) -> Any:
    llm = agent.llm
    changes: dict[str, Any] = {}
    if spec is not None and _switchable(llm) and spec.model != llm.model:
        changes["model"] = spec.model
    if getattr(agent, "streaming", False) and _asks_openai(llm):
        extra = dict(getattr(llm, "additional_kwargs", None) or {})
        if "stream_options" not in extra:
            changes["additional_kwargs"] = {**extra, "stream_options": _INCLUDE_USAGE}
    if not changes:
        return agent
    return agent.model_copy(update={"llm": llm.model_copy(update=changes)})


def _switchable(llm: Any) -> bool:
    fields = getattr(type(llm), "model_fields", {})
    return "model" in fields and isinstance(getattr(llm, "model", None), str)


def _reaches(llm: Any) -> str | None:
    """The provider LlamaIndex's own LLM class for it serves; ``None`` for another class.

    Only the class itself counts: a subclass (``OpenAILike``, the user's own) may point the
    same client at any endpoint.
    """
    package = type(llm).__module__.split(".")
    if package[:2] != ["llama_index", "llms"] or len(package) < 3:
        return None
    return _PROVIDER_PACKAGES.get(package[2])


async def _iteration_limit_reached(handler: Any) -> int | None:
    """The iteration limit when the run reached it, as its run state records."""
    store = getattr(getattr(handler, "ctx", None), "store", None)
    if store is None:
        return None
    limit = await store.get("max_iterations", default=None)
    done = await store.get("num_iterations", default=0)
    return limit if isinstance(limit, int) and done >= limit else None


def _model_of(llm: Any) -> str | None:
    model = getattr(llm, "model", None)
    return model if isinstance(model, str) else None


def _asks_openai(llm: Any) -> bool:
    """Whether the LLM is LlamaIndex's OpenAI one (or built on it), which passes extra kwargs."""
    return any(
        cls.__name__ == "OpenAI" and cls.__module__.startswith("llama_index.llms.openai")
        for cls in type(llm).__mro__
    )


def _history(asked: Prompt) -> list[Any]:
    from llama_index.core.llms import ChatMessage

    return [
        ChatMessage(role=turn.role if turn.role in _ROLES else "user", content=turn.text)
        for turn in asked.history
    ]


def _answer(result: Any) -> str | None:
    response = getattr(result, "response", None)
    content = getattr(response, "content", None)
    return content if isinstance(content, str) and content else None


@dataclass
class _Reading:
    """The outcome built up from the workflow's events."""

    groups: Mapping[str, str]
    answered: Answered
    tokens: Tokens = field(default_factory=Tokens)
    calls: list[list[Any]] = field(default_factory=list)  # [ToolCall, its result or None]
    streamed: bool = False
    counted: bool = False  # whether the reply being read reported its usage

    def add(self, event: Any) -> None:
        from llama_index.core.agent.workflow import (
            AgentOutput,
            AgentStream,
            ToolCall,
            ToolCallResult,
        )

        if isinstance(event, AgentStream):
            self.streamed = True
            self._response(event.raw)
        elif isinstance(event, AgentOutput):
            # A streamed reply was counted chunk by chunk; its output repeats the last one.
            if not self.streamed:
                self._response(event.raw)
            if not self.counted:
                self.tokens.add(None, None)
            self.streamed = self.counted = False
        elif isinstance(event, ToolCallResult):
            self._result(event)
        elif isinstance(event, ToolCall):
            self.calls.append([event, None])

    def _response(self, raw: Any) -> None:
        data = _mapping(raw)
        usage = _mapping(data.get("usage"))
        if usage:
            self.counted = True
            self.tokens.add(usage.get("prompt_tokens"), usage.get("completion_tokens"))
        self.answered.add(data.get("model"))

    def _result(self, event: Any) -> None:
        # Ids may repeat across turns (a provider numbering each reply's calls from 0): a
        # result completes the earliest call with its id still waiting for one.
        for slot in self.calls:
            if slot[1] is None and slot[0].tool_id == event.tool_id:
                slot[1] = event
                return
        self.calls.append([event, event])

    def outcome(self, *, answer: str | None = None, error: str | None = None) -> Outcome:
        return Outcome(
            answer=answer,
            actions=tuple(self._action(call, result) for call, result in self.calls),
            usage=self.tokens.usage(),
            error=error if error is not None or answer is not None else "no answer",
            metadata=self.answered.metadata(),
        )

    def _action(self, call: Any, result: Any) -> Action:
        name = call.tool_name
        group = self.groups.get(name)
        if result is None:
            arguments = tool_arguments(call.tool_kwargs)
            return Action(name, arguments, group=group, error="the tool call never returned")
        output = result.tool_output
        exception = getattr(output, "exception", None)
        if exception is not None:
            error: str | None = describe_exception(exception)
        else:
            error = output.content if getattr(output, "is_error", False) else None
        raw = getattr(output, "raw_output", None)
        value = json_value(raw) if raw is not None and error is None else output.content
        arguments = tool_arguments(call.tool_kwargs)
        return Action(name, arguments, group=group, result=value, error=error)


def _mapping(value: Any) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    dumped = dump() if callable(dump) else None
    return dumped if isinstance(dumped, Mapping) else {}


def llamaindex_agent(
    agent: Any, *, action_groups: Mapping[str, str] | None = None
) -> LlamaIndexAgent:
    """Build the adapter from a LlamaIndex agent workflow."""
    if not callable(getattr(agent, "run", None)) or not hasattr(agent, "llm"):
        from assay_agents.errors import SpecError

        raise SpecError(
            f"{type(agent).__name__} is not a LlamaIndex agent: give a FunctionAgent or "
            "ReActAgent (an agent workflow with an llm)",
            field="agent",
        )
    return LlamaIndexAgent(agent=agent, action_groups=dict(action_groups or {}))
