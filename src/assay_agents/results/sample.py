"""The result of one sample: one execution of one case on one model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from assay_agents.agent import MISMATCH_KEY, Action, Observation, Usage
from assay_agents.errors import SpecError
from assay_agents.results._pickling import FieldState
from assay_agents.results.diagnosed import Diagnosis, Refinement
from assay_agents.results.fault import Fault
from assay_agents.results.judge_usage import JudgeUsage
from assay_agents.results.metric import MetricResult
from assay_agents.results.pacing import SamplePacing
from assay_agents.results.traces import Traces
from assay_agents.spec import JSON

#: Where a stored sample keeps the structured part of its diagnosis, inside its metadata
#: (the fault and the recommendation have columns of their own).
DIAGNOSIS_KEY = "assay.diagnosis"


class SampleStatus(StrEnum):
    """How a sample ended.

    ``passed`` needs at least one calculated metric, all passing without error; ``error`` is
    an agent error or a metric that could not be calculated; ``not_evaluated`` means no metric
    was calculated at all, which is never a pass.
    """

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    NOT_EVALUATED = "not_evaluated"


def decide_status(agent_error: str | None, metrics: Sequence[MetricResult]) -> SampleStatus:
    """Apply the status rule to an agent error and the sample's metrics."""
    if agent_error is not None or any(metric.error is not None for metric in metrics):
        return SampleStatus.ERROR
    if not metrics:
        return SampleStatus.NOT_EVALUATED
    if all(metric.passed for metric in metrics):
        return SampleStatus.PASSED
    return SampleStatus.FAILED


@dataclass(frozen=True, slots=True)
class SampleResult:
    """Everything one sample produced: what the agent did and how each metric judged it."""

    case_id: str
    model: str | None
    sample: int
    status: SampleStatus
    answer: str | None = None
    actions: tuple[Action, ...] | None = None
    observation: Observation | None = None
    usage: Usage | None = None
    duration_ms: float | None = None
    error: str | None = None
    metadata: dict[str, JSON] = field(default_factory=dict)
    metrics: tuple[MetricResult, ...] = ()
    judge_usage: JudgeUsage | None = None
    #: The diagnosed fault of a failing or errored sample (see
    #: :mod:`assay_agents.results.diagnosis`).
    fault: Fault | None = None
    #: What to do about the fault, from the evidence (or the judge's refinement of it).
    recommendation: str | None = None
    #: The tools the fault involves and a judge's refinement, when there are any.
    diagnosis: Diagnosis | None = None
    #: The traces the sample was recorded in, when a tracer recorded them.
    traces: Traces | None = field(default=None, metadata={"omit_none": True})
    #: Rate-limit retries and waits, and the concurrency adjustments the sample's calls caused.
    pacing: SamplePacing | None = field(default=None, metadata={"omit_none": True})

    def __post_init__(self) -> None:
        _check_key(self.case_id, self.model, self.sample)
        duration = self.duration_ms
        if duration is not None and not (math.isfinite(duration) and duration >= 0):
            raise SpecError(
                f"must be a non-negative number of milliseconds, not {duration!r}",
                field="duration_ms",
            )

    @property
    def fault_tools(self) -> tuple[str, ...]:
        """The tools the fault involves."""
        return () if self.diagnosis is None else self.diagnosis.tools

    @property
    def fault_tools_label(self) -> str | None:
        """What the tools are to the fault (``missing tools``, ...)."""
        return None if self.diagnosis is None else self.diagnosis.tools_label

    @property
    def fault_missing_tools(self) -> tuple[str, ...]:
        """Tools the agent lacks, beside ``fault_tools`` it has: a fix of their own."""
        return () if self.diagnosis is None else self.diagnosis.missing_tools

    @property
    def refinement(self) -> Refinement | None:
        """A judge's refinement: the tool to add, the instruction to change."""
        return None if self.diagnosis is None else self.diagnosis.refinement

    # Pickled as dataclasses pickles it, faster (see assay_agents.results._pickling).
    def __getstate__(self) -> list[object]:
        return _STATE.of(self)

    def __setstate__(self, state: Sequence[object]) -> None:
        _STATE.restore(self, state)

    def with_traces(self, traces: Traces | None) -> SampleResult:
        """A copy of this result recorded in ``traces``."""
        return self._with("traces", traces)

    def _with(self, name: str, value: object) -> SampleResult:
        """A copy with one field changed, copied field by field.

        :func:`dataclasses.replace` would rebuild and check again a result already checked,
        and a traced run, or a run read back, makes one of these for every sample.
        """
        copied = object.__new__(SampleResult)
        for each in _FIELDS:
            object.__setattr__(copied, each, getattr(self, each))
        object.__setattr__(copied, name, value)
        return copied

    @property
    def key(self) -> tuple[str, str | None, int]:
        """(case, model, sample): unique within a run, what resuming is keyed on."""
        return (self.case_id, self.model, self.sample)

    @property
    def evaluated(self) -> bool:
        """Whether the sample counts towards pass rates.

        A sample another model answered is an error that was never checked: it measured
        nothing of its own model, so it counts towards no rate of it.
        """
        return self.status is not SampleStatus.NOT_EVALUATED and not self.other_model

    @property
    def other_model(self) -> bool:
        """Whether another model than the one asked for answered (see ``MISMATCH_KEY``)."""
        return MISMATCH_KEY in self.metadata

    @property
    def check_score(self) -> float | None:
        """Mean deterministic check score (errors count zero; an agent error scores zero).

        Judge criteria never enter it: the two dimensions are reported apart. A sample
        another model answered was not checked and has none.
        """
        if self.other_model:
            return None
        if self.error is not None:
            return 0.0
        checks = [metric.effective_score for metric in self.metrics if metric.kind == "check"]
        return sum(checks) / len(checks) if checks else None

    def metric(self, name: str) -> MetricResult | None:
        """The metric result of that name, if calculated."""
        return next((metric for metric in self.metrics if metric.name == name), None)


_STATE = FieldState(SampleResult)
#: What :meth:`SampleResult._with` copies.
_FIELDS = _STATE.names


@dataclass(frozen=True, slots=True)
class GradedSample:
    """How a stored sample was graded, without what the agent did: what a comparison pools.

    A baseline is compared by its samples' keys, statuses, errors and metrics alone; read
    as these, it is read without its answers, actions, observations, usage and metadata.
    """

    case_id: str
    model: str | None
    sample: int
    status: SampleStatus
    error: str | None = None
    metrics: tuple[MetricResult, ...] = ()

    def __post_init__(self) -> None:
        _check_key(self.case_id, self.model, self.sample)

    @classmethod
    def of(cls, sample: SampleResult) -> GradedSample:
        """The grading of a whole sample."""
        return cls(
            sample.case_id, sample.model, sample.sample, sample.status, sample.error, sample.metrics
        )


def _check_key(case_id: str, model: str | None, sample: int) -> None:
    """A sample's key: a case and a model named (or no model), a sample index of 0 or more."""
    for name, value in (("case_id", case_id), ("model", model)):
        if value == "":
            raise SpecError("must not be empty", field=name)
    if sample < 0:
        raise SpecError(f"must be 0 or more, not {sample!r}", field="sample")
