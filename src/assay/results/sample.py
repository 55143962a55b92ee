"""The result of one sample: one execution of one case on one model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from assay.agent import MISMATCH_KEY, Action, Observation, Usage
from assay.results.fault import Fault
from assay.results.metric import MetricResult
from assay.spec import JSON

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
    judge_usage: dict[str, JSON] | None = None
    #: The diagnosed fault of a failing or errored sample (see :mod:`assay.results.diagnosis`).
    fault: Fault | None = None
    #: What to do about the fault, from the evidence (or the judge's refinement of it).
    recommendation: str | None = None
    #: The tools the fault involves, and what they are to it (``missing tools``, ...).
    fault_tools: tuple[str, ...] = ()
    fault_tools_label: str | None = None
    #: Tools the agent lacks, beside ``fault_tools`` it has: a fix of their own (add them).
    fault_missing_tools: tuple[str, ...] = ()
    #: A judge's refinement: the tool to add, the instruction to change (JSON form).
    refinement: dict[str, JSON] | None = None

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

    def to_json(self) -> dict[str, JSON]:
        """The portable form used by reports."""
        return {
            "case_id": self.case_id,
            "model": self.model,
            "sample": self.sample,
            "status": self.status.value,
            "answer": self.answer,
            "actions": None if self.actions is None else [a.to_json() for a in self.actions],
            "observation": None if self.observation is None else self.observation.to_json(),
            "usage": None if self.usage is None else self.usage.to_json(),
            "duration_ms": self.duration_ms,
            "error": self.error,
            "metadata": dict(self.metadata),
            "metrics": [metric.to_json() for metric in self.metrics],
            "judge_usage": self.judge_usage,
            "fault": self.fault,
            "recommendation": self.recommendation,
            "diagnosis": self.diagnosis_json(),
        }

    def diagnosis_json(self) -> dict[str, JSON] | None:
        """The structured part of the diagnosis (tools involved, refinement), if any."""
        if not self.fault_tools and self.refinement is None:
            return None
        found: dict[str, JSON] = {
            "tools": list(self.fault_tools),
            "tools_label": self.fault_tools_label,
            "refinement": self.refinement,
        }
        if self.fault_missing_tools:
            found["missing_tools"] = list(self.fault_missing_tools)
        return found

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SampleResult:
        """Rebuild a sample result from its portable form."""
        actions = data.get("actions")
        observation = data.get("observation")
        usage = data.get("usage")
        return cls(
            case_id=data["case_id"],
            model=data.get("model"),
            sample=int(data["sample"]),
            status=SampleStatus(data["status"]),
            answer=data.get("answer"),
            actions=None if actions is None else tuple(Action.from_json(a) for a in actions),
            observation=None
            if observation is None
            else Observation(
                channels=dict(observation.get("channels") or {}),
                truncated=bool(observation.get("truncated")),
            ),
            usage=None if usage is None else Usage(**usage),
            duration_ms=data.get("duration_ms"),
            error=data.get("error"),
            metadata=dict(data.get("metadata") or {}),
            metrics=tuple(MetricResult.from_json(m) for m in data.get("metrics") or ()),
            judge_usage=data.get("judge_usage"),
            fault=None if data.get("fault") is None else Fault(data["fault"]),
            recommendation=data.get("recommendation"),
            **diagnosis_fields(data.get("diagnosis")),
        )


def diagnosis_fields(data: Any) -> dict[str, Any]:
    """``fault_tools`` (and ``fault_missing_tools``), its label and ``refinement``, as stored."""
    if not isinstance(data, Mapping):
        return {}
    tools = data.get("tools") or ()
    refinement = data.get("refinement")
    missing = data.get("missing_tools") or ()
    return {
        "fault_tools": tuple(str(name) for name in tools if isinstance(name, str)),
        "fault_missing_tools": tuple(name for name in missing if isinstance(name, str)),
        "fault_tools_label": data.get("tools_label"),
        "refinement": dict(refinement) if isinstance(refinement, Mapping) else None,
    }
