"""Large tool results: a correct answer does not excuse a bloated context.

    assay-agents run examples/context_bloat_eval.py
    AGENT_REVISION=regressed assay-agents run examples/context_bloat_eval.py --fail-on-regression

    # Opt-in, against a real model (your OPENAI_API_KEY; it incurs charges):
    RUN_CONTEXT_BLOAT_EVAL=1 OPENAI_MODEL=gpt-4.1-mini \
        assay-agents run examples/context_bloat_eval.py

After a long conversation, the support agent looks up the current electronics return policy.
The policy API (replayed, offline) answers with roughly 500 KB of JSON: every product's policy
history, with the one relevant current policy somewhere inside. The normal tool extracts the
relevant facts; the regressed tool hands the entire response to the model. Three independent
checks: the answer, the tool name and arguments, and a 4,096-byte budget on the model-facing
tool result. The regressed revision still answers correctly and calls the right tool, and
fails the budget alone. The API and tool-result byte counts are saved in each sample's
metadata. This is a byte budget on tool output, not a tokenizer.

Offline, the "model" is a scripted stand-in that reads the tool result; it proves the HTTP and
tool plumbing, not model reasoning. With ``RUN_CONTEXT_BLOAT_EVAL=1`` the question goes to a
real model instead (``OPENAI_MODEL``, through the official ``openai`` client, which also reads
``OPENAI_BASE_URL``), which calls the same tool; the policy API stays replayed, and only the
provider's host is let through. The answer is then checked for "45 days" rather than matched
exactly, and a provider failure (a context limit included) is recorded as an agent error.
Requires requests (in the ``dev`` extra) and, for the real model, ``assay-agents[openai]``.
"""

from __future__ import annotations

import contextvars
import json
import os
import random
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import requests

import assay_agents as assay
from assay_agents import checks

API = "https://policies.example/v2/policies"
BUDGET = 4_096
PRODUCTS = ("electronics", "furniture", "apparel", "garden", "toys", "grocery")
TOPICS = ("returns", "shipping", "warranty", "price-match", "gift-cards")
WORDS = (
    "customer",
    "receipt",
    "refund",
    "store",
    "credit",
    "condition",
    "original",
    "packaging",
    "exchange",
    "period",
    "eligible",
    "item",
    "purchase",
    "days",
    "policy",
)
CURRENT = {"product": "electronics", "topic": "returns", "window_days": 45}


def policy_document() -> dict[str, object]:
    """About 500 KB of policy history, generated deterministically (same bytes every run)."""
    rng = random.Random(20240601)
    policies = []
    for number in range(1, 941):
        product, topic = PRODUCTS[number % len(PRODUCTS)], TOPICS[number % len(TOPICS)]
        policies.append(
            {
                "id": f"pol-{number:05d}",
                "product": product,
                "topic": topic,
                "status": "superseded",
                "version": number // 30 + 1,
                "window_days": rng.choice((14, 21, 30, 60, 90)),
                "effective": f"20{10 + number % 14:02d}-{number % 12 + 1:02d}-01",
                "text": " ".join(rng.choice(WORDS) for _ in range(50)),
            }
        )
    current = dict(policies[777], **CURRENT, status="current", id="pol-current-electronics")
    policies[777] = current
    return {"generated": "2024-06-01", "count": len(policies), "policies": policies}


DOCUMENT = policy_document()


def regressed() -> bool:
    return os.environ.get("AGENT_REVISION") == "regressed"


def lookup_policy(product: str, topic: str) -> tuple[str, int]:
    """The tool: fetch the policies and return (model-facing result, API response bytes)."""
    response = requests.get(API, params={"product": product}, timeout=10)
    response.raise_for_status()
    if regressed():
        return response.text, len(response.content)  # the regression: everything
    relevant = [
        policy
        for policy in response.json()["policies"]
        if policy["product"] == product
        and policy["topic"] == topic
        and policy["status"] == "current"
    ]
    facts = [
        {key: policy[key] for key in ("id", "window_days", "effective")} for policy in relevant
    ]
    return json.dumps({"current": facts}), len(response.content)


def scripted_model(tool_result: str) -> str:
    """Stands in for the model: reads the tool result and answers from it."""
    data = json.loads(tool_result)
    current = (
        data["current"]
        if "current" in data
        else [
            policy
            for policy in data["policies"]
            if policy["status"] == "current"
            and policy["product"] == "electronics"
            and policy["topic"] == "returns"
        ]
    )
    return f"Electronics can be returned within {current[0]['window_days']} days."


def support_agent(messages: list[dict[str, str]], ctx: assay.AgentContext) -> assay.Outcome:
    """Answer the last question of a long conversation with one policy lookup."""
    arguments = {"product": "electronics", "topic": "returns"}
    result, api_bytes = lookup_policy(**arguments)
    size = len(result.encode("utf-8"))
    # The full result is what the model saw; only a preview is stored with the run.
    call = assay.Action(
        "lookup_policy", arguments, group="policies", result=result[:500], result_bytes=size
    )
    return assay.Outcome(
        answer=scripted_model(result),
        actions=[call],
        metadata={
            "api_response_bytes": api_bytes,
            "tool_result_bytes": size,
            "history_messages": len(messages),
        },
    )


def long_history(turns: int = 60) -> list[dict[str, str]]:
    """A long, unrelated conversation before the question that matters."""
    history = []
    for turn in range(turns):
        history.append(
            {
                "role": "user",
                "content": f"Question {turn}: can I change my "
                f"delivery address for order {1000 + turn}?",
            }
        )
        history.append({"role": "assistant", "content": "Yes, until the order ships."})
    question = "What is the current return window for electronics?"
    return [*history, {"role": "user", "content": question}]


# -- the opt-in real-provider path --------------------------------------------------------------

#: The byte counts of the current sample's lookups, kept beside the built-in chat agent.
_SIZES: contextvars.ContextVar[dict[str, int]] = contextvars.ContextVar("sizes")


def real_provider() -> bool:
    """Whether this run asks a real model (``RUN_CONTEXT_BLOAT_EVAL=1``) instead of the script."""
    return os.environ.get("RUN_CONTEXT_BLOAT_EVAL") == "1"


def lookup_policy_tool(product: str, topic: str) -> str:
    """Look up the current store policy for a product and a topic (e.g. returns)."""
    result, api_bytes = lookup_policy(product, topic)
    _SIZES.get({}).update(
        api_response_bytes=api_bytes, tool_result_bytes=len(result.encode("utf-8"))
    )
    return result


class WithSizes:
    """The built-in chat agent, with each sample's byte counts added to its metadata."""

    def __init__(self, chat: Any) -> None:
        self.chat = chat

    def __getattr__(self, name: str) -> Any:
        return getattr(self.chat, name)  # prepare, preflight, its roster: the chat agent's

    async def __call__(self, messages: Any, ctx: assay.AgentContext) -> assay.Outcome:
        sizes: dict[str, int] = {"history_messages": len(messages)}
        token = _SIZES.set(sizes)
        try:
            outcome = await self.chat(messages, ctx)
        finally:
            _SIZES.reset(token)
        return replace(outcome, metadata={**outcome.metadata, **sizes})


def provider_agent() -> WithSizes:
    """A real model behind the official client, calling the same policy tool."""
    model = os.environ.get("OPENAI_MODEL")
    if not model:
        raise assay.ConfigurationError(
            "RUN_CONTEXT_BLOAT_EVAL=1 needs OPENAI_MODEL (e.g. gpt-4.1-mini)"
        )
    chat = assay.agents.openai_chat(
        model,
        tools={"lookup_policy": lookup_policy_tool},
        action_groups={"lookup_policy": "policies"},
        instructions="You are a store's support agent. Use lookup_policy to answer policy "
        "questions, and answer in one sentence.",
        temperature=0,
    )
    return WithSizes(chat)


def provider_host() -> str:
    """The host the model's requests go to: let through the replay, never the policy API."""
    base = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    return urlsplit(base).hostname or "api.openai.com"


if real_provider():
    suite = assay.Suite(
        "Context bloat",
        agent=provider_agent(),
        agent_name="PolicySupportAgent (real model)",
        checks=[checks.contains("45 days", ignore_case=True), checks.tool_result_bytes(BUDGET)],
    )
    fixtures = assay.api(allow_hosts=[provider_host()])
else:
    suite = assay.Suite(
        "Context bloat",
        agent=support_agent,
        agent_name="PolicySupportAgent",
        checks=[checks.exact_match(), checks.tool_result_bytes(BUDGET)],
    )
    fixtures = assay.api()

suite.case(
    long_history(),
    id="electronics-returns",
    name="Current electronics return window after a long conversation",
    expected="Electronics can be returned within 45 days.",
    expected_actions=[
        {
            "group": "policies",
            "name": "lookup_policy",
            "arguments": {"product": "electronics", "topic": "returns"},
        }
    ],
    api=fixtures.expect_request("GET", API, query={"product": "electronics"}).respond_with(
        json=DOCUMENT
    ),
)
