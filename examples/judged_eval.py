"""A judged suite: a tool-calling agent on the openai client, graded by a judge model.

Offline (the default): a bundled scripted server on 127.0.0.1 plays both the model and the
judge. It proves the transport and the orchestration (tool calls recorded as actions, verdicts
parsed, votes, usage), not model reasoning: its "judge" only checks that the reference's key
words appear in the answer.

    assay-agents run examples/judged_eval.py --votes 3
    assay-agents run examples/judged_eval.py --model support-v1 --model support-v2

The agent calls the model each sample asks for (``--model``), else EVAL_MODEL (offline:
``scripted-model``); the bundled server names in each response the model it was asked for.

With a real provider (costs money):

    OPENAI_API_KEY=sk-... EVAL_MODEL=gpt-4.1-mini EVAL_JUDGE_MODEL=gpt-4.1-mini \\
        assay-agents run examples/judged_eval.py
"""

from __future__ import annotations

import atexit
import json
import os
from pathlib import Path
from typing import Any

import assay_agents as assay
from assay_agents import agents, checks, judges
from assay_agents.testing import Response, ScriptedServer, reply, tool_calls, verdict

POLICIES = json.loads((Path(__file__).with_name("data") / "policies.json").read_text("utf-8"))


def lookup_policy(topic: str) -> dict[str, Any]:
    """Look up the store policy on a topic: returns, shipping or warranty."""
    return dict(POLICIES[topic])


def scripted(body: dict[str, Any]) -> Response:
    """The bundled stand-in for a model: looks the policy up, answers, and grades."""
    messages = body["messages"]
    if messages[0]["content"].startswith("You grade one answer"):
        return _grade(messages[0]["content"], json.loads(messages[1]["content"].split("\n", 1)[1]))
    results = [m for m in messages if m["role"] == "tool"]
    if results:
        return reply(
            json.loads(results[-1]["content"])["answer"], input_tokens=180, output_tokens=12
        )
    question = messages[-1]["content"].lower()
    topic = next((t for t in POLICIES if t.rstrip("s") in question), "warranty")
    return tool_calls(("lookup_policy", {"topic": topic}), input_tokens=120, output_tokens=9)


def _grade(instructions: str, data: dict[str, Any]) -> Response:
    answer = data["answer"].lower()
    if '"semantic_accuracy"' in instructions:
        words = [w for w in data.get("reference_answer", "").lower().split() if w.isdigit()]
        same = all(word in answer for word in words)
        return verdict(
            1.0 if same else 0.2,
            "States the reference's figures." if same else "Contradicts the reference's figures.",
        )
    return verdict(1.0 if answer else 0.0, "Responds to the question.")


if os.environ.get("EVAL_MODEL"):
    MODEL, BASE_URL = os.environ["EVAL_MODEL"], None
    JUDGE = judges.openai(os.environ.get("EVAL_JUDGE_MODEL", MODEL))
else:
    _server = ScriptedServer(scripted).start()
    atexit.register(_server.stop)
    MODEL, BASE_URL = "scripted-model", _server.base_url
    JUDGE = judges.openai("scripted-judge", base_url=BASE_URL, api_key="offline")

agent = agents.openai_chat(
    default_model=MODEL,
    tools={"lookup_policy": lookup_policy},
    action_groups={"lookup_policy": "policies"},
    instructions="Answer from the store's policies; look them up before answering.",
    base_url=BASE_URL,
    api_key=None if BASE_URL is None else "offline",
)

suite = assay.Suite("Judged support", agent=agent, agent_name="PolicyChat", judge=JUDGE)

for question, topic in [
    ("How long do I have to return an item?", "returns"),
    ("How long does shipping take?", "shipping"),
]:
    suite.case(
        question,
        id=topic,
        expected=POLICIES[topic]["answer"],
        expected_actions=[
            {"group": "policies", "name": "lookup_policy", "arguments": {"topic": topic}}
        ],
        metadata={"important_facts": [POLICIES[topic]["answer"]]},
        checks=[checks.contains(str(POLICIES[topic]["window_days"]))],
    )
