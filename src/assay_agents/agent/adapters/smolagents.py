"""A smolagents agent (``ToolCallingAgent``, ``CodeAgent``) as an Assay agent.

The run is read from the events smolagents streams: each ``ToolCall`` is an action, paired
with its ``ToolOutput`` by id within its step; a call whose step failed before it produced an
output (the tool raised) is errored with the step's error. ``final_answer`` is smolagents'
way of answering, not an action: its argument is the answer. Tokens are summed over the
steps' ``token_usage``; the model that answered is the one the responses named.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters._framework import (
    Answered,
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

FINAL_ANSWER = "final_answer"


@dataclass(kw_only=True)
class SmolagentsAgent:
    """Runs a smolagents agent on each sample and reads its outcome from the streamed steps.

    A smolagents agent keeps its memory on itself, so samples given one agent object run one
    at a time; built from a function that returns a new agent, they run concurrently. The
    model is the sample's (``--model``) when the agent's model is an API model (OpenAI,
    LiteLLM, Inference Providers), switched for that sample only; a model that cannot be
    switched answers every sample, and a run asking for another is refused before it starts.
    """

    agent: Any = None
    build: Callable[[], Any] | None = None
    action_groups: Mapping[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _running: set[int] = field(default_factory=set, init=False, repr=False)

    def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """Run one sample (in the worker thread Assay gives sync agents)."""
        task = prompt(value).transcript()
        if self.build is None:
            with self._lock, _model_for(self.agent, ctx.model) as model:
                return self._run(self.agent, task, model)
        agent = self.build()
        with self._claimed(agent), _model_for(agent, ctx.model) as model:
            return self._run(agent, task, model)

    @contextlib.contextmanager
    def _claimed(self, agent: Any) -> Iterator[None]:
        """The built agent held by this sample alone: one memory cannot serve two runs."""
        with self._lock:
            if id(agent) in self._running:
                raise ConfigurationError(_shared_build(self.build))
            self._running.add(id(agent))
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(id(agent))

    def prepare(self) -> None:
        """Import smolagents before any sample's clock starts."""
        import smolagents  # noqa: F401

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse a model matrix the agent's model cannot follow, before any call."""
        agent = self._agent()
        model = agent.model
        if not models:
            return
        if not _switchable(model):
            called = getattr(model, "model_id", None)
            others = [spec.label for spec in models if called not in (spec.model, spec.label)]
            if others:
                raise ConfigurationError(model_matrix_refused("smolagents", called, others))
            return
        if not _names_provider(model):
            refused = providers_refused("smolagents", _client(model), _reaches(model), models)
            if refused:
                raise ConfigurationError(refused)

    def _agent(self) -> Any:
        """The agent a sample would get; a build function returning one agent is refused."""
        if self.build is None:
            return self.agent
        first = self.build()
        if self.build() is first:
            raise ConfigurationError(_shared_build(self.build))
        return first

    def _run(self, agent: Any, task: str, model: str | None) -> Outcome:
        reading = _Reading(self.action_groups, Answered(model))
        try:
            reading.read(agent.run(task, stream=True, reset=True))
        except Exception as error:  # the framework's failure is the sample's, with its trace
            return reading.outcome(error=describe_exception(error))
        return reading.stopped(agent) or reading.outcome()


@dataclass
class _Reading:
    """The outcome built up from smolagents' stream, event by event."""

    groups: Mapping[str, str]
    answered: Answered
    actions: list[Action] = field(default_factory=list)
    tokens: Tokens = field(default_factory=Tokens)
    answer: str | None = None
    calls: list[Any] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    steps: set[int] = field(default_factory=set)

    def read(self, events: Iterable[Any]) -> None:
        from smolagents.agents import ToolOutput
        from smolagents.memory import ActionStep, FinalAnswerStep, PlanningStep, ToolCall

        for event in events:
            if isinstance(event, ToolCall) and event.name != FINAL_ANSWER:
                self.calls.append(event)
            elif isinstance(event, ToolOutput):
                self.outputs[event.id] = event
            elif isinstance(event, ActionStep | PlanningStep):
                self._step(event)
            elif isinstance(event, FinalAnswerStep):
                self.answer = _answer_text(event.output)

    def stopped(self, agent: Any) -> Outcome | None:
        """The sample as an error when the agent hit its step limit rather than answering.

        smolagents then asks the model for a summary and offers it as the answer; the step
        recording the limit (and the summary call's tokens) is in memory, not the stream.
        """
        from smolagents.utils import AgentMaxStepsError

        steps = agent.memory.steps
        last = steps[-1] if steps else None
        if not isinstance(getattr(last, "error", None), AgentMaxStepsError):
            return None
        self._step(last)
        return Outcome(
            answer=None,
            actions=tuple(self.actions),
            usage=self.tokens.usage(),
            error=f"the agent stopped at its step limit (max_steps={agent.max_steps}) "
            "without a final answer",
            metadata=self.answered.metadata(),
        )

    def _step(self, step: Any) -> None:
        # smolagents streams the last step twice when the run hits its step limit.
        if id(step) in self.steps:
            return
        self.steps.add(id(step))
        usage = getattr(step, "token_usage", None)
        if usage is not None:
            self.tokens.add(usage.input_tokens, usage.output_tokens)
        raw = getattr(getattr(step, "model_output_message", None), "raw", None)
        self.answered.add(
            raw.get("model") if isinstance(raw, Mapping) else getattr(raw, "model", None)
        )
        failure = getattr(step, "error", None)
        for call in self.calls:
            self.actions.append(self._action(call, self.outputs.get(call.id), step, failure))
        # Call ids are unique within a step only: each step pairs its own.
        self.calls, self.outputs = [], {}

    def _action(self, call: Any, output: Any, step: Any, failure: Any) -> Action:
        group = self.groups.get(call.name)
        if output is not None:
            result = json_value(output.output)
            return Action(call.name, tool_arguments(call.arguments), group=group, result=result)
        if failure is not None:
            return Action(
                call.name, tool_arguments(call.arguments), group=group, error=_step_error(failure)
            )
        # A call without an output of its own (CodeAgent's code): the step's observations.
        return Action(
            call.name,
            tool_arguments(call.arguments),
            group=group,
            result=getattr(step, "observations", None),
        )

    def outcome(self, error: str | None = None) -> Outcome:
        return Outcome(
            answer=self.answer,
            actions=tuple(self.actions),
            usage=self.tokens.usage(),
            error=error if error is not None or self.answer is not None else "no final answer",
            metadata=self.answered.metadata(),
        )


def _step_error(failure: BaseException) -> str:
    """The tool's own exception when the step wraps one, else the step's error."""
    cause = failure.__cause__
    return describe_exception(cause) if cause is not None else describe_exception(failure)


def _answer_text(output: Any) -> str | None:
    if output is None:
        return None
    if isinstance(output, dict | list):
        return json.dumps(output, ensure_ascii=False)
    return str(output)


def _switchable(model: Any) -> bool:
    from smolagents.models import ApiModel

    return isinstance(model, ApiModel) and isinstance(getattr(model, "model_id", None), str)


def _names_provider(model: Any) -> bool:
    """Whether the model's name carries its provider (LiteLLM's ``provider/model``)."""
    from smolagents.models import LiteLLMModel

    return isinstance(model, LiteLLMModel)


def _reaches(model: Any) -> str | None:
    """The provider the model's client serves; ``None`` for an endpoint of the user's own."""
    import os

    from smolagents.models import AzureOpenAIModel, OpenAIModel

    if isinstance(model, AzureOpenAIModel):
        return "azure"
    own_endpoint = model.client_kwargs.get("base_url") if isinstance(model, OpenAIModel) else None
    if isinstance(model, OpenAIModel) and not (own_endpoint or os.environ.get("OPENAI_BASE_URL")):
        return "openai"
    return None


def _client(model: Any) -> str:
    return f"model ({type(model).__name__})"


def _model_name(model: Any, spec: ModelSpec) -> str:
    return f"{spec.provider}/{spec.model}" if _names_provider(model) else spec.model


def _shared_build(build: Any) -> str:
    name = getattr(build, "__qualname__", None) or repr(build)
    return (
        f"the smolagents build function {name} returns the same agent for every sample, and "
        "one agent's memory cannot serve two samples at once: make it return a new agent on "
        "each call, or pass the agent object itself (its samples then run one at a time)"
    )


@contextlib.contextmanager
def _model_for(agent: Any, spec: ModelSpec | None) -> Iterator[str | None]:
    """The agent on the sample's model for the sample's run, and the model's name.

    The model object is copied, not changed: a model shared between agents (or with the
    user's own code) keeps its own name.
    """
    import copy

    own = agent.model
    if spec is None or not _switchable(own):
        yield getattr(own, "model_id", None)
        return
    switched = copy.copy(own)
    switched.model_id = _model_name(own, spec)
    agent.model = switched
    try:
        yield switched.model_id
    finally:
        agent.model = own


def smolagents_agent(
    agent: Any, *, action_groups: Mapping[str, str] | None = None
) -> SmolagentsAgent:
    """Build the adapter from an agent object or a function returning a new agent."""
    from smolagents.agents import MultiStepAgent

    if isinstance(agent, MultiStepAgent):
        return SmolagentsAgent(agent=agent, action_groups=dict(action_groups or {}))
    if callable(agent):
        return SmolagentsAgent(build=agent, action_groups=dict(action_groups or {}))
    from assay_agents.errors import SpecError

    raise SpecError(
        f"{type(agent).__name__} is not a smolagents agent: give a ToolCallingAgent or "
        "CodeAgent, or a function that builds one",
        field="agent",
    )
