"""What a case measures: the metric plan, and the contract a check definition meets.

The spec layer knows checks only through :class:`CheckDefinition`, so it can plan and
fingerprint a case without depending on how checks evaluate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol, Self, runtime_checkable

from assay_agents.spec.json_data import JSON

MetricKind = Literal["check", "judge"]

#: The built-in judge criteria and their default thresholds (0–1 scale). They are
#: calculated only when the suite has a judge; without one nothing stands in for them.
JUDGE_THRESHOLDS: dict[str, float] = {
    "semantic_accuracy": 0.9,
    "answer_relevancy": 0.9,
    "task_completion": 0.7,
    "language_quality": 0.5,
    "answer_completeness": 0.5,
    "tone": 0.5,
    "operational_claim_integrity": 0.5,
}
JUDGE_CRITERIA: frozenset[str] = frozenset(JUDGE_THRESHOLDS)


@runtime_checkable
class CheckDefinition(Protocol):
    """A metric definition as the spec sees it: a name, a category, a threshold, settings.

    Deterministic checks and judge criteria both meet it; a definition whose ``kind``
    attribute is ``"judge"`` is a judge criterion (see :func:`metric_kind`).
    """

    @property
    def name(self) -> str:
        """The metric name results are stored under."""
        ...

    @property
    def category(self) -> str:
        """The reliability category (content, actions, budget, custom, ...)."""
        ...

    @property
    def threshold(self) -> float:
        """The inclusive minimum score that passes."""
        ...

    def settings(self) -> Mapping[str, JSON]:
        """The check's settings as portable JSON, for fingerprints and storage."""
        ...

    def with_threshold(self, threshold: float) -> Self:
        """The same check with another threshold."""
        ...


def metric_kind(definition: CheckDefinition) -> MetricKind:
    """``"judge"`` for a judge criterion, ``"check"`` for everything else."""
    return "judge" if getattr(definition, "kind", "check") == "judge" else "check"


@dataclass(frozen=True, slots=True)
class PlannedMetric:
    """One metric a case will calculate, decided before any agent runs."""

    name: str
    kind: MetricKind
    category: str
    threshold: float
    check: CheckDefinition | None = None

    def definition(self) -> dict[str, JSON]:
        """The portable description that enters fingerprints and run snapshots."""
        described: dict[str, JSON] = {
            "name": self.name,
            "kind": self.kind,
            "category": self.category,
            "threshold": self.threshold,
        }
        if self.check is not None:
            described["settings"] = dict(self.check.settings())
        return described
