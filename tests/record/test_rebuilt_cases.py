"""A stored run gives back the cases it ran: the same definitions, the same fingerprints."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.errors import ConfigurationError
from assay_agents.judging.criteria import criterion
from assay_agents.record import rebuilt_cases
from assay_agents.results import CaseSnapshot, Run, RunStatus
from assay_agents.spec.plan import plan_suite


def _suite() -> assay.Suite:
    judge = judges.function("fixed", lambda system, prompt: '{"score": 1, "reason": "ok"}')
    suite = assay.Suite(
        "S", agent=lambda text, ctx: "x", judge=judge, checks=[checks.contains("days")]
    )
    suite.case(
        "How long do I have?",
        id="returns",
        expected="30 days",
        criteria=["tone", criterion("polite", "Is it polite?", threshold=0.6)],
        minimum_scores={"tone": 0.5},
        expected_actions=[{"group": "kb", "name": "lookup", "arguments": {"topic": "returns"}}],
        metadata={"important_facts": ["30 days"]},
    )
    suite.case("Where is my order?", id="order", expected="It ships today.", tags=["shipping"])
    suite.case(
        "Say hello",
        id="hello",
        checks=[checks.regex(r"hel+o", ignore_case=True), checks.token_budget(100)],
    )
    return suite


def _run(suite: assay.Suite) -> Run:
    plan = suite.plan()
    cases = tuple(
        CaseSnapshot(p.case.id, p.case.name, p.position, p.fingerprint, p.snapshot())
        for p in plan.cases
    )
    return Run(
        id="r",
        suite=suite.name,
        agent="a",
        fingerprint=plan.fingerprint,
        status=RunStatus.COMPLETED,
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        cases=cases,
    )


def test_the_rebuilt_cases_plan_to_the_stored_fingerprints() -> None:
    run = _run(_suite())
    cases = rebuilt_cases(run)
    assert [case.id for case in cases] == ["returns", "order", "hello"]
    assert cases[0].reference == "30 days" and cases[0].minimum_scores == {"tone": 0.5}
    again = plan_suite(run.suite, None, cases, (), judged=True)
    assert [p.fingerprint for p in again.cases] == [case.fingerprint for case in run.cases]
    assert again.fingerprint == run.fingerprint


def test_a_custom_check_is_code_and_cannot_be_rebuilt() -> None:
    suite = assay.Suite("S", agent=lambda text, ctx: "x")
    suite.case("q", id="q", checks=[checks.custom(lambda answer, ctx: True, name="mine")])
    with pytest.raises(ConfigurationError, match=r"cases\[0\]\.definition\.metrics\[0\]"):
        rebuilt_cases(_run(suite))
