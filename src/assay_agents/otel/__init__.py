"""OpenTelemetry: traces correlated with results, and what an agent did read from its spans.

Needs the ``otel`` extra (``pip install 'assay-agents[otel]'``); ``import assay_agents`` never loads
it.
:class:`Correlation` is a run observer that opens a span per run, per sample and per judge
call and records their trace ids on the results (added by itself to a run in a process
that has set a tracer provider); a suite with ``capture="spans"`` builds
each sample's actions, usage and model from the GenAI spans its agent's framework emits
(:class:`SpanCapture`, merged by :func:`from_spans`). The OpenAI Agents SDK's own tracing
is read by :mod:`assay_agents.otel.openai_agents`.
"""

from assay_agents.otel.capture import CAPTURE, SpanCapture, capturing_provider
from assay_agents.otel.correlation import DEFAULT_KEYS, KEYS, Correlation, TracedJudge
from assay_agents.otel.spans import CALLS_KEY, DIFFERENCES_KEY, Captured, SpanRecord, from_spans

__all__ = [
    "CALLS_KEY",
    "CAPTURE",
    "DEFAULT_KEYS",
    "DIFFERENCES_KEY",
    "KEYS",
    "Captured",
    "Correlation",
    "SpanCapture",
    "SpanRecord",
    "TracedJudge",
    "capturing_provider",
    "from_spans",
]
