"""An OpenAI Agents SDK ``Agent`` as an Assay agent (``pip install 'assay-agents[openai-agents]'``).

Each sample is one ``Runner.run``. With a model asked for, the run's ``RunConfig.model`` is
that model: the agent's own model class (Chat Completions or Responses) on its own client
when it has one, else the name, resolved by the run config's model provider as the SDK
resolves the agent's. The SDK's result names no model, so the sample records the model it
was configured to call (``metadata["model"]``, which prices its tokens); a run that names
models reads the model that answered from the HTTP responses themselves.

Each response is the model's of the agent that made it (a handoff moves the run to
another agent, maybe on another model): a run that only one model answered records it as
``metadata["model"]``; one that several answered records each model's tokens instead
(:mod:`assay_agents.agent.usage_by_model`), so each is priced at its own rate. Without ``--model``,
``answered_model`` is the model of the agent that gave the final answer, as configured.

A tool that raised is the error the SDK handed the model in its place (its default
"An error occurred while running the tool" reply); a custom ``failure_error_function``
marks one by returning ``{"error": ...}``. The SDK logs such a failure too (with a
traceback when ``OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0``); while samples run, a record no
handler of the user's would take is dropped rather than printed over the progress display
by Python's last-resort handler. Tracing is off unless ``tracing=True``: an evaluation's
traffic is posted nowhere by default.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters.agents_tracing import PRIVATE_KEY, SPANS_READ
from assay_agents.agent.adapters.framework import (
    ModelTokens,
    ToolLog,
    Turn,
    answer_text,
    chat_turns,
)
from assay_agents.agent.answered import ANSWERED_MODEL_KEY
from assay_agents.agent.context import AgentContext
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Outcome
from assay_agents.errors import ConfigurationError

_MARK = "\x00assay\x00"
#: The SDK's loggers: its own named one, and the parent of its modules' ``__name__`` ones.
_SDK_LOGGERS = ("openai.agents", "agents")


@dataclass(kw_only=True)
class OpenAIAgentsAgent:
    """Runs an Agents SDK agent for each sample (see :func:`assay_agents.agents.openai_agents`)."""

    agent: Any
    action_groups: Mapping[str, str] = field(default_factory=dict)
    run_config: Any = None
    tracing: bool = False
    max_turns: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    _built: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def prepare(self) -> None:
        """Import the SDK before any sample's clock starts."""
        import agents  # noqa: F401

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse, before any request, a model this agent cannot be pointed at."""
        for spec in models:
            self._model(spec)

    def tool_descriptions(self) -> dict[str, str]:
        """Each tool the agent offers and its description: diagnosis's roster."""
        return {
            tool.name: getattr(tool, "description", None) or tool.name for tool in self.agent.tools
        }

    @property
    def instructions(self) -> str | None:
        """The agent's instructions, when they are text rather than a function."""
        own = self.agent.instructions
        return own if isinstance(own, str) else None

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """One ``Runner.run`` on the case's input, as an Outcome."""
        from agents import AgentsException, Runner

        config = self._config(ctx.model)
        extra = dict(self.options)
        if self.max_turns is not None:
            extra["max_turns"] = self.max_turns
        given: Any = _input(chat_turns(value))  # the SDK's input items, as typed dicts
        try:
            with _sdk_logs_kept_off_stderr():
                result = await Runner.run(self.agent, given, run_config=config, **extra)
        except AgentsException as error:
            data = error.run_data
            stopped = f"{type(error).__name__}: {error}"
            if data is None:
                return self._outcome([], [], None, stopped, config, ctx)
            return self._outcome(data.new_items, data.raw_responses, None, stopped, config, ctx)
        answer = answer_text(result.final_output)
        return self._outcome(result.new_items, result.raw_responses, answer, None, config, ctx)

    def _config(self, spec: ModelSpec | None) -> Any:
        from agents import RunConfig

        base = self.run_config if self.run_config is not None else RunConfig()
        changes: dict[str, Any] = _tracing(base, asked=self.tracing)
        if spec is not None:
            changes["model"] = self._model(spec)
        return dataclasses.replace(base, **changes)

    def _model(self, spec: ModelSpec) -> Any:
        """The model for ``spec``, built once (it holds the agent's client)."""
        if spec.model not in self._built:
            self._built[spec.model] = self._build(spec.model)
        return self._built[spec.model]

    def _build(self, name: str) -> Any:
        from agents import OpenAIChatCompletionsModel, OpenAIResponsesModel

        own = self._configured()
        if own is None or isinstance(own, str):
            return name  # resolved by the run config's model provider, as the agent's is
        client = getattr(own, "_client", None)  # the SDK keeps no public handle on it
        if isinstance(own, OpenAIChatCompletionsModel | OpenAIResponsesModel) and client:
            return type(own)(name, client)
        raise ConfigurationError(
            f"the agent's model ({type(own).__name__}) cannot be pointed at {name!r}: give "
            "it a model name or an OpenAI model class, or pass run_config=RunConfig("
            "model_provider=...) with a model name, or drop --model"
        )

    def _configured(self) -> Any:
        """The model the run would call without Assay: the run config's, else the agent's."""
        if self.run_config is not None and self.run_config.model is not None:
            return self.run_config.model
        return self.agent.model

    def _outcome(
        self,
        items: Sequence[Any],
        responses: Sequence[Any],
        answer: str | None,
        stopped: str | None,
        config: Any,
        ctx: AgentContext,
    ) -> Outcome:
        log = ToolLog(self.action_groups)
        for item in items:
            _record(item, log)
        tokens = ModelTokens(None)
        models = [self._model_of(agent, config) for agent in _answerers(items, responses)]
        for model, response in zip(models, responses, strict=True):
            tokens.add(model, response.usage.input_tokens, response.usage.output_tokens)
        metadata = tokens.metadata()
        if not metadata:  # no response came: the model it was configured to call
            metadata = {"model": self._model_of(self.agent, config)}
        if models and ctx.model is None:
            metadata[ANSWERED_MODEL_KEY] = models[-1]
        return Outcome(
            answer=answer,
            actions=log.actions(stopped),
            usage=tokens.usage(),
            error=stopped if answer is None else None,
            metadata=metadata,
        )

    def _model_of(self, agent: Any, config: Any) -> str:
        """The model ``agent`` calls in a run on ``config`` (the run's model overrides its own)."""
        if agent is None:
            agent = self.agent
        return _name(config.model if config.model is not None else agent.model)


def _answerers(items: Sequence[Any], responses: Sequence[Any]) -> list[Any]:
    """The agent that made each response: the one the items from its output belong to.

    A response none of whose output became an item (an empty one) is the agent's before it;
    ``None`` stands for the starting agent.
    """
    owners = {id(item.raw_item): getattr(item, "agent", None) for item in items}
    found: list[Any] = []
    for response in responses:
        outputs = [owners[id(output)] for output in response.output if id(output) in owners]
        found.append(outputs[0] if outputs else (found[-1] if found else None))
    return found


_quieted = 0
_quieting = threading.Lock()
_DISCARD = logging.NullHandler()


@contextlib.contextmanager
def _sdk_logs_kept_off_stderr() -> Iterator[None]:
    """While samples run, the SDK's records reach the user's handlers, never the last resort.

    A logger with no handler anywhere up its chain prints WARNING and above to stderr
    (``logging.lastResort``), over the progress display. A do-nothing handler on the SDK's
    loggers stops that alone; records still propagate to any handler the user configured.
    It is removed when the last sample ends, so nothing stays changed after the run.
    """
    global _quieted
    with _quieting:
        _quieted += 1
        if _quieted == 1:
            for name in _SDK_LOGGERS:
                logging.getLogger(name).addHandler(_DISCARD)
    try:
        yield
    finally:
        with _quieting:
            _quieted -= 1
            if _quieted == 0:
                for name in _SDK_LOGGERS:
                    logging.getLogger(name).removeHandler(_DISCARD)


def _tracing(base: Any, *, asked: bool) -> dict[str, Any]:
    """The run's tracing: as the user asked, or on for Assay's span capture alone.

    With tracing off (the default) while Assay reads this call's spans, the run is traced
    with its trace marked as Assay's: it reaches no other trace processor, so nothing is
    posted anywhere (see :mod:`assay_agents.agent.adapters.agents_tracing`).
    """
    if asked or base.tracing_disabled:
        return {"tracing_disabled": base.tracing_disabled}
    if not SPANS_READ.get():
        return {"tracing_disabled": True}
    return {
        "tracing_disabled": False,
        "trace_metadata": {**(base.trace_metadata or {}), PRIVATE_KEY: True},
    }


def _record(item: Any, log: ToolLog) -> None:
    kind = getattr(item, "type", None)
    if kind == "tool_call_item" and item.call_id and item.tool_name:
        raw = item.raw_item
        arguments = raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", "")
        log.call(item.call_id, item.tool_name, arguments)
    elif kind == "tool_call_output_item" and item.call_id:
        raw = item.raw_item
        text = raw.get("output") if isinstance(raw, dict) else None
        shown = text if isinstance(text, str) else None
        log.result(item.call_id, item.output, text=shown, error=_caught(item.output))


def _caught(output: Any) -> str | None:
    """The SDK's reply for a tool that raised (its default error handler's), else ``None``."""
    if not isinstance(output, str):
        return None
    from agents import default_tool_error_function

    # The handler's wording, read from the installed SDK rather than copied here.
    prefix = default_tool_error_function(None, Exception(_MARK)).partition(_MARK)[0]  # type: ignore[arg-type]
    return output if prefix and output.startswith(prefix) else None


def _input(turns: list[Turn]) -> str | list[dict[str, Any]]:
    """The case's input as the SDK's own input items (a single question as text)."""
    if len(turns) == 1 and turns[0].role == "user":
        return turns[0].text
    items: list[dict[str, Any]] = []
    for turn in turns:
        if turn.role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": turn.call_id, "output": turn.text}
            )
            continue
        if turn.text or not turn.calls:
            role = turn.role if turn.role in ("system", "developer", "assistant") else "user"
            items.append({"role": role, "content": turn.text})
        items.extend(
            {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
            for c in turn.calls
        )
    return items


def _name(model: Any) -> str:
    """The name of the model a run calls; the SDK's default when nobody set one."""
    if isinstance(model, str) and model:
        return model
    named = getattr(model, "model", None)
    if isinstance(named, str) and named:
        return named
    from agents.models import get_default_model

    return get_default_model()
