"""A gated suite whose agent always raises: a gate never turns errors into a pass."""

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    raise RuntimeError("the agent is down")


suite = assay.Suite(
    "Gated errors",
    agent=agent,
    checks=[checks.contains("x")],
    gate=assay.Gate(max_side_effect_failures=0),
)
suite.case("one")
