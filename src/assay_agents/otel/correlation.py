"""Correlating traces with results: a span per run, per sample and per judge call.

Each span carries the run's correlation keys as ``assay.``-prefixed attributes (the
:data:`DEFAULT_KEYS` unless told otherwise), and each trace id is recorded back where it
belongs: a sample's own trace and the traces of the judge calls that graded it on the
sample (:class:`~assay_agents.results.Traces`), the judge calls no sample owns (the verdict on the
models) on the run. Every sample is the root of its own trace, linked to the run's span;
spans the agent emits nest under it. A trace the sampler dropped records no id, and without
a configured tracer provider the spans record nothing and the run goes on unchanged.
"""

from __future__ import annotations

import contextvars
import inspect
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context, attach, detach
from opentelemetry.trace import Link, Span, Status, StatusCode, Tracer

from assay_agents.errors import ConfigurationError
from assay_agents.judging import Judge
from assay_agents.judging.judge import JudgeCompletion, JudgeReply
from assay_agents.results import Run, SampleResult, Traces
from assay_agents.runner import WorkItem
from assay_agents.runner.hooks import Capture, SampleCall

#: The correlation keys that become span attributes by default.
DEFAULT_KEYS = ("run_id", "case_id", "model", "sample")
#: Every key a span may carry: the defaults, then the suite, the agent and the judge.
KEYS = (*DEFAULT_KEYS, "suite", "agent", "judge")
#: The prefix of every attribute this module sets.
PREFIX = "assay."
_STATUS = f"{PREFIX}status"

_judged: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "assay_judge_traces", default=None
)
_sample_link: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "assay_sample_attributes", default=None
)


class Correlation:
    """A run observer that traces the run, each sample and each judge call.

    ``tracer`` is the tracer spans are started with (the global provider's by default,
    looked up when a run starts); ``keys`` picks which correlation keys become attributes
    (see :data:`KEYS`). A run gets one by itself when the process has set a tracer
    provider, or its suite has ``capture="spans"`` (see :mod:`assay_agents.evaluation.tracing`);
    pass one as an observer (``observers=[Correlation(...)]``) to choose the tracer or the
    keys. One run at a time.
    """

    def __init__(self, tracer: Tracer | None = None, *, keys: Iterable[str] = DEFAULT_KEYS):
        self._tracer = tracer
        self.keys = _checked_keys(keys)
        # Each chosen key's attribute name, made once rather than per span.
        self._names = {key: f"{PREFIX}{key}" for key in KEYS if key in self.keys}
        self._run: Run | None = None
        self._run_span: Span | None = None
        self._run_links: list[Link] = []
        self._run_judges: list[str] = []

    # -- the run ---------------------------------------------------------------------

    def run_started(self, run: Run, total: int) -> None:
        """Open the run's span (not made current: samples are roots linked to it)."""
        self._run, self._run_judges = run, []
        self._run_span = self.tracer.start_span(
            "assay.run",
            attributes=self._attributes(run_id=run.id, suite=run.suite, agent=run.agent),
        )
        context = self._run_span.get_span_context()
        self._run_links = [Link(context)] if context.is_valid else []

    def run_traces(self) -> Traces | None:
        """The run's trace and the judge calls no sample owned, once they are known."""
        return _traces(self._run_span, self._run_judges)

    def sample_finished(self, run: Run, result: SampleResult) -> None:
        """Nothing more to do: the sample's span closed with it."""

    def run_finished(self, run: Run, verdict: object) -> None:
        """Close the run's span."""
        if self._run_span is not None:
            self._run_span.set_attribute(f"{PREFIX}status", run.status.value)
            self._run_span.end()
            self._run_span = None

    def run_interrupted(self, run: Run, reason: str) -> None:
        """Close the run's span as failed, with the reason."""
        if self._run_span is not None:
            self._run_span.set_status(StatusCode.ERROR, reason)
            self._run_span.end()
            self._run_span = None

    @property
    def tracer(self) -> Tracer:
        """The injected tracer, or the global provider's."""
        if self._tracer is None:
            self._tracer = trace.get_tracer("assay")
        return self._tracer

    # -- each sample -----------------------------------------------------------------

    async def around_sample(self, item: WorkItem, call: SampleCall) -> SampleResult:
        """Execute one sample as the root span of its own trace; record the trace ids."""
        case_id, model, index = item.key
        attributes = self._attributes(
            run_id=None if self._run is None else self._run.id,
            case_id=case_id,
            model=model,
            sample=index,
        )
        span = self.tracer.start_span(
            "assay.sample", context=Context(), attributes=attributes, links=self._links()
        )
        judged: list[str] = []
        tokens = (_judged.set(judged), _sample_link.set(attributes))
        # Made current by hand rather than with trace.use_span (a generator context manager,
        # paid on every sample); an exception is recorded on the span as use_span does.
        current = attach(trace.set_span_in_context(span))
        try:
            result = await call()
            span.set_attribute(_STATUS, result.status.value)
        except Exception as error:
            _failed(span, error)
            raise
        finally:
            detach(current)
            span.end()
            _sample_link.reset(tokens[1])
            _judged.reset(tokens[0])
        traces = _traces(span, judged)
        return result if traces is None else result.with_traces(traces)

    def capture(self) -> Capture:
        """The span capture (added to the global tracer provider, beside its own).

        When the OpenAI Agents SDK is loaded, its trace processors get the capture too.
        """
        from assay_agents.otel.capture import CAPTURE, capturing_provider

        capturing_provider()
        if "agents" in sys.modules:
            # The OpenAI Agents SDK traces apart from OpenTelemetry: read its spans too.
            from assay_agents.otel.openai_agents import capture_agents_tracing

            capture_agents_tracing()
        return CAPTURE

    # -- each judge call -------------------------------------------------------------

    def traced_judge(self, judge: Judge) -> Judge:
        """``judge`` with each call in a span of its own, recorded where it belongs."""
        return TracedJudge(judge, self)

    def judge_span(self, label: str) -> tuple[Span, list[str]]:
        """A judge call's span, and the trace ids it is recorded in (the sample's or the run's)."""
        sample = _sample_link.get()
        attributes = dict(sample or self._attributes(run_id=self._run and self._run.id))
        attributes.update(self._attributes(judge=label))
        span = self.tracer.start_span(
            "assay.judge", context=Context(), attributes=attributes, links=self._links()
        )
        owner = _judged.get()
        return span, self._run_judges if owner is None else owner

    def _links(self) -> list[Link]:
        return self._run_links if self._run_span is not None else []

    def _attributes(self, **values: Any) -> dict[str, Any]:
        names = self._names
        return {
            names[key]: value for key, value in values.items() if value is not None and key in names
        }


class TracedJudge:
    """A judge whose every call is a span (see :meth:`Correlation.traced_judge`)."""

    def __init__(self, judge: Judge, correlation: Correlation) -> None:
        self.__wrapped__ = judge
        self.label = judge.label
        self._correlation = correlation

    async def complete(self, instructions: str, prompt: str) -> str | JudgeReply:
        """Ask the wrapped judge inside a span; record the span's trace id."""
        span, owner = self._correlation.judge_span(self.label)
        with trace.use_span(span, end_on_exit=True):
            reply: JudgeCompletion = self.__wrapped__.complete(instructions, prompt)
            if inspect.isawaitable(reply):
                reply = await reply
        found = _trace_id(span)
        if found is not None:
            owner.append(found)
        return reply


def _failed(span: Span, error: Exception) -> None:
    if span.is_recording():
        span.record_exception(error)
        span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))


def _traces(span: Span | None, judged: list[str]) -> Traces | None:
    traces = Traces(None if span is None else _trace_id(span), tuple(judged))
    return None if traces.empty else traces


def _trace_id(span: Span) -> str | None:
    """The span's trace id, unless nothing will ever show it (invalid or sampled out)."""
    context = span.get_span_context()
    if not context.is_valid or not context.trace_flags.sampled:
        return None
    return trace.format_trace_id(context.trace_id)


def _checked_keys(keys: Iterable[str]) -> frozenset[str]:
    chosen = frozenset(keys)
    unknown = sorted(chosen - set(KEYS))
    if unknown:
        raise ConfigurationError(
            f"unknown correlation key(s) {', '.join(unknown)}; known: {', '.join(KEYS)}"
        )
    return chosen
