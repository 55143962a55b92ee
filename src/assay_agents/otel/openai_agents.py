"""The OpenAI Agents SDK's own tracing, captured like GenAI spans (needs ``openai-agents``).

The Agents SDK traces through its own processors, not OpenTelemetry. :class:`AgentsCapture`
is one of them: each span that starts while a sample's agent call is watched (a context
variable, so concurrent samples stay apart) belongs to that sample, and its function,
generation and response spans are read as the tool calls and model calls of
:mod:`assay_agents.otel.spans`. It sends nothing anywhere. The SDK's other processors (its
default one posts traces to OpenAI) are kept behind a gate, :class:`Private`, which keeps
from them the runs the Agents SDK adapter traces only because Assay reads them;
``replace=True`` removes them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from agents import add_trace_processor, set_trace_processors
from agents.tracing import Span, Trace, TracingProcessor, get_trace_provider
from agents.tracing.span_data import FunctionSpanData, GenerationSpanData, ResponseSpanData

from assay_agents.agent.adapters.agents_tracing import PRIVATE_KEY
from assay_agents.otel.capture import CAPTURE, Collected, watched
from assay_agents.otel.spans import SpanRecord


class AgentsCapture(TracingProcessor):
    """A trace processor that hands the Agents SDK's spans to the sample that emitted them."""

    def __init__(self) -> None:
        self._owners: dict[str, Collected] = {}

    def on_trace_start(self, trace: Trace) -> None:
        """Nothing: spans are attributed one by one."""

    def on_trace_end(self, trace: Trace) -> None:
        """Nothing: spans are attributed one by one."""

    def on_span_start(self, span: Span[Any]) -> None:
        """Attribute the span to the agent call watched where it starts."""
        owner = watched.get()
        if owner is not None and owner.open:
            self._owners[span.span_id] = owner

    def on_span_end(self, span: Span[Any]) -> None:
        """Hand a finished span to its sample, read as a GenAI span."""
        owner = self._owners.pop(span.span_id, None)
        if owner is None:
            return
        record = record_of(span)
        if record is not None:
            owner.add(record)

    def shutdown(self) -> None:
        """Nothing to release."""

    def force_flush(self) -> None:
        """Nothing is buffered."""


def record_of(span: Span[Any]) -> SpanRecord | None:
    """A function, generation or response span as the GenAI span it stands for."""
    data = span.span_data
    attributes: dict[str, Any]
    if isinstance(data, FunctionSpanData):
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": data.name,
            "gen_ai.tool.call.arguments": data.input,
            "gen_ai.tool.call.result": _text(data.output),
        }
    elif isinstance(data, GenerationSpanData):
        attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": data.model}
        attributes.update(_usage(data.usage))
    elif isinstance(data, ResponseSpanData):
        response = data.response
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.response.model": getattr(response, "model", None),
        }
        usage = data.usage or _dumped(getattr(response, "usage", None))
        attributes.update(_usage(usage))
    else:
        return None
    error = span.error
    return SpanRecord(
        name=f"{data.type} span",
        start_ns=_nanoseconds(span.started_at),
        end_ns=_nanoseconds(span.ended_at),
        attributes={key: value for key, value in attributes.items() if value is not None},
        error=None if error is None else str(error.get("message") or "error"),
    )


def _usage(usage: Mapping[str, Any] | None) -> dict[str, Any]:
    if not usage:
        return {}
    return {
        f"gen_ai.usage.{key}": usage[key]
        for key in ("input_tokens", "output_tokens")
        if isinstance(usage.get(key), int)
    }


def _dumped(usage: Any) -> Mapping[str, Any] | None:
    dump = getattr(usage, "model_dump", None)
    return dump() if callable(dump) else None


def _text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    try:
        return json.dumps(output)
    except (TypeError, ValueError):
        return str(output)


def _nanoseconds(moment: str | None) -> int:
    if not moment:
        return 0
    try:
        return int(datetime.fromisoformat(moment).timestamp() * 1e9)
    except ValueError:
        return 0


class Private(TracingProcessor):
    """The SDK's other trace processors, behind a gate that keeps Assay's traces from them.

    A trace whose metadata carries :data:`~assay_agents.agent.adapters.agents_tracing.PRIVATE_KEY`
    (the adapter traced it for Assay alone) and its spans reach none of them; every other
    trace reaches them all, as before.
    """

    def __init__(self, processors: Sequence[TracingProcessor]) -> None:
        self.processors = tuple(processors)
        self._private: set[str] = set()

    def on_trace_start(self, trace: Trace) -> None:
        """Forward the trace, unless it is Assay's alone (remembered until it ends)."""
        metadata = getattr(trace, "metadata", None)
        if isinstance(metadata, Mapping) and metadata.get(PRIVATE_KEY):
            self._private.add(trace.trace_id)
            return
        for processor in self.processors:
            processor.on_trace_start(trace)

    def on_trace_end(self, trace: Trace) -> None:
        """Forward the trace's end, unless it is Assay's alone."""
        if trace.trace_id in self._private:
            self._private.discard(trace.trace_id)
            return
        for processor in self.processors:
            processor.on_trace_end(trace)

    def on_span_start(self, span: Span[Any]) -> None:
        """Forward the span, unless its trace is Assay's alone."""
        if span.trace_id not in self._private:
            for processor in self.processors:
                processor.on_span_start(span)

    def on_span_end(self, span: Span[Any]) -> None:
        """Forward the span's end, unless its trace is Assay's alone."""
        if span.trace_id not in self._private:
            for processor in self.processors:
                processor.on_span_end(span)

    def shutdown(self) -> None:
        """Shut the processors behind the gate down."""
        for processor in self.processors:
            processor.shutdown()

    def force_flush(self) -> None:
        """Flush the processors behind the gate."""
        for processor in self.processors:
            processor.force_flush()


#: The one processor of this process.
AGENTS_CAPTURE = AgentsCapture()
_lock = threading.Lock()
_added = False


def capture_agents_tracing(*, replace: bool = False) -> AgentsCapture:
    """Put :data:`AGENTS_CAPTURE` first among the Agents SDK's trace processors.

    The SDK's other processors (its default one posts traces to OpenAI) are kept, behind a
    gate (:class:`Private`): the runs the Agents SDK adapter traces for Assay alone, its
    tracing being off, reach none of them. With ``replace=True`` they are replaced by this
    one alone, so that nothing is posted whatever the adapter asks. Called again, it leaves
    processors already in place as they are.
    """
    global _added
    with _lock:
        current = _processors()
        if replace:
            set_trace_processors([AGENTS_CAPTURE])
        elif current is None:
            # This SDK does not show its processors: none can be gated, so the adapter
            # traces only when asked to (tracing=True).
            if not _added:
                add_trace_processor(AGENTS_CAPTURE)
                _added = True
            return AGENTS_CAPTURE
        elif AGENTS_CAPTURE not in current:
            set_trace_processors([AGENTS_CAPTURE, Private(current)])
        CAPTURE.reads_agents_sdk = True
    return AGENTS_CAPTURE


def _processors() -> tuple[TracingProcessor, ...] | None:
    """The SDK's trace processors now, or ``None`` where this SDK does not show them.

    The SDK has no public reader of its processors; this one reads where 0.x keeps them.
    """
    chain = getattr(get_trace_provider(), "_multi_processor", None)
    found = getattr(chain, "_processors", None)
    return found if isinstance(found, tuple) else None
