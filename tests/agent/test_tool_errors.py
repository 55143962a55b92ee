"""One tool-error rule for every adapter: the built-in chat agent and conversations alike."""

import asyncio
import json

import mcp.types
import pytest

import assay_agents as assay
from assay_agents import agents
from assay_agents.agent.outcome import coerce_outcome
from assay_agents.testing import ScriptedServer, reply, tool_calls

MCP_FAILURE = mcp.types.CallToolResult(
    content=[
        mcp.types.TextContent(type="text", text="order 7 is locked"),
        mcp.types.TextContent(type="text", text="try again later"),
    ],
    isError=True,
)

RESULTS = {
    "an error object": ({"error": "refund window closed"}, "refund window closed"),
    "an error in JSON text": ('{"error": "refund window closed"}', "refund window closed"),
    "an MCP result as JSON": (
        MCP_FAILURE.model_dump(mode="json", by_alias=True),
        "order 7 is locked\ntry again later",
    ),
    "the MCP SDK's own result": (MCP_FAILURE, "order 7 is locked\ntry again later"),
    "a message that mentions an error": ({"error": None, "message": "not found"}, None),
}


def context():
    suite = assay.Suite("S", agent=lambda t, c: "")
    case = suite.case("q")
    return assay.AgentContext(
        case=case, model=assay.ModelSpec.parse("openai/gpt-4.1-mini"), sample=0, setup=None
    )


def through_openai_chat(result):
    def refund(order_id: int):
        """Refund an order."""
        return result

    agent = agents.openai_chat(tools={"refund": refund}, api_key="test")
    with ScriptedServer([tool_calls(("refund", {"order_id": 7})), reply("Done.")]) as server:
        agent.base_url = server.base_url
        outcome = asyncio.run(agent("Refund order 7", context()))
        conversation = [*server.requests[-1]["messages"], {"role": "assistant", "content": "Done."}]
    return outcome, conversation


@pytest.mark.parametrize("kind", list(RESULTS))
def test_the_chat_agent_and_its_own_conversation_agree_on_a_tool_error(kind):
    result, expected = RESULTS[kind]
    outcome, conversation = through_openai_chat(result)
    recorded = agents.from_messages(conversation)
    assert outcome.actions[0].error == expected
    assert recorded.actions[0].error == expected


def test_a_tool_result_given_as_text_content_parts_is_read_as_its_text():
    content = [{"type": "text", "text": '{"error": "refund window closed"}'}]
    conversation = [
        {"role": "user", "content": "Refund order 7"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "refund", "arguments": '{"order_id": 7}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": content},
        {"role": "assistant", "content": "It could not be refunded."},
    ]
    assert agents.from_messages(conversation).actions[0].error == "refund window closed"
    assert agents.tool_error(content) == "refund window closed"


def test_an_mcp_error_without_text_parts_keeps_its_content_as_json():
    content = [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    detail = agents.tool_error({"isError": True, "content": content})
    assert json.loads(detail) == content


def test_an_exception_given_as_an_outcomes_error_is_stored_with_its_class():
    outcome = coerce_outcome(assay.Outcome(answer=None, error=TimeoutError("no reply in 30 s")))
    assert outcome.error == "TimeoutError: no reply in 30 s"
    assert coerce_outcome({"error": KeyError("order 7")}).error == "KeyError: 'order 7'"


def test_an_exception_given_as_an_actions_error_is_stored_with_its_class():
    action = assay.Action("refund", {"order_id": 7}, error=PermissionError("locked"))
    assert action.error == "PermissionError: locked" and action.failed


def test_an_exception_as_an_error_reaches_the_stored_sample(store):
    suite = assay.Suite(
        "exception errors",
        agent=lambda text, ctx: assay.Outcome(answer="x", error=ValueError("bad order")),
    )
    suite.case("q", checks=[assay.checks.contains("x")])
    run = assay.run(suite, db=store, progress=False)
    assert run.samples[0].error == "ValueError: bad order"
