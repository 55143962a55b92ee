"""Integrity categories, declared outcome rates, judge outages and complete costs."""

import assay_agents as assay
from assay_agents import checks
from assay_agents.agent import Observation, Usage
from assay_agents.judging import JudgeUsage
from assay_agents.judging.judge import JudgeReply
from assay_agents.record import read_summary, write_summary
from assay_agents.results import JudgeUsage as CountedUsage
from assay_agents.results import MetricResult, SampleResult, SampleStatus, summarise
from assay_agents.results.summary import cost_source


def metric(name, category, passed, kind="check", error=None):
    return MetricResult(name, kind, category, 1.0, 1.0 if passed else 0.0, passed, error=error)


def sample(
    case, index, *metrics, error=None, metadata=None, observation=None, usage=None, judge_usage=None
):
    status = SampleStatus.PASSED if all(m.passed for m in metrics) else SampleStatus.FAILED
    return SampleResult(
        case,
        None,
        index,
        status,
        metrics=metrics,
        error=error,
        metadata=metadata or {},
        observation=observation,
        usage=usage,
        judge_usage=judge_usage,
    )


def test_each_integrity_category_counts_its_own_failing_samples():
    summary = summarise(
        [
            sample("a", 0, metric("commands", "side_effects", False)),
            sample("a", 1, metric("said_booked", "operational_claim_integrity", False)),
            sample(
                "b",
                0,
                metric("understood", "semantic_interpretation", False),
                metric("asked", "clarification_integrity", False),
            ),
            # A judge score stays outside every category, whatever it is called.
            sample(
                "b",
                1,
                metric(
                    "operational_claim_integrity",
                    "operational_claim_integrity",
                    False,
                    kind="judge",
                ),
            ),
        ]
    )
    assert summary.integrity == {
        "side_effect_integrity": 1,
        "operational_claim_integrity": 1,
        "semantic_interpretation": 1,
        "clarification_integrity": 1,
    }


def test_a_check_declares_the_category_it_speaks_to():
    check = checks.contains("booked").speaks_to("operational_claim_integrity")
    assert check.category == "operational_claim_integrity"
    assert check.with_threshold(0.5).category == "operational_claim_integrity"
    assert checks.contains("booked").category == "content"
    custom = checks.custom(lambda a, c: True, name="asked", category="clarification_integrity")
    assert custom.category == "clarification_integrity"


def test_rates_come_from_declared_outcomes_never_from_prose():
    samples = [
        sample("a", 0, metric("x", "content", True), metadata={"outcome": "clarification"}),
        sample(
            "a",
            1,
            metric("x", "content", True),
            observation=Observation({"outcome": ["abandoned"]}),
        ),
        sample("a", 2, metric("x", "content", True), metadata={"outcome": "answered"}),
        sample("a", 3, metric("x", "content", True), metadata={"outcome": "provider_failure"}),
    ]
    summary = summarise(samples)
    assert summary.clarification_rate == 0.25
    assert summary.abandonment_rate == 0.25
    assert summary.provider_failure_rate == 0.25
    # An answer that asks a question in prose declares nothing: no rate at all.
    prose = SampleResult(
        "a",
        None,
        0,
        SampleStatus.PASSED,
        answer="Which date did you mean?",
        metrics=(metric("x", "content", True),),
    )
    assert summarise([prose]).clarification_rate is None


def test_a_judge_outage_is_not_a_provider_failure_of_the_agent():
    outage = sample(
        "a",
        0,
        metric("x", "content", True),
        metric("tone", "judge", False, kind="judge", error="no vote returned"),
    )
    summary = summarise([outage, sample("a", 1, metric("tone", "judge", True, kind="judge"))])
    assert summary.judge_failure_rate == 0.5
    assert summary.provider_failure_rate == 0.0
    assert summary.integrity["operational_claim_integrity"] == 0


def test_no_usage_is_distinct_from_unpriced_and_the_summary_has_a_basis_and_a_total():
    samples = [
        sample(
            "a",
            0,
            usage=Usage(100, 20, 0.01, "reported"),
            judge_usage=CountedUsage(calls=1, cost_usd=0.002),
        ),
        sample("a", 1, usage=Usage(100, 20, 0.03, "estimated")),
        sample("a", 2, usage=Usage(100, 20)),
        sample("a", 3),
    ]
    assert [cost_source(s) for s in samples] == ["reported", "estimated", "unpriced", "no_usage"]
    summary = summarise(samples)
    assert (summary.priced, summary.unpriced, summary.no_usage) == (2, 1, 1)
    assert summary.cost_basis == "mixed"
    assert round(summary.total_cost_usd, 6) == 0.042
    assert summarise(samples[:1]).cost_basis == "reported"
    assert summarise(samples[2:]).cost_basis is None
    # Stored summaries read back, and ones from before these fields still do.
    assert read_summary(write_summary(summary)) == summary
    old = {
        k: v
        for k, v in write_summary(summary).items()
        if k not in ("integrity", "no_usage", "cost_basis", "total_cost_usd")
    }
    assert read_summary(old).cost_basis is None


def test_an_outcome_with_neither_tokens_nor_cost_has_no_usage():
    outcome = assay.Outcome(answer="hi", usage={"input_tokens": None})
    from assay_agents.agent.outcome import coerce_outcome

    assert coerce_outcome(outcome).usage.cost_source == "no_usage"
    assert (
        coerce_outcome(assay.Outcome(answer="hi", usage=Usage(5, 1))).usage.cost_source
        == "unpriced"
    )


def test_judge_usage_records_its_model_source_and_calls_by_kind():
    usage = JudgeUsage(model="claude-opus-5")
    usage.add(JudgeReply("{}", 400, 20, 0.0015), "score")
    usage.add(JudgeReply("{}", 300, 30, 0.001, cost_estimated=True), "refine")
    usage.add(None, "verdict")
    stored = usage.counted()
    assert stored.model == "claude-opus-5"
    assert stored.by_kind == {"score": 1, "refine": 1, "verdict": 1}
    assert stored.source == "mixed"
    assert JudgeUsage().source == "no_usage"


def test_case_costs_give_each_case_across_models_with_the_judge_apart():
    from assay_agents.report import Report
    from assay_agents.results.costs import case_costs

    def priced(case, model, cost, source="reported", judge=None):
        return SampleResult(
            case, model, 0, SampleStatus.PASSED, usage=Usage(10, 5, cost, source), judge_usage=judge
        )

    samples = [
        priced("refund", "a", 0.01, judge=CountedUsage(calls=1, cost_usd=0.002)),
        priced("refund", "b", 0.03, "estimated"),
        priced("lookup", "a", 0.005),
    ]
    refund, lookup = case_costs(samples)
    assert refund["case_id"] == "refund"
    assert round(refund["cost_usd"], 6) == 0.04
    assert refund["judge_cost_usd"] == 0.002
    assert round(refund["total_usd"], 6) == 0.042
    assert refund["estimated"] is True
    assert refund["by_model"]["a"] == {
        "cost_usd": 0.01,
        "judge_cost_usd": 0.002,
        "total_usd": 0.012,
        "estimated": False,
    }
    assert lookup == {
        "case_id": "lookup",
        "cost_usd": 0.005,
        "judge_cost_usd": None,
        "total_usd": 0.005,
        "estimated": False,
        "by_model": {
            "a": {"cost_usd": 0.005, "judge_cost_usd": None, "total_usd": 0.005, "estimated": False}
        },
    }
    assert hasattr(Report, "case_costs")
