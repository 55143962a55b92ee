"""Small, fixed runs for the report tests: ids and times never change, so output is stable."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assay_agents.agent import Action, Usage
from assay_agents.results import (
    CaseSnapshot,
    JudgeUsage,
    MetricResult,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    SampleStatus,
    Vote,
    decide_status,
    errored,
    scored,
    summarise,
)

MODEL = "openai/gpt-4o-mini"
STARTED = datetime(2025, 3, 14, 9, 30, 0, tzinfo=UTC)
LOOKUP = Action(
    name="lookup_order", group="orders", arguments={"id": 42}, result={"status": "shipped"}
)
REFUND = Action(name="create_refund", group="refunds", arguments={"order": 42, "amount": 19.5})


def case_snapshots() -> tuple[CaseSnapshot, ...]:
    return (
        CaseSnapshot(
            "order-status",
            "Where is my order?",
            0,
            "f" * 64,
            {"input": "Where is order 42?", "reference": "Order 42 has shipped."},
        ),
        CaseSnapshot(
            "refund",
            "Refund a damaged item",
            1,
            "e" * 64,
            {"input": "Item in order 42 arrived broken", "reference": "Refund issued."},
        ),
        CaseSnapshot(
            "escalation", "escalation", 2, "d" * 64, {"input": "I want to speak to a human"}
        ),
    )


def sample(
    case_id: str, metrics: tuple[MetricResult, ...], *, error: str | None = None, **fields: object
) -> SampleResult:
    status = decide_status(error, metrics)
    return SampleResult(case_id, MODEL, 0, status, error=error, metrics=metrics, **fields)  # type: ignore[arg-type]


def passing_samples() -> list[SampleResult]:
    """What the baseline did: every case passed."""
    return [
        _order_status(),
        sample(
            "refund",
            (
                scored("exact_match", "check", "content", 1.0, 1.0, "matches the expected answer"),
                scored("actions", "check", "actions", 1.0, 1.0, "1 call(s) as expected"),
            ),
            answer="Refund issued.",
            actions=(REFUND,),
            duration_ms=1100.0,
            usage=Usage(300, 25, 0.00051, "reported"),
        ),
        sample(
            "escalation",
            (scored("contains", "check", "content", 1.0, 1.0, 'contains "human"'),),
            answer="Connecting you to a human agent.",
            actions=(),
            duration_ms=640.0,
            usage=Usage(90, 12, 0.00009, "reported"),
        ),
    ]


def _order_status() -> SampleResult:
    votes = (Vote(score=0.9, reason="accurate"), Vote(score=0.8, reason="accurate, terse"))
    return sample(
        "order-status",
        (
            scored("exact_match", "check", "content", 1.0, 1.0, "matches the expected answer"),
            scored("actions", "check", "actions", 1.0, 1.0, "1 call(s) as expected"),
            replace(
                scored("semantic_accuracy", "judge", "quality", 0.7, 0.9, "states the status"),
                votes=votes,
            ),
        ),
        answer="Order 42 has shipped.",
        actions=(LOOKUP,),
        duration_ms=820.0,
        usage=Usage(120, 18, 0.000243, "reported"),
        metadata={"trace_id": "trace-0001"},
        # Two votes, one of them retried once after a 429.
        judge_usage=JudgeUsage(
            calls=2,
            attempts=3,
            input_tokens=400,
            output_tokens=60,
            cost_usd=0.0002,
            by_kind={"score": 2},
            source="reported",
        ),
    )


def current_samples() -> list[SampleResult]:
    """What the candidate did: one pass, one failure (answer and actions), one agent error."""
    answer = "Refund | store credit issued.\nYou will get 5 days\r\nto return it."
    return [
        _order_status(),
        sample(
            "refund",
            (
                scored(
                    "exact_match",
                    "check",
                    "content",
                    1.0,
                    0.0,
                    'expected "Refund issued.", got "Refund | store credit issued.\\n..."',
                ),
                scored(
                    "actions",
                    "check",
                    "actions",
                    1.0,
                    0.5,
                    'expected [refunds.create_refund({"amount":19.5,"order":42})], got '
                    '[orders.lookup_order({"id":42}), refunds.create_refund({"amount":19.5,'
                    '"order":42})]; unexpected orders.lookup_order({"id":42})',
                ),
            ),
            answer=answer,
            actions=(LOOKUP, REFUND),
            duration_ms=1480.0,
            usage=Usage(2328, 423, 0.02433, "estimated"),
        ),
        sample(
            "escalation",
            (errored("contains", "check", "content", 1.0, "the agent gave no answer"),),
            error="TimeoutError: no answer within 30 s",
            duration_ms=30000.0,
        ),
    ]


def make_run(
    samples: list[SampleResult],
    *,
    run_id: str,
    sequence: int,
    status: RunStatus = RunStatus.COMPLETED,
    summarised: bool = True,
) -> Run:
    started = STARTED + timedelta(days=sequence)
    return Run(
        id=run_id,
        suite="Customer support",
        agent="SupportAgent",
        suite_version="2",
        fingerprint="3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4",
        status=status,
        started_at=started,
        sequence=sequence,
        finished_at=started + timedelta(seconds=31.5) if summarised else None,
        settings=RunSettings(samples=1, concurrency=4, models=(MODEL,)),
        metadata={"revision": "candidate", "prompt": "v7"},
        cases=case_snapshots(),
        samples=tuple(samples),
        summary=summarise(samples) if summarised else None,
    )


@pytest.fixture
def baseline_run() -> Run:
    return make_run(passing_samples(), run_id="run-0001", sequence=1)


@pytest.fixture
def current_run() -> Run:
    return make_run(current_samples(), run_id="run-0002", sequence=2)


@pytest.fixture
def running_run() -> Run:
    """A run still in progress: no summary, and only two samples so far."""
    return make_run(
        current_samples()[:2],
        run_id="run-0003",
        sequence=3,
        status=RunStatus.RUNNING,
        summarised=False,
    )


def status_of(run: Run, case_id: str) -> SampleStatus:
    return next(s.status for s in run.samples if s.case_id == case_id)


SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.fixture
def snapshot() -> Callable[[str, str], None]:
    """Compare output with a stored snapshot; ``ASSAY_UPDATE_SNAPSHOTS=1`` rewrites it."""

    def check(name: str, actual: str) -> None:
        path = SNAPSHOTS / name
        if os.environ.get("ASSAY_UPDATE_SNAPSHOTS") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8", newline="")
            return
        assert path.exists(), f"no snapshot {path}; run with ASSAY_UPDATE_SNAPSHOTS=1"
        expected = path.read_bytes().decode("utf-8")
        assert actual == expected, f"{name} differs; review, then ASSAY_UPDATE_SNAPSHOTS=1"

    return check
