"""A pydantic-ai ``Agent`` as an Assay agent (``pip install 'assay-agents[pydantic-ai]'``).

Each sample is one ``agent.run``, on the sample's model when the run names one: the agent's
own model class and provider are kept and only the model name changes (an
``OpenAIChatModel`` pointed at a gateway stays pointed at it). Actions come from the run's
messages: a ``ToolReturnPart`` is a call's result (errored when pydantic-ai marks it failed,
or when it reports an error at its top level), a ``RetryPromptPart`` for a tool is a failed
call, and a tool that raised, which stops a pydantic-ai run, is the call that stopped it.
Tokens are summed over the run's responses; the model each response names is recorded, and
a run several models answered (a ``FallbackModel`` that fell back part-way) has each model's
tokens recorded apart, so each is priced at its own rate (:mod:`assay_agents.agent.usage_by_model`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters.framework import (
    ModelTokens,
    ToolLog,
    Turn,
    answer_text,
    answered_metadata,
    chat_turns,
    split_prompt,
)
from assay_agents.agent.context import AgentContext
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Outcome
from assay_agents.errors import ConfigurationError
from assay_agents.spec import JSON


@dataclass(kw_only=True)
class PydanticAIAgent:
    """Runs a pydantic-ai agent for each sample (see :func:`assay_agents.agents.pydantic_ai`)."""

    agent: Any
    action_groups: Mapping[str, str] = field(default_factory=dict)
    model_for: Callable[[str], Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    _built: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def prepare(self) -> None:
        """Import pydantic-ai before any sample's clock starts."""
        import pydantic_ai  # noqa: F401

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse, before any request, a model this agent cannot be pointed at."""
        for spec in models:
            self._model(spec)

    def tool_descriptions(self) -> dict[str, str]:
        """Each function tool the agent offers and its description: diagnosis's roster."""
        described: dict[str, str] = {}
        for toolset in self.agent.toolsets:
            for name, tool in (getattr(toolset, "tools", None) or {}).items():
                described[name] = getattr(tool, "description", None) or name
        return described

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """One ``agent.run`` on the case's input, as an Outcome."""
        from pydantic_ai import capture_run_messages

        history, prompt = split_prompt(chat_turns(value))
        model = None if ctx.model is None else self._model(ctx.model)
        with capture_run_messages() as messages:
            try:
                result = await self.agent.run(
                    prompt, message_history=_history(history) or None, model=model, **self.options
                )
            except Exception as error:
                stopped = f"{type(error).__name__}: {error}"
                return self._outcome(messages[len(history) :], None, stopped, model)
        return self._outcome(result.new_messages(), answer_text(result.output), None, model)

    def _model(self, spec: ModelSpec) -> Any:
        """The framework model for ``spec``, built once (a model holds its client)."""
        if spec.model not in self._built:
            self._built[spec.model] = self._build(spec)
        return self._built[spec.model]

    def _build(self, spec: ModelSpec) -> Any:
        """The agent's own kind of model, or provider, with the model name of ``spec``."""
        if self.model_for is not None:
            return self.model_for(spec.model)
        own = self.agent.model
        if isinstance(own, str) or own is None:
            from pydantic_ai.models import infer_model

            prefix = own.partition(":")[0] if own and ":" in own else spec.provider
            return infer_model(f"{prefix}:{spec.model}")
        try:
            return type(own)(spec.model, provider=own.provider, settings=own.settings)
        except TypeError as error:
            raise ConfigurationError(
                f"the pydantic-ai agent's model ({type(own).__name__}) cannot be pointed at "
                f"{spec.label!r} ({error}): pass model_for=, a function building the model for "
                "a name, or drop --model"
            ) from None

    def _outcome(
        self, messages: Sequence[Any], answer: str | None, stopped: str | None, model: Any
    ) -> Outcome:
        log = ToolLog(self.action_groups)
        named: list[str] = []
        called = _name(model if model is not None else self.agent.model)
        tokens = ModelTokens(called)
        for message in messages:
            if message.kind == "response":
                named.append(message.model_name)
                tokens.add(
                    message.model_name, message.usage.input_tokens, message.usage.output_tokens
                )
            _record(message, log)
        metadata: dict[str, JSON] = answered_metadata(called, named)
        metadata.update(
            tokens.metadata() if named else ({} if called is None else {"model": called})
        )
        return Outcome(
            answer=answer,
            actions=log.actions(stopped),
            usage=tokens.usage(),
            error=stopped if answer is None else None,
            metadata=metadata,
        )


def _record(message: Any, log: ToolLog) -> None:
    for part in message.parts:
        kind = part.part_kind
        if kind == "tool-call":
            log.call(part.tool_call_id, part.tool_name, part.args)
        elif kind == "tool-return":
            failed = getattr(part, "outcome", "success") == "failed"
            text = part.model_response_str()
            log.result(part.tool_call_id, part.content, text=text, error=text if failed else None)
        elif kind == "retry-prompt" and part.tool_name:
            text = part.model_response()
            log.result(part.tool_call_id, text, text=text, error=text)


def _history(turns: list[Turn]) -> list[Any]:
    """The conversation before the prompt as pydantic-ai messages."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    names = {call.id: call.name for turn in turns for call in turn.calls}
    messages: list[Any] = []
    for turn in turns:
        if turn.role == "assistant":
            parts: list[Any] = [TextPart(turn.text)] if turn.text else []
            parts += [ToolCallPart(c.name, c.arguments, c.id) for c in turn.calls]
            messages.append(ModelResponse(parts=parts))
        elif turn.role == "tool":
            call_id = turn.call_id or ""
            part = ToolReturnPart(names.get(call_id, "tool"), turn.text, call_id)
            messages.append(ModelRequest(parts=[part]))
        elif turn.role in ("system", "developer"):
            messages.append(ModelRequest(parts=[SystemPromptPart(turn.text)]))
        else:
            messages.append(ModelRequest(parts=[UserPromptPart(turn.text)]))
    return messages


def _name(model: Any) -> str | None:
    """The bare model name of a pydantic-ai model or ``provider:name`` string."""
    if isinstance(model, str):
        return model.rpartition(":")[2] or None
    name = getattr(model, "model_name", None)
    return name if isinstance(name, str) and name else None
