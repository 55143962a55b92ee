"""A customer-support suite that runs offline: a real local lookup, recorded as an action.

    assay-agents run examples/support_eval.py
    AGENT_REVISION=regressed assay-agents run examples/support_eval.py --fail-on-regression

The regressed revision looks up shipping instead of returns and answers "7 days": both the
exact-match check and the ordered-actions check catch it, and the report's "What to fix"
names the expected call. Exact match is not a semantic judge.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import assay_agents as assay
from assay_agents import checks

POLICIES = Path(__file__).with_name("data") / "policies.json"

TOPICS = {
    "How long do I have to return an item?": "returns",
    "How long does shipping take?": "shipping",
    "Is there a warranty?": "warranty",
}


def lookup_policy(topic: str) -> dict[str, object]:
    """Read one policy from the local policy file: the tool this agent calls."""
    policies = json.loads(POLICIES.read_text(encoding="utf-8"))
    return dict(policies[topic])


def support_agent(question: str, ctx: assay.AgentContext) -> assay.Outcome:
    """Answer from the policy the question is about, recording the lookup it made."""
    topic = TOPICS[question]
    if os.environ.get("AGENT_REVISION") == "regressed" and topic == "returns":
        topic = "shipping"  # the regression: the wrong lookup, hence the wrong answer
    policy = lookup_policy(topic)
    call = assay.Action("lookup_policy", {"topic": topic}, group="policies", result=policy)
    return assay.Outcome(answer=str(policy["answer"]), actions=[call])


suite = assay.Suite(
    "Customer support",
    agent=support_agent,
    agent_name="SupportAgent",
    checks=[checks.exact_match()],
    # What the agent is given: diagnosis names these tools in what to fix.
    available_tools={"lookup_policy": "Read one policy (returns, shipping, warranty)"},
    instructions="Answer from the policy the question is about; look it up first.",
)

for question, topic in TOPICS.items():
    policy = lookup_policy(topic)
    suite.case(
        question,
        id=topic,
        expected=str(policy["answer"]),
        expected_actions=[
            {"group": "policies", "name": "lookup_policy", "arguments": {"topic": topic}}
        ],
        metadata={"important_facts": [str(policy["answer"])]},
    )
