"""What the agent did: its answer, its tool calls in order, what it read, and what it cost."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from assay_agents.agent.tool_errors import call_error, describe_exception
from assay_agents.errors import SpecError
from assay_agents.spec import JSON, canonical_json, portable
from assay_agents.spec.json_data import storable_text

#: How a cost is known; ``cached``: every model call was answered from the cache (nothing spent).
CostSource = Literal["reported", "estimated", "unpriced", "no_usage", "cached"]


@dataclass(frozen=True, slots=True)
class Action:
    """One tool call the agent actually made, as observed (never as claimed in prose).

    ``result_bytes`` is the size of the model-facing result; it is measured from ``result``
    (UTF-8 text, or canonical JSON) when not given. ``error`` is the call's error by the one
    rule of :mod:`assay_agents.agent.tool_errors`: the error recorded with it, else the one its
    result reports at its top level (``{"error": "..."}``, MCP ``isError``); a result that
    only mentions an error, or ``error=""``, is a successful call.
    """

    name: str
    arguments: dict[str, JSON] = field(default_factory=dict)
    group: str | None = None
    result: JSON = None
    error: str | None = None
    result_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.result_bytes is None:
            object.__setattr__(self, "result_bytes", measure_bytes(self.result))
        object.__setattr__(self, "error", call_error(self.error, self.result))

    @property
    def failed(self) -> bool:
        """Whether the call failed (see :func:`assay_agents.agent.tool_errors.call_error`)."""
        return self.error is not None


def measure_bytes(result: JSON) -> int:
    """Bytes a tool result takes when handed to a model: text as UTF-8, anything else as JSON."""
    if result is None:
        return 0
    if isinstance(result, str):
        return len(result.encode("utf-8"))
    return len(canonical_json(result).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and cost of one sample; cost is USD and ``None`` when nobody priced it."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cost_source: CostSource | None = None

    def __post_init__(self) -> None:
        # Bounds and finiteness are the store's to judge (see assay_agents.results.storable).
        for name in ("input_tokens", "output_tokens", "cost_usd"):
            value = getattr(self, name)
            if isinstance(value, int | float) and value < 0:
                raise SpecError(f"must not be negative, not {value!r}", field=name)

    @property
    def total_tokens(self) -> int | None:
        """Input plus output tokens, or ``None`` when neither was reported."""
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)


@dataclass(frozen=True, slots=True)
class Observation:
    """Named channels read from the system's own storage, e.g. ``commands`` or ``events``.

    ``truncated`` says a ceiling stopped the read early: every assertion that reads a
    truncated observation fails rather than passing over what nobody read. ``bound`` names
    the ceiling that cut it when Assay applied one (``max_observed=50``), so the failure
    says which setting to raise.
    """

    channels: dict[str, list[JSON]] = field(default_factory=dict)
    truncated: bool = False
    bound: str | None = field(default=None, metadata={"omit_none": True})


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the agent did on one sample.

    ``actions=None`` means the agent was not instrumented (any action expectation then errors);
    ``actions=[]`` means it was, and made no call. ``error`` marks the sample an agent error;
    an exception given as the error is stored as ``<Class>: <message>``.
    """

    answer: str | None = None
    actions: tuple[Action, ...] | None = None
    observation: Observation | None = None
    usage: Usage | None = None
    duration_ms: float | None = None
    error: str | None = None
    metadata: dict[str, JSON] = field(default_factory=dict)

    def max_result_bytes(self) -> int:
        """The largest model-facing tool result of the sample, in bytes (0 without actions)."""
        return max((action.result_bytes or 0 for action in self.actions or ()), default=0)


_OUTCOME_FIELDS = frozenset(f.name for f in fields(Outcome))


def coerce_outcome(value: Any) -> Outcome:
    """Turn what an agent returned into an :class:`Outcome`, or raise :class:`SpecError`.

    An agent may return an Outcome, a string (the answer) or a mapping of Outcome fields;
    everything it returns must be JSON-portable so it can be stored.
    """
    if isinstance(value, Outcome):
        return _normalise(value)
    if isinstance(value, str):
        return Outcome(answer=value)
    if isinstance(value, Mapping):
        unknown = set(value) - _OUTCOME_FIELDS
        if unknown:
            raise SpecError(
                f"unknown outcome field(s) {sorted(unknown)}; an outcome has "
                f"{', '.join(sorted(_OUTCOME_FIELDS))}"
            )
        return _normalise(Outcome(**dict(value)))
    if value is None:
        raise SpecError("the agent returned nothing (None); return an answer or an Outcome")
    raise SpecError(
        f"the agent returned a {type(value).__name__}; return a str, a mapping or an assay.Outcome"
    )


def _normalise(outcome: Outcome) -> Outcome:
    answer = outcome.answer
    if answer is not None and not isinstance(answer, str):
        raise SpecError(f"answer must be a string, not {type(answer).__name__}", field="answer")
    if answer is not None:
        storable_text(answer, "answer")
    metadata = portable(outcome.metadata or {}, "metadata")
    assert isinstance(metadata, dict)
    return Outcome(
        answer=answer,
        actions=_actions(outcome.actions),
        observation=_observation(outcome.observation),
        usage=_usage(outcome.usage),
        duration_ms=_optional_number(outcome.duration_ms, "duration_ms"),
        error=_error_text(outcome.error),
        metadata=metadata,
    )


def _error_text(error: Any) -> str | None:
    """An outcome's error as stored text: an exception as ``<Class>: <message>``."""
    if error is None:
        return None
    text = describe_exception(error) if isinstance(error, BaseException) else str(error)
    return storable_text(text, "error")


def _actions(values: Sequence[Any] | None) -> tuple[Action, ...] | None:
    if values is None:
        return None
    if isinstance(values, str | bytes | Mapping):
        raise SpecError("must be a list of actions", field="actions")
    return tuple(_action(value, f"actions[{i}]") for i, value in enumerate(values))


def _action(value: Any, path: str) -> Action:
    if isinstance(value, Mapping):
        unknown = set(value) - {f.name for f in fields(Action)}
        if unknown:
            raise SpecError(f"unknown key(s) {sorted(unknown)}", field=path)
        value = Action(**dict(value))
    if not isinstance(value, Action):
        raise SpecError("must be an assay.Action or a mapping", field=path)
    if not isinstance(value.name, str) or not value.name:
        raise SpecError("needs a non-empty name", field=f"{path}.name")
    arguments = portable(value.arguments or {}, f"{path}.arguments")
    if not isinstance(arguments, dict):
        raise SpecError("must be a mapping", field=f"{path}.arguments")
    return Action(
        name=value.name,
        arguments=arguments,
        group=value.group,
        result=portable(value.result, f"{path}.result"),
        error=value.error,  # the Action reads it by the tool-error rule
        result_bytes=value.result_bytes,
    )


def _observation(value: Any) -> Observation | None:
    if value is None or isinstance(value, Observation):
        return value
    if not isinstance(value, Mapping):
        raise SpecError("must be an Observation or a mapping of channels", field="observation")
    channels = {key: item for key, item in value.items() if key != "truncated"}
    converted = portable(channels, "observation")
    assert isinstance(converted, dict)
    for key, items in converted.items():
        if not isinstance(items, list):
            raise SpecError("a channel is a list", field=f"observation.{key}")
    return Observation(
        channels=converted,  # type: ignore[arg-type]
        truncated=bool(value.get("truncated", False)),
    )


def _usage(value: Any) -> Usage | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        unknown = set(value) - {f.name for f in fields(Usage)}
        if unknown:
            raise SpecError(f"unknown key(s) {sorted(unknown)}", field="usage")
        value = Usage(**dict(value))
    if not isinstance(value, Usage):
        raise SpecError("must be an assay.Usage or a mapping", field="usage")
    for name in ("input_tokens", "output_tokens"):
        tokens = getattr(value, name)
        if tokens is not None and (
            isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0
        ):
            raise SpecError("must be a non-negative whole number", field=f"usage.{name}")
    cost = _optional_number(value.cost_usd, "usage.cost_usd")
    # A cost without a source is the caller's own figure; tokens without a cost are unpriced;
    # neither is no usage at all, which no price could fix.
    source = value.cost_source or (
        "reported"
        if cost is not None
        else "unpriced"
        if value.total_tokens is not None
        else "no_usage"
    )
    return Usage(value.input_tokens, value.output_tokens, cost, source)


def _optional_number(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError("must be a number", field=path)
    if not math.isfinite(value) or value < 0:
        raise SpecError(f"{value!r} is not a finite, non-negative number", field=path)
    return float(value)
