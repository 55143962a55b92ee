"""Whether a run is traced: asked for, refused, or (by default) when the process already traces.

A run is traced by :class:`assay_agents.otel.Correlation`, a span per run, per sample and per judge
call. By default (``trace=None``) that happens by itself when the process already traces:
OpenTelemetry is loaded (found in ``sys.modules``, never imported to find out) and a real
tracer provider is set globally. A process that never loaded OpenTelemetry pays nothing and
loads nothing. ``trace=True`` always traces; ``trace=False`` never does, except that a suite
with ``capture="spans"`` still gets the sample spans its capture reads.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from assay_agents.errors import ConfigurationError
from assay_agents.evaluation.ports import RunObserver, SampleTracer
from assay_agents.runner.hooks import EXPORTS_NOWHERE
from assay_agents.spec import Suite


def traced_observers(
    suite: Suite, observers: Sequence[RunObserver], trace: bool | None
) -> Sequence[RunObserver]:
    """The run's observers, with a tracer added when the run is to be traced and has none."""
    if any(isinstance(each, SampleTracer) for each in observers):
        return observers
    if suite.capture == "spans":
        return (*observers, _correlation(f"suite {suite.name!r} has capture='spans', which"))
    if trace is True:
        return (*observers, _correlation("trace=True (--trace)"))
    if trace is None and process_traces():
        try:
            return (*observers, _correlation("tracing"))
        except ConfigurationError:
            return observers  # a provider without the extra: nothing Assay can add to
    return observers


def process_traces() -> bool:
    """Whether OpenTelemetry is loaded and a real tracer provider is set globally.

    Nothing is imported: a process that never loaded OpenTelemetry does not trace. The
    default (proxy or no-op) provider does not count, nor one that exports nowhere.
    """
    api = sys.modules.get("opentelemetry.trace")
    if api is None:
        return False
    provider = api.get_tracer_provider()
    placeholders = (api.ProxyTracerProvider, api.NoOpTracerProvider)
    if isinstance(provider, placeholders):
        return False
    return not getattr(provider, EXPORTS_NOWHERE, False)


def _correlation(needed_by: str) -> RunObserver:
    try:
        from assay_agents.otel import Correlation
    except ImportError as error:
        raise ConfigurationError(
            f"{needed_by} needs OpenTelemetry ({error}); install it with "
            "pip install 'assay-agents[otel]'"
        ) from None
    return Correlation()
