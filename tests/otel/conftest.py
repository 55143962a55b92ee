"""One SDK tracer provider for the process, as a user sets it, with an in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER = InMemorySpanExporter()


def _user_provider() -> TracerProvider:
    """The global provider, set once per process (OpenTelemetry refuses a second one)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    return provider


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """What the user's own exporter received during the test."""
    _user_provider()
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()
