"""A deterministic agent graded by a scripted judge whose score comes from JUDGE_SCORE."""

import json
import os

import assay_agents as assay
from assay_agents import checks, judges


def complete(instructions, prompt):
    return json.dumps(
        {"score": float(os.environ.get("JUDGE_SCORE", "0.98")), "reason": "States the window."}
    )


suite = assay.Suite(
    "Judged",
    agent=lambda text, ctx: "You have 30 days.",
    agent_name="Agent",
    judge=judges.function("scripted", complete),
    checks=[checks.contains("30")],
    criteria=["semantic_accuracy"],
)
suite.case("How long is the return window?", id="returns", expected="30 days")
