"""What an agent did, read from the GenAI spans its framework emitted during one sample.

The OpenTelemetry GenAI semantic conventions name what this reads: an ``execute_tool`` span
(``gen_ai.operation.name``) is one tool call (``gen_ai.tool.name``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``, an error status or
``error.type``); a ``chat`` (or ``text_completion``, ``generate_content``) span is one model
call (``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``,
``gen_ai.response.model`` else ``gen_ai.request.model``). Older pydantic-ai releases name
the tool's content ``tool_arguments`` and ``tool_response``; both are read. Everything read
is untrusted text: it is stored as evidence, never executed or rendered raw.

No span is no evidence: a sample whose spans hold neither a tool call nor a model call (an
agent that is not instrumented, or one whose spans were emitted where the sample's context
did not reach, such as a plain thread) has unknown actions (``None``), so a check on its
actions cannot pass it. A model call with no tool call is evidence that no tool was called.
An attribute value is always kept as storable JSON or as text: one JSON cannot read (a
non-finite number, nesting past the interpreter's depth) stays text, and text longer than
:data:`~assay_agents.limits.MAX_CAPTURED_TEXT_CHARS` is cut with a marker.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_agents.agent import Action, Outcome, Usage
from assay_agents.agent.usage_by_model import MODEL_USAGE_KEY
from assay_agents.limits import MAX_CAPTURED_TEXT_CHARS
from assay_agents.spec import JSON

#: The operations that are one model call.
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
#: Where the per-call figures go in the sample's metadata.
CALLS_KEY = "captured_calls"
#: Where the differences between what the agent returned and what its spans say go.
DIFFERENCES_KEY = "capture_differences"

_ARGUMENTS = ("gen_ai.tool.call.arguments", "tool_arguments")
_RESULTS = ("gen_ai.tool.call.result", "tool_response")
_USAGE = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
)
#: Every attribute read: a span is reduced to these as it ends.
READ_ATTRIBUTES = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        *_ARGUMENTS,
        *_RESULTS,
        "error.type",
        "gen_ai.response.model",
        "gen_ai.request.model",
        *(name for _, name in _USAGE),
    }
)


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One finished span, reduced to what is read (from any tracing library)."""

    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any]
    error: str | None = None

    @property
    def latency_ms(self) -> float:
        """How long the span lasted."""
        return max(self.end_ns - self.start_ns, 0) / 1e6


@dataclass(frozen=True, slots=True)
class Captured:
    """What the spans of one sample say the agent did: its tool calls and its model calls.

    ``actions`` is ``None`` when no tool or model call was seen (nothing is known); ``model``
    is the one model that answered, ``None`` when several did (``model_usage`` then holds
    each model's tokens).
    """

    actions: tuple[Action, ...] | None
    usage: Usage | None
    model: str | None
    calls: tuple[dict[str, JSON], ...]
    model_usage: dict[str, JSON] | None = None

    @classmethod
    def of(cls, spans: Iterable[SpanRecord]) -> Captured:
        """Read the spans in the order they started."""
        actions: list[Action] = []
        calls: list[dict[str, JSON]] = []
        tally = _Tally()
        # One pass: this runs for every sample of a captured run, on the event loop.
        for span in sorted(spans, key=_start):
            operation = _operation(span)
            if operation == "execute_tool":
                name = _text(span.attributes.get("gen_ai.tool.name"))
                actions.append(_action(span, name))
                calls.append(_tool_call(span, name))
            elif operation in MODEL_OPERATIONS:
                call = _model_call(span, operation)
                tally.add(call)
                calls.append(call)
        seen = tuple(actions) if calls else None  # no call seen: the actions are unknown
        return cls(seen, tally.usage(), tally.model(), tuple(calls), tally.by_model())


def _start(span: SpanRecord) -> int:
    return span.start_ns


class _Tally:
    """The model calls' tokens and models, summed as the calls are read."""

    __slots__ = ("counted", "each", "input_tokens", "named", "output_tokens")

    def __init__(self) -> None:
        self.counted = False
        self.input_tokens = 0
        self.output_tokens = 0
        #: Each named model's tokens (calls of no named model leave them short: unpriced).
        self.each: dict[str, list[int]] = {}
        self.named: set[str] = set()

    def add(self, call: dict[str, JSON]) -> None:
        name = call.get("model")
        if isinstance(name, str):
            self.named.add(name)
        tokens_in = call.get("input_tokens")
        tokens_out = call.get("output_tokens")
        if tokens_in is None and tokens_out is None:
            return
        counts = (_count(tokens_in), _count(tokens_out))
        self.counted = True
        self.input_tokens += counts[0]
        self.output_tokens += counts[1]
        if isinstance(name, str):
            each = self.each.setdefault(name, [0, 0])
            each[0] += counts[0]
            each[1] += counts[1]

    def usage(self) -> Usage | None:
        return Usage(self.input_tokens, self.output_tokens) if self.counted else None

    def model(self) -> str | None:
        """The one model that answered, ``None`` when none or several did."""
        return next(iter(self.named)) if len(self.named) == 1 else None

    def by_model(self) -> dict[str, JSON] | None:
        if len(self.each) < 2:
            return None
        return {name: {"input_tokens": i, "output_tokens": o} for name, (i, o) in self.each.items()}


def from_spans(outcome: Outcome, captured: Captured) -> Outcome:
    """The merge rule: what the agent returned wins; the spans fill in what it left out.

    Actions, usage and the model (``metadata["model"]``, which prices the tokens; each
    model's tokens in ``metadata["model_usage"]`` when several answered) come from the spans
    when the agent gave none; where it gave its own and the spans disagree, the difference
    is recorded in ``metadata["capture_differences"]``. The per-call figures (model, tokens,
    latency) are kept in ``metadata["captured_calls"]``.
    """
    metadata: dict[str, JSON] = {**outcome.metadata, CALLS_KEY: list(captured.calls)}
    differences = _differences(outcome, captured)
    if differences:
        metadata[DIFFERENCES_KEY] = differences
    names_its_model = isinstance(outcome.metadata.get("model"), str)
    if captured.model is not None and not names_its_model:
        metadata["model"] = captured.model
    if captured.model_usage is not None and outcome.usage is None and not names_its_model:
        metadata.setdefault(MODEL_USAGE_KEY, captured.model_usage)
    return dataclasses.replace(
        outcome,
        actions=captured.actions if outcome.actions is None else outcome.actions,
        usage=captured.usage if outcome.usage is None else outcome.usage,
        metadata=metadata,
    )


def _differences(outcome: Outcome, captured: Captured) -> dict[str, JSON]:
    found: dict[str, JSON] = {}
    seen = captured.actions  # None: the spans say nothing about the agent's actions
    if outcome.actions is not None and seen is not None and _names(outcome.actions) != _names(seen):
        found["actions"] = {"returned": list(_names(outcome.actions)), "spans": list(_names(seen))}
    if outcome.usage is not None and captured.usage is not None:
        returned = (outcome.usage.input_tokens, outcome.usage.output_tokens)
        spans = (captured.usage.input_tokens, captured.usage.output_tokens)
        if returned != spans:
            found["usage"] = {"returned": list(returned), "spans": list(spans)}
    named = outcome.metadata.get("model")
    if isinstance(named, str) and captured.model is not None and named != captured.model:
        found["model"] = {"returned": named, "spans": captured.model}
    return found


def _names(actions: Sequence[Action]) -> tuple[str, ...]:
    return tuple(action.name for action in actions)


def _operation(span: SpanRecord) -> str | None:
    operation = span.attributes.get("gen_ai.operation.name")
    if isinstance(operation, str):
        return operation
    # Some instrumentations name the span after the operation only.
    head = span.name.split(" ", 1)[0]
    return head if head == "execute_tool" or head in MODEL_OPERATIONS else None


def _action(span: SpanRecord, name: str | None) -> Action:
    attributes = span.attributes
    name = name or span.name.removeprefix("execute_tool ")
    arguments = _decoded(_first(attributes, _ARGUMENTS))
    raw = _first(attributes, _RESULTS)
    return Action(
        name=_cut(name) if name else "unnamed tool",
        arguments=arguments if isinstance(arguments, dict) else _wrapped(arguments),
        result=_decoded(raw),
        error=span.error or _text(attributes.get("error.type")),
        # The text the model was handed is measured as it is, not re-encoded from its value.
        result_bytes=_size(raw) if isinstance(raw, str) else None,
    )


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _tool_call(span: SpanRecord, name: str | None) -> dict[str, JSON]:
    latency = round(span.latency_ms, 3)
    return {"operation": "execute_tool", "tool": _cut(name or span.name), "latency_ms": latency}


def _model_call(span: SpanRecord, operation: str) -> dict[str, JSON]:
    attributes = span.attributes
    call: dict[str, JSON] = {"operation": operation}
    model = _text(attributes.get("gen_ai.response.model")) or _text(
        attributes.get("gen_ai.request.model")
    )
    if model:
        call["model"] = model
    for key, name in _USAGE:
        value = attributes.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            call[key] = value
    call["latency_ms"] = round(span.latency_ms, 3)
    if span.error is not None:
        call["error"] = span.error
    return call


def _first(attributes: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in attributes:
            return attributes[key]
    return None


def _decoded(value: Any) -> JSON:
    """A JSON attribute as its value; any other text as the text (never evaluated).

    Text JSON cannot read (nesting past the interpreter's depth included) stays text; text
    past :data:`MAX_CAPTURED_TEXT_CHARS` is cut (and so stays text too).
    """
    if isinstance(value, str):
        if len(value) > MAX_CAPTURED_TEXT_CHARS:
            return _cut(value)
        try:
            decoded = _DECODER.decode(value)
        except (ValueError, RecursionError):
            return value
        return decoded  # type: ignore[no-any-return]
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return [_scalar(item) for item in value if isinstance(item, str | bool | int | float)]
    return _scalar(value)


def _scalar(value: Any) -> JSON:
    """One attribute value as storable JSON: a non-finite number as its text."""
    if isinstance(value, str):
        return _cut(value) if len(value) > MAX_CAPTURED_TEXT_CHARS else value
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return _cut(str(value))


def _cut(text: str) -> str:
    if len(text) <= MAX_CAPTURED_TEXT_CHARS:
        return text
    left = len(text) - MAX_CAPTURED_TEXT_CHARS
    return f"{text[:MAX_CAPTURED_TEXT_CHARS]}… [{left} more characters]"


def _refuse_constant(name: str) -> Any:
    # NaN and Infinity are not JSON any store keeps: such text stays text.
    raise ValueError(name)


#: One decoder for every attribute (building one per call costs more than decoding).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _wrapped(value: JSON) -> dict[str, JSON]:
    return {} if value is None else {"input": value}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: JSON | None) -> int:
    return value if isinstance(value, int) else 0
