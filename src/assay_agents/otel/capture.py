"""Capturing the spans an agent's framework emits inside each sample, and only those.

A span belongs to a sample when it descends from the span that was current when the agent
was called (the sample's span): :class:`SpanCapture` follows parent links as spans start,
which is correct whichever task or thread ends them, with any number of samples
interleaving. It is added to the tracer provider already in place, next to the user's own
processors and exporters; when none is set, one that exports nowhere is set (see
:func:`capturing_provider`).
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.trace import ProxyTracerProvider, StatusCode

from assay_agents.agent import Outcome
from assay_agents.agent.adapters.agents_tracing import SPANS_READ
from assay_agents.errors import ConfigurationError
from assay_agents.otel.spans import READ_ATTRIBUTES, Captured, SpanRecord, from_spans
from assay_agents.runner.hooks import EXPORTS_NOWHERE


class Collected:
    """The spans one agent call emitted, gathered while it runs (a capture watch)."""

    def __init__(self) -> None:
        self.records: list[SpanRecord] = []
        #: The ids of its spans that started and have not ended (forgotten when it closes).
        self.pending: set[int] = set()
        self.open = True
        #: Whether the sample's span records at all (a sampled-out trace emits nothing).
        self.recording = True

    def add(self, record: SpanRecord) -> None:
        """Keep one finished span, while the call is watched."""
        if self.open:
            self.records.append(record)

    def merged(self, outcome: Outcome) -> Outcome:
        """The outcome completed from the spans (see :func:`assay_agents.otel.from_spans`)."""
        if not self.recording:
            return outcome  # nothing could be seen: left as the agent returned it
        return from_spans(outcome, Captured.of(self.records))


#: The agent call being watched in this context (tracers of other libraries read it).
watched: contextvars.ContextVar[Collected | None] = contextvars.ContextVar(
    "assay_watched_call", default=None
)


class SpanCapture(SpanProcessor):
    """A span processor that hands each span to the sample it descends from."""

    def __init__(self) -> None:
        # Span id → the watch it belongs to; a span's descendants are added as they start.
        self._owners: dict[int, Collected] = {}
        #: Whether the Agents SDK's spans are read too, kept from its other processors.
        self.reads_agents_sdk = False

    @property
    def tracked(self) -> int:
        """How many spans are attributed to a sample and not yet ended."""
        return len(self._owners)

    def watch(self) -> Watching:
        """Collect what descends from the current span while the block runs."""
        return Watching(self._owners, self.reads_agents_sdk)

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        """Attribute the span to its parent's sample, if its parent has one."""
        parent = span.parent
        if parent is None:
            return
        owner = self._owners.get(parent.span_id)
        if owner is not None and owner.open:
            self._owners[span.context.span_id] = owner
            owner.pending.add(span.context.span_id)

    def on_end(self, span: ReadableSpan) -> None:
        """Hand a finished span to its sample."""
        context = span.context
        if context is None:
            return
        owner = self._owners.pop(context.span_id, None)
        if owner is not None:
            owner.pending.discard(context.span_id)
            owner.add(record_of(span))

    def shutdown(self) -> None:
        """Nothing to release."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing is buffered."""
        return True


def record_of(span: ReadableSpan) -> SpanRecord:
    """The parts of an SDK span that are read."""
    status = span.status
    error = None
    if status.status_code is StatusCode.ERROR:
        error = status.description or "error"
    return SpanRecord(
        name=span.name,
        start_ns=span.start_time or 0,
        end_ns=span.end_time or span.start_time or 0,
        attributes=_read(span.attributes),
        error=error,
    )


class Watching:
    """One agent call watched (see :meth:`SpanCapture.watch`).

    A class rather than a generator-based context manager: one is entered around every
    agent call of a captured run.
    """

    __slots__ = ("_anchor", "_collected", "_owners", "_reading", "_reads_agents_sdk", "_token")

    def __init__(self, owners: dict[int, Collected], reads_agents_sdk: bool) -> None:
        self._owners = owners
        self._reads_agents_sdk = reads_agents_sdk
        self._collected = Collected()
        self._anchor: int | None = None
        self._reading: contextvars.Token[bool] | None = None
        self._token: contextvars.Token[Collected | None] | None = None

    def __enter__(self) -> Collected:
        collected = self._collected
        current = trace.get_current_span()
        anchor = current.get_span_context()
        if not anchor.is_valid or not current.is_recording():
            collected.recording = False
            return collected
        self._token = watched.set(collected)
        self._anchor = anchor.span_id
        self._owners[anchor.span_id] = collected
        if self._reads_agents_sdk:
            # The Agents SDK adapter traces for Assay alone while this is set.
            self._reading = SPANS_READ.set(True)
        return collected

    def __exit__(self, *exc_info: object) -> None:
        collected = self._collected
        collected.open = False
        if self._anchor is None:
            return
        owners = self._owners
        owners.pop(self._anchor, None)
        # Spans that never end would otherwise stay mapped for the process's lifetime.
        for span_id in list(collected.pending):
            owners.pop(span_id, None)
        if self._reading is not None:
            SPANS_READ.reset(self._reading)
        if self._token is not None:
            watched.reset(self._token)


def _read(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    """The attributes that are read, copied into a plain dict.

    The SDK's own mapping answers each read (and each missing key) through Python calls,
    and an attribute is read several times; the others (a framework's prompts and replies,
    say) are not kept at all.
    """
    if not attributes:
        return {}
    return {key: attributes[key] for key in attributes if key in READ_ATTRIBUTES}


#: The one capture of this process, added once to each provider that needs it.
CAPTURE = SpanCapture()
_installed: weakref.WeakSet[TracerProvider] = weakref.WeakSet()
_lock = threading.Lock()


def capturing_provider(provider: Any = None) -> TracerProvider:
    """The SDK tracer provider spans are captured from, with :data:`CAPTURE` added to it.

    ``provider`` by default is the global one. The user's provider keeps its processors and
    exporters; capture is added beside them, once. With no provider set at all, an SDK
    provider is set globally that exports nowhere (set your own before the run to export
    the spans too). A provider that is not the SDK's cannot be captured from.
    """
    with _lock:
        if provider is None:
            if isinstance(trace.get_tracer_provider(), ProxyTracerProvider):
                trace.set_tracer_provider(_nowhere())
            provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            raise ConfigurationError(
                f"capture='spans' needs the OpenTelemetry SDK's tracer provider, not "
                f"{type(provider).__name__}: set an opentelemetry.sdk.trace.TracerProvider"
            )
        if provider not in _installed:
            provider.add_span_processor(CAPTURE)
            _installed.add(provider)
        return provider


def _nowhere() -> TracerProvider:
    """A provider with no exporter, marked so that it does not make later runs traced."""
    provider = TracerProvider()
    setattr(provider, EXPORTS_NOWHERE, True)
    return provider
