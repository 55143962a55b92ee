"""Builders of domain objects for the store tests: the store takes and returns nothing else."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from assay_agents.agent import Action, Observation, Usage
from assay_agents.results import (
    CaseSnapshot,
    MetricResult,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    SampleStatus,
    Vote,
    summarise,
)
from assay_agents.store import Store

T0 = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
CASES = (
    CaseSnapshot(
        "refund",
        "Refund a duplicate charge",
        0,
        "fp-refund",
        {"input": "refund order 42", "reference": "Refunded.", "minimum_scores": {}},
    ),
    CaseSnapshot(
        "cancel",
        "Cancel a subscription",
        1,
        "fp-cancel",
        {"input": "cancel plan", "expect": {"actions": [["billing", "cancel"]]}},
    ),
)


def make_run(**changes: Any) -> Run:
    """A running run of suite 'support' by agent 'bot' with two cases; override anything."""
    run = Run(
        id=str(uuid.uuid4()),
        suite="support",
        agent="bot",
        fingerprint="suite-fp-1",
        status=RunStatus.RUNNING,
        started_at=T0,
        suite_version="3",
        settings=RunSettings(samples=2, models=("gpt-4o", "claude"), judge=None),
        metadata={"branch": "main", "commit": "abc123"},
        cases=CASES,
    )
    return replace(run, **changes)


def make_single_run(**changes: Any) -> Run:
    """A running run whose plan is exactly one sample: ``sample()`` (refund, gpt-4o, 0)."""
    return make_run(
        **{
            "settings": {"samples": 1, "models": ["gpt-4o"], "judge": None},
            "cases": CASES[:1],
            **changes,
        }
    )


def metric(
    name: str = "contains",
    *,
    kind: str = "check",
    score: float | None = 1.0,
    passed: bool = True,
    **changes: Any,
) -> MetricResult:
    """A metric result with sensible defaults."""
    value = MetricResult(
        name=name,
        kind=kind,
        category="content",  # type: ignore[arg-type]
        threshold=0.5,
        score=score,
        passed=passed,
        reason="found it",
    )
    return replace(value, **changes)


def sample(
    case_id: str = "refund", model: str | None = "gpt-4o", index: int = 0, **changes: Any
) -> SampleResult:
    """A passed sample with one check metric; override anything."""
    value = SampleResult(
        case_id=case_id,
        model=model,
        sample=index,
        status=SampleStatus.PASSED,
        answer="Refunded.",
        actions=(),
        usage=Usage(120, 30, 0.0015, "reported"),
        duration_ms=812.5,
        metrics=(metric(),),
    )
    return replace(value, **changes)


def varied_samples() -> list[SampleResult]:
    """Samples covering every shape the store must keep apart, in report order."""
    return [
        sample("refund", "gpt-4o", 0, actions=None, usage=None, metadata={"trace": "t-1"}),
        sample(
            "refund",
            "gpt-4o",
            1,
            actions=(
                Action("lookup_order", {"id": 42}, group="orders", result={"total": 9.5}),
                Action("refund", {"id": 42, "amount": 9.5}, group="billing", error="timeout"),
            ),
            observation=Observation(
                {"commands": [{"type": "Refund", "amount": 9.5}], "events": []}, truncated=True
            ),
            metrics=(
                metric(),
                metric(
                    "semantic_accuracy",
                    kind="judge",
                    score=0.75,
                    votes=(Vote(score=0.75, reason="ok"), Vote(error="bad json")),
                ),
                metric(
                    "tone", kind="judge", score=0.0, passed=False, error="verdict missing", votes=()
                ),
            ),
        ),
        sample(
            "refund",
            "claude",
            0,
            status=SampleStatus.ERROR,
            answer=None,
            error="agent raised ValueError: boom",
            duration_ms=None,
            usage=Usage(None, None, None, "unpriced"),
            metrics=(),
        ),
        sample(
            "cancel",
            "gpt-4o",
            0,
            status=SampleStatus.NOT_EVALUATED,
            metrics=(),
            answer="Cancelled ✓ — «done»",
        ),
        sample(
            "cancel",
            "claude",
            0,
            status=SampleStatus.FAILED,
            metrics=(metric("actions", score=0.0, passed=False, reason=None),),
        ),
    ]


def later(minutes: int) -> datetime:
    """A timestamp ``minutes`` after T0."""
    return T0 + timedelta(minutes=minutes)


def planned_keys(run: Run) -> list[tuple[str, str | None, int]]:
    """Every (case, model, sample) key the run plans, in report order.

    The plan is the run's own: its cases × its models (or no model) × ``settings["samples"]``.
    """
    models: list[str | None] = list(run.settings.models)
    per_case = run.settings.samples
    return [
        (case.case_id, model, index)
        for case in sorted(run.cases, key=lambda case: case.position)
        for model in models or [None]
        for index in range(per_case)
    ]


def planned(
    run: Run, given: list[SampleResult] | tuple[SampleResult, ...] = ()
) -> list[SampleResult]:
    """The run's whole plan in report order: ``given`` where it has the key, passed elsewhere."""
    by_key = {value.key: value for value in given}
    return [by_key.get(key) or sample(*key) for key in planned_keys(run)]


def complete_plan(
    store: Store, run_id: str, *, finished_at: datetime | None = None, **changes: Any
) -> Run:
    """Store the planned samples the run lacks, then complete it with a summary of them all."""
    stored = store.get_run(run_id)
    missing = [
        value for value in planned(stored) if value.key not in {kept.key for kept in stored.samples}
    ]
    store.save_samples(run_id, missing)
    done = store.complete_run(
        run_id,
        summary=summarise([*stored.samples, *missing]),
        finished_at=later(1) if finished_at is None else finished_at,
        **changes,
    )
    assert done is not None
    return done
