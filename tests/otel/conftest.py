"""The user's SDK tracer provider, with an in-memory exporter, set globally only while a test asks.

A run traces by itself when a provider is set globally, so the provider must not outlive
the test that set it: other tests in the same worker would be traced. OpenTelemetry sets a
global provider once per process; its own test utilities reset that guard, as done here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once

_EXPORTER = InMemorySpanExporter()
# One provider object for the process: tracers got from the global one keep pointing at it.
_PROVIDER = TracerProvider()
_PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))


def unset_global_provider() -> None:
    """Back to no provider set, as in a process that never configured tracing."""
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def no_provider_left_behind() -> Iterator[None]:
    """Whatever a test set globally is unset after it."""
    yield
    unset_global_provider()


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """What the user's own exporter received during the test (its provider set globally)."""
    unset_global_provider()
    trace.set_tracer_provider(_PROVIDER)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()
