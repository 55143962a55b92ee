import pytest

from assay_agents import checks
from assay_agents.checks import CheckError
from assay_agents.errors import SpecError


def test_exact_match_normalisation_options(context):
    ctx = context(
        "  You can return it\nwithin 30 DAYS. ", expected="you can return it within 30 days."
    )
    assert checks.exact_match().evaluate(ctx).score == 0.0
    assert checks.exact_match(ignore_case=True).evaluate(ctx).score == 0.0
    relaxed = checks.exact_match(ignore_case=True, collapse_whitespace=True)
    assert relaxed.evaluate(ctx).score == 1.0
    strict = checks.exact_match(strip=False)
    assert strict.evaluate(context(" a", expected="a")).score == 0.0


def test_exact_match_without_a_reference_is_an_error_not_a_pass(context):
    with pytest.raises(CheckError, match="expected answer"):
        checks.exact_match().evaluate(context("anything"))


def test_exact_match_reason_shows_both_sides(context):
    verdict = checks.exact_match().evaluate(context("7 days", expected="30 days"))
    assert verdict.reason == "expected '30 days', got '7 days'"


def test_contains_and_not_contains_with_case_option(context):
    ctx = context("Return within 30 Days")
    assert checks.contains("30 days").evaluate(ctx).score == 0.0
    assert checks.contains("30 days", ignore_case=True).evaluate(ctx).score == 1.0
    assert checks.not_contains("I cannot").evaluate(ctx).score == 1.0
    assert checks.not_contains("within").evaluate(ctx).score == 0.0


def test_no_answer_fails_every_content_check(context):
    ctx = context(None, expected="x")
    for check in (
        checks.exact_match(),
        checks.contains("x"),
        checks.not_contains("x"),
        checks.regex("x"),
        checks.valid_json(),
        checks.min_length(1),
    ):
        verdict = check.evaluate(ctx)
        assert verdict.score == 0.0 and "no answer" in verdict.reason


def test_regex_search_and_full(context):
    assert checks.regex(r"\d+ days").evaluate(context("in 30 days")).score == 1.0
    assert checks.regex(r"\d+ days", full=True).evaluate(context("in 30 days")).score == 0.0
    assert checks.regex("DAYS", ignore_case=True).evaluate(context("days")).score == 1.0
    with pytest.raises(SpecError, match="regex: pattern must be a valid regular expression"):
        checks.regex("(")


def test_json_checks(context):
    schema = {"type": "object", "required": ["days"], "properties": {"days": {"type": "integer"}}}
    check = checks.json_schema(schema)
    assert check.evaluate(context('{"days": 30}')).score == 1.0
    wrong = check.evaluate(context('{"days": "30"}'))
    assert wrong.score == 0.0 and "days" in wrong.reason
    assert check.evaluate(context("not json")).score == 0.0
    assert checks.valid_json().evaluate(context("[1, 2]")).score == 1.0
    assert checks.valid_json().evaluate(context("{")).score == 0.0
    with pytest.raises(SpecError, match="json_schema: schema must be a valid JSON Schema"):
        checks.json_schema({"type": "no-such-type"})


def test_min_length_counts_stripped_characters(context):
    assert checks.min_length(5).evaluate(context("  abcd  ")).score == 0.8  # 4 of 5
    assert checks.min_length(4).evaluate(context("  abcd  ")).score == 1.0


def test_check_settings_round_trip_and_threshold_override():
    check = checks.contains("30 days", ignore_case=True)
    assert check.settings() == {"type": "Contains", "text": "30 days", "ignore_case": True}
    assert check.with_threshold(0.5).threshold == 0.5
    with pytest.raises(SpecError):
        checks.contains("x", threshold=2)
