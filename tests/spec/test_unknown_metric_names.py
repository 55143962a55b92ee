import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import SpecError


def test_an_unknown_minimum_score_lists_the_suite_defaults_and_the_near_name():
    suite = assay.Suite(
        "S", agent=lambda text, ctx: "a", checks=[checks.exact_match(), checks.contains("a")]
    )
    with pytest.raises(SpecError) as caught:
        suite.case("q", expected="a", minimum_scores={"exact_mach": 1.0})
        suite.plan(judged=False)
    message = str(caught.value)
    assert "minimum_scores.exact_mach" in message and "did you mean 'exact_match'?" in message
    assert "available: contains, exact_match" in message and "none" not in message


def test_a_case_with_no_check_at_all_says_so():
    suite = assay.Suite("S", agent=lambda text, ctx: "a")
    with pytest.raises(SpecError, match=r"available: no check \(give the case or the suite"):
        suite.case("q", minimum_scores={"speed": 1.0})
        suite.plan(judged=False)
