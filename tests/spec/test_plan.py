import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    return "ok"


def metric_names(suite, index=0, judged=None):
    return [(m.name, m.kind, m.threshold) for m in suite.plan(judged=judged).cases[index].metrics]


def test_suite_checks_are_defaults_for_cases_without_minimum_scores():
    suite = assay.Suite("S", agent=agent, checks=[checks.exact_match(), checks.min_length(3)])
    suite.case("a", expected="x")
    suite.case("b", expected="x", minimum_scores={"min_length": 0.5})
    assert metric_names(suite, 0) == [("exact_match", "check", 1.0), ("min_length", "check", 1.0)]
    assert metric_names(suite, 1) == [("min_length", "check", 0.5)]


def test_expected_actions_imply_the_actions_check_and_case_checks_always_run():
    suite = assay.Suite("S", agent=agent, checks=[checks.exact_match()])
    suite.case(
        "a",
        expected_actions=[{"group": "g", "name": "lookup"}],
        checks=[checks.contains("x")],
        minimum_scores={"actions": 0.5},
    )
    assert metric_names(suite) == [("contains", "check", 1.0), ("actions", "check", 0.5)]


def test_judge_defaults_apply_only_with_a_judge_and_a_reference():
    suite = assay.Suite("S", agent=agent)
    suite.case("a", expected="30 days")
    suite.case("b")
    assert metric_names(suite, 0, judged=False) == []
    assert metric_names(suite, 0, judged=True) == [
        ("semantic_accuracy", "judge", 0.9),
        ("answer_relevancy", "judge", 0.9),
    ]
    assert metric_names(suite, 1, judged=True) == [("task_completion", "judge", 0.7)]


def test_judged_and_unjudged_plans_have_different_fingerprints():
    suite = assay.Suite("S", agent=agent)
    suite.case("a", expected="30 days")
    assert suite.plan(judged=True).fingerprint != suite.plan(judged=False).fingerprint


def test_suite_criteria_replace_the_default_pair_and_case_criteria_always_run():
    concise = assay.criterion("concise", "Is it concise?", threshold=0.6)
    suite = assay.Suite("S", agent=agent, criteria=[concise, "tone"])
    suite.case("a", expected="x")
    suite.case("b", expected="x", criteria=["language_quality"], minimum_scores={"tone": 0.8})
    assert metric_names(suite, 0, judged=True) == [
        ("concise", "judge", 0.6),
        ("tone", "judge", 0.5),
    ]
    assert metric_names(suite, 1, judged=True) == [
        ("language_quality", "judge", 0.5),
        ("tone", "judge", 0.8),
    ]
    assert metric_names(suite, 1, judged=False) == []


def test_unknown_criteria_are_refused():
    import pytest

    with pytest.raises(assay.SpecError, match="unknown judge criterion 'tonee'"):
        assay.Suite("S", agent=agent).case("a", criteria=["tonee"])
    with pytest.raises(assay.SpecError, match="not a judge criterion"):
        assay.Suite("S", agent=agent).case("a", criteria=[checks.contains("x")])
