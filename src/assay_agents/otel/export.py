"""Sending a run's spans out of the process: what ``assay-agents run --trace`` sets up.

The tracer provider is the one already set (a Python suite may set its own), else an SDK
provider configured by the standard ``OTEL_*`` environment (``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER``...). The spans go to a file as JSON
lines (one span per line, the SDK's own JSON form), or by OTLP to the endpoint the
environment names (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_PROTOCOL``:
``http/protobuf`` by default, or ``grpc``), which needs ``opentelemetry-exporter-otlp``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import ProxyTracerProvider

from assay_agents.errors import ConfigurationError

#: The package the OTLP exporters come from.
OTLP_PACKAGE = "opentelemetry-exporter-otlp"


def export_spans(file: Path | None = None) -> Callable[[], None]:
    """Export the process's spans to ``file`` (JSON lines, appended), or by OTLP without one.

    Returns what flushes the spans still buffered and stops the export; call it once the
    run is over. Nothing is set up when the exporter cannot be (a clear
    :class:`~assay_agents.errors.ConfigurationError` instead).
    """
    exporter = _to_file(file) if file is not None else _otlp()
    processor = BatchSpanProcessor(exporter)
    _provider().add_span_processor(processor)
    return processor.shutdown


def _provider() -> TracerProvider:
    provider = trace.get_tracer_provider()
    if isinstance(provider, ProxyTracerProvider):
        named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "assay"}
        provider = TracerProvider(resource=Resource.create(named))
        trace.set_tracer_provider(provider)
    if not isinstance(provider, TracerProvider):
        raise ConfigurationError(
            f"--trace needs the OpenTelemetry SDK's tracer provider, but the process set "
            f"{type(provider).__name__}; export from that provider instead, or drop --trace"
        )
    return provider


def _to_file(path: Path) -> SpanExporter:
    try:
        out = path.open("a", encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(
            f"--trace-file {path}: cannot be written ({error.strerror or error})"
        ) from None
    return JsonLines(out)


class JsonLines(SpanExporter):
    """Writes each span as one line of JSON (the SDK's own form) to an open text file."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Write the spans, then flush: a reader tailing the file sees whole lines."""
        self._out.writelines(span.to_json(indent=None) + "\n" for span in spans)
        self._out.flush()
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Close the file."""
        self._out.close()


#: The OTLP exporter's module for each protocol ``OTEL_EXPORTER_OTLP_PROTOCOL`` names.
_OTLP_MODULES = {
    "grpc": "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
    "http/protobuf": "opentelemetry.exporter.otlp.proto.http.trace_exporter",
}


def _otlp() -> SpanExporter:
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    module = _OTLP_MODULES.get(protocol.strip())
    if module is None:
        raise ConfigurationError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r} is not one --trace exports with; "
            f"expected {' or '.join(_OTLP_MODULES)}"
        )
    try:
        exporter: SpanExporter = importlib.import_module(module).OTLPSpanExporter()
    except ImportError:
        raise ConfigurationError(
            f"--trace exports by OTLP, which needs {OTLP_PACKAGE} (pip install "
            f"{OTLP_PACKAGE}); or write the spans to a file with --trace-file PATH"
        ) from None
    return exporter
