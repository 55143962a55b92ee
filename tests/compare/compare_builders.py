"""Runs built from result objects, for comparison tests that need exact figures."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from assay_agents.results import (
    CaseSnapshot,
    MetricResult,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    decide_status,
)
from assay_agents.spec import digest

STARTED = datetime(2026, 1, 1, tzinfo=UTC)


def metric(
    name: str,
    score: float,
    *,
    kind: str = "check",
    threshold: float | None = None,
    error: str | None = None,
    reason: str = "r",
) -> MetricResult:
    """A metric; checks pass at 1.0 by default, judges at 0.9."""
    limit = threshold if threshold is not None else (0.9 if kind == "judge" else 1.0)
    category = "judge" if kind == "judge" else "content"
    return MetricResult(
        name,
        kind,
        category,
        limit,
        score,  # type: ignore[arg-type]
        error is None and score >= limit,
        reason,
        error,
    )


def sample(
    case: str,
    *metrics: MetricResult,
    model: str | None = None,
    index: int = 0,
    error: str | None = None,
) -> SampleResult:
    return SampleResult(
        case, model, index, decide_status(error, metrics), error=error, metrics=tuple(metrics)
    )


def case(case_id: str, position: int = 0, **definition: Any) -> CaseSnapshot:
    """A case snapshot whose fingerprint, like the planner's, leaves provenance out."""
    described = {"id": case_id, "name": case_id, "input": case_id, **definition}
    hashed = {key: value for key, value in described.items() if key != "provenance"}
    return CaseSnapshot(case_id, case_id, position, digest(hashed), described)


def run(
    run_id: str,
    *samples: SampleResult,
    cases: tuple[CaseSnapshot, ...] = (),
    models: list[str] | None = None,
) -> Run:
    return Run(
        run_id,
        "S",
        "A",
        "f",
        RunStatus.COMPLETED,
        STARTED,
        cases=cases,
        samples=tuple(samples),
        settings=RunSettings(models=tuple(models or ())),
    )
