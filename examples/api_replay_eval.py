"""Strict API replay, offline: the agent's real HTTP clients, served declared responses.

    assay-agents run examples/api_replay_eval.py
    AGENT_REVISION=regressed assay-agents run examples/api_replay_eval.py --fail-on-regression

The shipping agent asks a shipping API for an order's status (with httpx) and for a delivery
quote (with requests). Nothing leaves the machine: each case declares the requests the agent
must make and the responses they get, inline JSON or a file served as exact bytes
(fixtures/quote_77.json). The regressed revision sends wrong arguments (``order=42`` instead
of ``id=42``; the order id as a number instead of a string). Strict replay refuses both
requests and records the differences; the samples are agent errors even though the agent
catches the exception and, for the quote, still answers correctly from its cache.
Requires httpx and requests (both in the ``dev`` extra).
"""

from __future__ import annotations

import os

import httpx
import requests

import assay_agents as assay
from assay_agents import checks

API = "https://shipping.example/v1"
CACHED_ETA_DAYS = {"77": 3}  # the regressed agent's fallback: right answer, wrong behaviour


def regressed() -> bool:
    return os.environ.get("AGENT_REVISION") == "regressed"


def order_status(order_id: str) -> str:
    """The status tool: GET /orders with httpx."""
    params = {"order": order_id} if regressed() else {"id": order_id}
    with httpx.Client(headers={"Accept": "application/json"}) as client:
        response = client.get(f"{API}/orders", params=params)
    response.raise_for_status()
    return str(response.json()["status"])


def delivery_quote(order_id: str) -> int:
    """The quote tool: POST /quotes with requests."""
    sent: object = int(order_id) if regressed() else order_id
    response = requests.post(f"{API}/quotes", json={"order_id": sent, "express": False}, timeout=10)
    response.raise_for_status()
    return int(response.json()["eta_days"])


def shipping_agent(question: str, ctx: assay.AgentContext) -> assay.Outcome:
    """Answer from the shipping API, recording the tool calls it made."""
    order_id = "42" if "42" in question else "77"
    if "status" in question:
        call = assay.Action("order_status", {"order_id": order_id}, group="shipping")
        try:
            answer = f"Order {order_id} is {order_status(order_id)}."
        except httpx.HTTPError:
            answer = f"The status of order {order_id} is unknown."
    else:
        call = assay.Action("delivery_quote", {"order_id": order_id}, group="shipping")
        try:
            days = delivery_quote(order_id)
        except requests.RequestException:
            days = CACHED_ETA_DAYS[order_id]  # swallowed: strict replay still records it
        answer = f"Order {order_id} arrives in {days} days."
    return assay.Outcome(answer=answer, actions=[call])


suite = assay.Suite(
    "Shipping API",
    agent=shipping_agent,
    agent_name="ShippingAgent",
    checks=[checks.exact_match()],
)

suite.case(
    "What is the status of order 42?",
    id="status-42",
    expected="Order 42 is ready.",
    expected_actions=[
        {"group": "shipping", "name": "order_status", "arguments": {"order_id": "42"}}
    ],
    api=assay.api()
    .expect_request(
        "GET", f"{API}/orders", query={"id": "42"}, headers={"Accept": "application/json"}
    )
    .respond_with(json={"id": "42", "status": "ready"}),
)

suite.case(
    "When will order 77 arrive?",
    id="quote-77",
    expected="Order 77 arrives in 3 days.",
    expected_actions=[
        {"group": "shipping", "name": "delivery_quote", "arguments": {"order_id": "77"}}
    ],
    api=assay.api()
    .expect_request("POST", f"{API}/quotes", json={"order_id": "77", "express": False})
    .respond_with(status=200, body_file="fixtures/quote_77.json"),
)
