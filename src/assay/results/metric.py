"""The result of one check or judge criterion on one sample."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.spec import JSON, MetricKind


@dataclass(frozen=True, slots=True)
class MetricResult:
    """One metric on one sample: its score against an inclusive threshold, and why.

    A metric that could not be calculated (a check that raised, a judge reply that was not a
    verdict, an expectation about actions that were never instrumented) carries ``error``,
    stores no ``score`` and never passes.
    """

    name: str
    kind: MetricKind
    category: str
    threshold: float
    score: float | None
    passed: bool
    reason: str | None = None
    error: str | None = None
    votes: list[JSON] | None = None

    @property
    def vote_spread(self) -> float | None:
        """Max − min of the votes that returned a verdict, on the criterion's own scale.

        ``None`` with fewer than two such votes. It measures the judge, not the agent.
        """
        raws: list[float] = []
        for vote in self.votes or ():
            score = vote.get("score") if isinstance(vote, dict) else None
            if isinstance(score, int | float):
                raw = vote.get("raw")  # type: ignore[union-attr]
                raws.append(float(raw if isinstance(raw, int | float) else score))
        return max(raws) - min(raws) if len(raws) > 1 else None

    @property
    def effective_score(self) -> float:
        """The score that enters averages: an errored metric contributes zero."""
        return 0.0 if self.error is not None or self.score is None else self.score

    def to_json(self) -> dict[str, JSON]:
        """The portable form used by reports and storage."""
        return {
            "name": self.name,
            "kind": self.kind,
            "category": self.category,
            "threshold": self.threshold,
            "score": self.score,
            "passed": self.passed,
            "reason": self.reason,
            "error": self.error,
            "votes": self.votes,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricResult:
        """Rebuild a metric result from its portable form."""
        return cls(
            name=data["name"],
            kind=data["kind"],
            category=data["category"],
            threshold=float(data["threshold"]),
            score=None if data.get("score") is None else float(data["score"]),
            passed=bool(data["passed"]),
            reason=data.get("reason"),
            error=data.get("error"),
            votes=data.get("votes"),
        )


def scored(
    name: str,
    kind: MetricKind,
    category: str,
    threshold: float,
    score: float,
    reason: str | None = None,
) -> MetricResult:
    """A calculated metric; it passes when ``score >= threshold`` (inclusive)."""
    return MetricResult(name, kind, category, threshold, score, score >= threshold, reason)


def errored(
    name: str, kind: MetricKind, category: str, threshold: float, error: str
) -> MetricResult:
    """A metric that could not be calculated: no score (averages count it as zero), never passed."""
    return MetricResult(name, kind, category, threshold, None, False, None, error)
