import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import SpecError


def agent(text, ctx):
    return "ok"


def test_names_default_to_input_and_ids_to_names():
    suite = assay.Suite("S", agent=agent)
    case = suite.case("What is the return window?")
    assert case.name == "What is the return window?"
    assert case.id == case.name
    structured = suite.case({"messages": [{"role": "user", "content": "hi"}]})
    assert structured.name == "case 2"


def test_duplicate_ids_are_a_spec_error_naming_the_case():
    suite = assay.Suite("S", agent=agent)
    suite.case("a", id="same")
    with pytest.raises(SpecError) as raised:
        suite.case("b", id="same")
    assert "same" in str(raised.value) and raised.value.field == "id"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"expected": {1, 2}}, "expected"),
        ({"metadata": {"when": object()}}, "metadata.when"),
        ({"metadata": {"x": float("nan")}}, "metadata.x"),
        ({"setup": {1: "non-string key"}}, "setup"),
        ({"minimum_scores": {"exact_match": 1.5}}, "minimum_scores.exact_match"),
        ({"minimum_scores": {"exact_match": "high"}}, "minimum_scores.exact_match"),
        ({"expected_actions": [{"name": "x", "colour": "red"}]}, "expected_actions[0]"),
        ({"expected_actions": [{"arguments": {}}]}, "expected_actions[0].name"),
        ({"expected_actions": [{"name": "lookup"}]}, "expected_actions[0].group"),
        ({"expected_actions": [{"group": " ", "name": "lookup"}]}, "expected_actions[0].group"),
        ({"expected_actions": [assay.Action("lookup")]}, "expected_actions[0].group"),
        ({"checks": ["contains"]}, "checks[0]"),
    ],
)
def test_invalid_case_data_fails_at_definition_with_the_field(kwargs, field):
    suite = assay.Suite("S", agent=agent)
    with pytest.raises(SpecError) as raised:
        suite.case("question", **kwargs)
    assert raised.value.field == field
    assert raised.value.case == "question"
    assert "S" in str(raised.value)


def test_minimum_scores_naming_no_metric_is_refused():
    suite = assay.Suite("S", agent=agent)
    with pytest.raises(SpecError, match="names no metric"):
        suite.case("q", minimum_scores={"exact_mach": 1.0})


def test_minimum_scores_may_name_judge_criteria_which_are_not_calculated_without_a_judge():
    suite = assay.Suite("S", agent=agent)
    suite.case("q", expected="a", minimum_scores={"semantic_accuracy": 0.9})
    assert suite.plan().cases[0].metrics == ()


def test_two_checks_with_one_name_are_refused():
    suite = assay.Suite("S", agent=agent)
    with pytest.raises(SpecError, match="named 'contains'"):
        suite.case("q", checks=[checks.contains("a"), checks.contains("b")])
    suite.case("q", checks=[checks.contains("a"), checks.contains("b", name="contains_b")])


def test_case_data_is_copied_so_later_mutation_does_not_change_the_suite():
    metadata = {"facts": ["30 days"]}
    suite = assay.Suite("S", agent=agent)
    case = suite.case("q", metadata=metadata)
    before = suite.fingerprint()
    metadata["facts"].append("changed")
    assert case.metadata == {"facts": ["30 days"]}
    assert suite.fingerprint() == before


def test_suite_rejects_non_callable_agent_and_bad_samples():
    with pytest.raises(SpecError, match="not callable"):
        assay.Suite("S", agent="agent")
    with pytest.raises(SpecError, match="samples"):
        assay.Suite("S", agent=agent, samples=0)


def test_agent_name_defaults_to_the_callable_name():
    assert assay.Suite("S", agent=agent).agent_name == "agent"
    assert assay.Suite("S", agent=agent, agent_name="Support").agent_name == "Support"


def test_ids_are_one_printable_line():
    suite = assay.Suite("S", agent=agent)
    assert suite.case("first line\nsecond  line").id == "first line second line"
    with pytest.raises(SpecError, match="control characters"):
        suite.case("q", id="esc\x1b[31mred")


def test_exact_match_on_a_case_without_an_expected_answer_fails_at_definition():
    suite = assay.Suite("S", agent=agent, checks=[checks.exact_match()])
    with pytest.raises(SpecError, match="give this case expected=") as raised:
        suite.case("q")
    assert raised.value.field == "expected"
    suite.case("q", expected="a")
