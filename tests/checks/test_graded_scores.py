"""Rule criteria score by degree; each passes only at 1.0, so the verdict is unchanged."""

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.results.metric import scored


def verdict_of(check, ctx):
    verdict = check.evaluate(ctx)
    metric = scored(
        check.name, "check", check.category, check.threshold, verdict.score, verdict.reason
    )
    return verdict.score, metric.passed


def test_latency_over_budget_scores_budget_over_actual(context):
    # The seed's example: 2,000 ms against a budget of 1,000 scores 0.5, and fails.
    assert verdict_of(checks.max_latency_ms(1000), context("ok", duration_ms=2000.0)) == (
        0.5,
        False,
    )
    assert verdict_of(checks.max_latency_ms(1000), context("ok", duration_ms=999.0)) == (1.0, True)


def test_min_length_scores_actual_over_required(context):
    assert verdict_of(checks.min_length(60), context("x" * 30)) == (0.5, False)
    assert verdict_of(checks.min_length(60), context("x" * 61)) == (1.0, True)


def test_token_budget_scores_budget_over_output_tokens(context):
    usage = assay.Usage(input_tokens=5000, output_tokens=400)
    assert verdict_of(checks.token_budget(100), context("ok", usage=usage)) == (0.25, False)
    assert verdict_of(checks.token_budget(400), context("ok", usage=usage)) == (1.0, True)


@pytest.mark.parametrize(
    "check",
    [
        checks.contains("refund"),
        checks.not_contains("I cannot"),
        checks.regex(".*"),
        checks.min_length(1),
        checks.valid_json(),
        checks.exact_match(),
    ],
)
@pytest.mark.parametrize("answer", ["", "   \n"])
def test_an_empty_answer_fails_every_content_rule(context, check, answer):
    score, passed = verdict_of(check, context(answer, expected=""))
    assert (score, passed) == (0.0, False)
    assert "empty answer" in check.evaluate(context(answer, expected="")).reason
