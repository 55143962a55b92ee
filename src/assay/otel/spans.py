"""What an agent did, read from the GenAI spans its framework emitted during one sample.

The OpenTelemetry GenAI semantic conventions name what this reads: an ``execute_tool`` span
(``gen_ai.operation.name``) is one tool call (``gen_ai.tool.name``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``, an error status or
``error.type``); a ``chat`` (or ``text_completion``, ``generate_content``) span is one model
call (``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``,
``gen_ai.response.model`` else ``gen_ai.request.model``). Older pydantic-ai releases name
the tool's content ``tool_arguments`` and ``tool_response``; both are read. Everything read
is untrusted text: it is stored as evidence, never executed or rendered raw.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.agent import Action, Outcome, Usage
from assay.spec import JSON

#: The operations that are one model call.
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
#: Where the per-call figures go in the sample's metadata.
CALLS_KEY = "captured_calls"
#: Where the differences between what the agent returned and what its spans say go.
DIFFERENCES_KEY = "capture_differences"

_ARGUMENTS = ("gen_ai.tool.call.arguments", "tool_arguments")
_RESULTS = ("gen_ai.tool.call.result", "tool_response")


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
    """What the spans of one sample say the agent did: its tool calls and its model calls."""

    actions: tuple[Action, ...]
    usage: Usage | None
    model: str | None
    calls: tuple[dict[str, JSON], ...]

    @classmethod
    def of(cls, spans: Iterable[SpanRecord]) -> Captured:
        """Read the spans in the order they started."""
        actions: list[Action] = []
        calls: list[dict[str, JSON]] = []
        model: str | None = None
        tokens_in = tokens_out = 0
        counted = False
        for span in sorted(spans, key=lambda span: span.start_ns):
            operation = _operation(span)
            if operation == "execute_tool":
                actions.append(_action(span))
                calls.append(_tool_call(span))
            elif operation in MODEL_OPERATIONS:
                call = _model_call(span, operation)
                calls.append(call)
                model = _text(call.get("model")) or model
                if "input_tokens" in call or "output_tokens" in call:
                    counted = True
                    tokens_in += _count(call.get("input_tokens"))
                    tokens_out += _count(call.get("output_tokens"))
        usage = Usage(tokens_in, tokens_out) if counted else None
        return cls(tuple(actions), usage, model, tuple(calls))


def from_spans(outcome: Outcome, captured: Captured) -> Outcome:
    """The merge rule: what the agent returned wins; the spans fill in what it left out.

    Actions, usage and the model (``metadata["model"]``, which prices the tokens) come from
    the spans when the agent gave none; where it gave its own and the spans disagree, the
    difference is recorded in ``metadata["capture_differences"]``. The per-call figures
    (model, tokens, latency) are kept in ``metadata["captured_calls"]``.
    """
    metadata: dict[str, JSON] = {**outcome.metadata, CALLS_KEY: list(captured.calls)}
    differences = _differences(outcome, captured)
    if differences:
        metadata[DIFFERENCES_KEY] = differences
    if captured.model is not None and not isinstance(outcome.metadata.get("model"), str):
        metadata["model"] = captured.model
    return dataclasses.replace(
        outcome,
        actions=captured.actions if outcome.actions is None else outcome.actions,
        usage=captured.usage if outcome.usage is None else outcome.usage,
        metadata=metadata,
    )


def _differences(outcome: Outcome, captured: Captured) -> dict[str, JSON]:
    found: dict[str, JSON] = {}
    if outcome.actions is not None and _names(outcome.actions) != _names(captured.actions):
        found["actions"] = {
            "returned": list(_names(outcome.actions)),
            "spans": list(_names(captured.actions)),
        }
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


def _action(span: SpanRecord) -> Action:
    attributes = span.attributes
    name = _text(attributes.get("gen_ai.tool.name")) or span.name.removeprefix("execute_tool ")
    arguments = _decoded(_first(attributes, _ARGUMENTS))
    raw = _first(attributes, _RESULTS)
    return Action(
        name=name or "unnamed tool",
        arguments=arguments if isinstance(arguments, dict) else _wrapped(arguments),
        result=_decoded(raw),
        error=span.error or _text(attributes.get("error.type")),
        # The text the model was handed is measured as it is, not re-encoded from its value.
        result_bytes=_size(raw) if isinstance(raw, str) else None,
    )


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _tool_call(span: SpanRecord) -> dict[str, JSON]:
    name = _text(span.attributes.get("gen_ai.tool.name")) or span.name
    return {"operation": "execute_tool", "tool": name, "latency_ms": round(span.latency_ms, 3)}


def _model_call(span: SpanRecord, operation: str) -> dict[str, JSON]:
    attributes = span.attributes
    call: dict[str, JSON] = {"operation": operation}
    model = _text(attributes.get("gen_ai.response.model")) or _text(
        attributes.get("gen_ai.request.model")
    )
    if model:
        call["model"] = model
    for key in ("input_tokens", "output_tokens"):
        value = attributes.get(f"gen_ai.usage.{key}")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            call[key] = value
    call["latency_ms"] = round(span.latency_ms, 3)
    if span.error is not None:
        call["error"] = span.error
    return call


def _first(attributes: Mapping[str, Any], keys: Sequence[str]) -> Any:
    return next((attributes[key] for key in keys if key in attributes), None)


def _decoded(value: Any) -> JSON:
    """A JSON attribute as its value; any other text as the text (never evaluated)."""
    if isinstance(value, str):
        try:
            decoded = _DECODER.decode(value)
        except ValueError:
            return value
        return decoded  # type: ignore[no-any-return]
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Sequence):
        return [item for item in value if isinstance(item, str | bool | int | float)]
    return str(value)


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
