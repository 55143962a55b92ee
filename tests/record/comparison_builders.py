"""Two runs whose comparison holds every part a stored comparison has."""

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

DERIVED = {"setup": "derived"}
RECORDED = {"reference": "recorded"}


def metric(name: str, score: float, *, kind: str = "check") -> MetricResult:
    """A metric; checks pass at 1.0, judges at 0.9."""
    limit = 0.9 if kind == "judge" else 1.0
    category = "judge" if kind == "judge" else "content"
    return MetricResult(name, kind, category, limit, score, score >= limit, "r", None)


def sample(case: str, *metrics: MetricResult, model: str, index: int = 0) -> SampleResult:
    return SampleResult(case, model, index, decide_status(None, metrics), metrics=metrics)


def case(case_id: str, position: int, **definition: Any) -> CaseSnapshot:
    """A case snapshot whose fingerprint, like the planner's, leaves provenance out."""
    described = {"id": case_id, "name": case_id, "input": case_id, **definition}
    hashed = {key: value for key, value in described.items() if key != "provenance"}
    return CaseSnapshot(case_id, case_id, position, digest(hashed), described)


def run(run_id: str, *samples: SampleResult, cases: tuple[CaseSnapshot, ...]) -> Run:
    return Run(
        run_id,
        "S",
        "A",
        "f",
        RunStatus.COMPLETED,
        datetime(2026, 1, 1, tzinfo=UTC),
        cases=cases,
        samples=samples,
        settings=RunSettings(models=("small", "large")),
    )


def _cases(edited: bool) -> tuple[CaseSnapshot, ...]:
    mark = 2 if edited else 1
    return (
        case("kept", 0),
        case("broken", 1, setup={"x": mark}),
        case("defect", 2, reference=f"r{mark}", provenance=RECORDED),
        case("intended", 3, setup={"y": mark}, provenance=DERIVED),
        case("only-before" if not edited else "only-after", 4),
    )


def _samples(edited: bool, model: str) -> list[SampleResult]:
    later = "only-after" if edited else "only-before"
    return [
        sample("kept", metric("contains", 0.0 if edited else 1.0), model=model),
        sample("kept", metric("tone", 0.5 if edited else 0.95, kind="judge"), model=model, index=1),
        sample("broken", metric("contains", 1.0), model=model),
        sample("defect", metric("contains", 1.0), model=model),
        sample("intended", metric("contains", 1.0 if edited else 0.0), model=model),
        sample(later, metric("contains", 1.0), model=model),
    ]


def runs() -> tuple[Run, Run]:
    """A baseline and a current run on two models: a regression, drift, every pairing."""
    before = run(
        "before",
        *_samples(False, "small"),
        *_samples(False, "large"),
        cases=_cases(False),
    )
    after = run(
        "after",
        *_samples(True, "small"),
        *[s for s in _samples(False, "large") if s.case_id != "only-before"],
        cases=_cases(True),
    )
    return before, after
