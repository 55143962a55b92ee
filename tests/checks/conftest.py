import pytest

import assay_agents as assay
from assay_agents.checks import CheckContext


@pytest.fixture
def context():
    def build(
        answer="",
        *,
        expected=None,
        expected_actions=None,
        actions=None,
        usage=None,
        duration_ms=None,
    ):
        suite = assay.Suite("S", agent=lambda text, ctx: "")
        case = suite.case("q", expected=expected, expected_actions=expected_actions)
        outcome = assay.Outcome(
            answer=answer, actions=actions, usage=usage, duration_ms=duration_ms
        )
        return CheckContext(case, outcome)

    return build
