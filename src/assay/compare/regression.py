"""Regressions of a run against its baseline: what got worse, metric by metric.

Items are paired by (case, model). Per metric, samples are pooled: the mean score (errors
count zero), whether every sample passed, and whether any errored. The most severe change of
each metric is reported once: a new error, then a newly failed threshold, then a score decrease
beyond the tolerance. Tolerance only ever excuses a decrease; it never hides a new failure or
error.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from assay.results import MetricResult, Run, SampleResult

_EPSILON = 1e-9
_AGENT = "(agent)"


class ChangeKind(StrEnum):
    """What moved between the baseline and the current run."""

    NEW_ERROR = "new_error"
    NEWLY_FAILED = "newly_failed"
    SCORE_DECREASE = "score_decrease"
    IMPROVEMENT = "improvement"

    @property
    def is_regression(self) -> bool:
        """Every kind but improvement is a regression."""
        return self is not ChangeKind.IMPROVEMENT


@dataclass(frozen=True, slots=True)
class Change:
    """One metric of one item that moved, with the evidence on both sides."""

    kind: ChangeKind
    case_id: str
    model: str | None
    metric: str
    metric_kind: str
    category: str
    before: float | None
    after: float | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        """The portable form stored with the run and written by reports."""
        data = asdict(self)
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Change:
        """Rebuild a change from its stored form."""
        return cls(**{**data, "kind": ChangeKind(data["kind"])})


@dataclass(frozen=True, slots=True)
class RunComparison:
    """The current run against a compatible baseline."""

    baseline_id: str
    current_id: str
    tolerance: float
    items_compared: int
    changes: tuple[Change, ...]

    @property
    def regressions(self) -> tuple[Change, ...]:
        """The changes a regression gate fails on."""
        return tuple(change for change in self.changes if change.kind.is_regression)

    @property
    def improvements(self) -> tuple[Change, ...]:
        """Metrics that got better beyond the tolerance, or newly pass."""
        return tuple(c for c in self.changes if c.kind is ChangeKind.IMPROVEMENT)

    def to_json(self) -> dict[str, Any]:
        """The portable form stored with the completed run."""
        return {
            "baseline_id": self.baseline_id,
            "current_id": self.current_id,
            "tolerance": self.tolerance,
            "items_compared": self.items_compared,
            "regressions": len(self.regressions),
            "changes": [change.to_json() for change in self.changes],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunComparison:
        """Rebuild a comparison from its stored form."""
        return cls(
            baseline_id=data["baseline_id"],
            current_id=data["current_id"],
            tolerance=float(data["tolerance"]),
            items_compared=int(data["items_compared"]),
            changes=tuple(Change.from_json(change) for change in data["changes"]),
        )


@dataclass(frozen=True, slots=True)
class _Pooled:
    """One metric of one item, pooled over its samples."""

    score: float
    passed: bool
    error: str | None
    kind: str
    category: str
    reason: str | None = None


def compare_runs(baseline: Run, current: Run, *, tolerance: float = 0.0) -> RunComparison:
    """Compare ``current`` with ``baseline``, item by item and metric by metric."""
    before = _items(baseline.samples)
    after = _items(current.samples)
    shared = [key for key in after if key in before]
    changes: list[Change] = []
    for case_id, model in shared:
        old, new = before[(case_id, model)], after[(case_id, model)]
        for metric in new:
            if metric in old:
                change = _change(case_id, model, metric, old[metric], new[metric], tolerance)
                if change is not None:
                    changes.append(change)
    return RunComparison(baseline.id, current.id, tolerance, len(shared), tuple(changes))


def _items(samples: Sequence[SampleResult]) -> dict[tuple[str, str | None], dict[str, _Pooled]]:
    grouped: dict[tuple[str, str | None], list[SampleResult]] = defaultdict(list)
    for sample in samples:
        grouped[(sample.case_id, sample.model)].append(sample)
    return {key: _pool(group) for key, group in grouped.items()}


def _pool(samples: Sequence[SampleResult]) -> dict[str, _Pooled]:
    pooled: dict[str, _Pooled] = {}
    agent_errors = [sample.error for sample in samples if sample.error is not None]
    pooled[_AGENT] = _Pooled(
        score=1.0 - len(agent_errors) / len(samples),
        passed=not agent_errors,
        error=agent_errors[0] if agent_errors else None,
        kind="agent",
        category="agent",
    )
    by_metric: dict[str, list[MetricResult]] = defaultdict(list)
    for sample in samples:
        for metric in sample.metrics:
            by_metric[metric.name].append(metric)
    for name, metrics in by_metric.items():
        errors = [metric.error for metric in metrics if metric.error is not None]
        failing = [metric.reason for metric in metrics if not metric.passed and metric.reason]
        pooled[name] = _Pooled(
            score=sum(metric.effective_score for metric in metrics) / len(metrics),
            passed=all(metric.passed for metric in metrics),
            error=errors[0] if errors else None,
            kind=metrics[0].kind,
            category=metrics[0].category,
            reason=failing[0] if failing else None,
        )
    return pooled


def _change(case_id: str, model: str | None, metric: str, old: _Pooled, new: _Pooled,
            tolerance: float) -> Change | None:
    kind, detail = _classify(old, new, tolerance)
    if kind is None:
        return None
    return Change(kind, case_id, model, metric, new.kind, new.category, old.score, new.score,
                  detail)


def _classify(old: _Pooled, new: _Pooled, tolerance: float) -> tuple[ChangeKind | None, str]:
    drop = old.score - new.score
    if new.error is not None and old.error is None:
        return ChangeKind.NEW_ERROR, new.error
    if old.passed and not new.passed:
        because = f"{new.reason}; " if new.reason else ""
        return ChangeKind.NEWLY_FAILED, f"{because}passed before, fails now ({_pair(old, new)})"
    if drop > tolerance + _EPSILON:
        return ChangeKind.SCORE_DECREASE, f"fell by {drop:.3f} ({_pair(old, new)})"
    if (not old.passed and new.passed) or -drop > tolerance + _EPSILON:
        return ChangeKind.IMPROVEMENT, _pair(old, new)
    return None, ""


def _pair(old: _Pooled, new: _Pooled) -> str:
    return f"{old.score:.3f} → {new.score:.3f}"


def regressions_of(comparison: RunComparison | None) -> Iterable[Change]:
    """The regressions of a comparison, or none without a baseline."""
    return () if comparison is None else comparison.regressions
