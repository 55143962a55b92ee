"""One scripted support conversation the framework adapters' tests share.

The scripted server answers by the conversation it is sent: the question names the orders to
look up (each number a ``lookup_order`` call, in the Chat Completions or the Responses
shape, whichever the request used), and once tool results are in, the answer is
``"Done: <question>"``. A question with "impostor" in it is answered by another model. An
agent offered a handoff (a ``transfer_to_*`` tool) takes it before anything else.
"""

from __future__ import annotations

import httpx

import assay_agents as assay
from assay_agents.testing import reply, tool_calls
from assay_agents.testing.server import responses_reply, responses_tool_calls

#: Order 7's lookup reports an error at its top level; order 9's raises.
ORDERS = {42: {"status": "shipped"}, 7: {"error": "the order service is down"}}
#: Tokens of each Chat Completions turn: a tool-calling turn, then the answer.
CALL_TOKENS = (1000, 100)
ANSWER_TOKENS = (1000, 5)
#: Tokens of the turn in which an agent that can hand off does so.
HANDOFF_TOKENS = (300, 10)


def lookup_order(order_id: int) -> dict:
    """Find an order by its number."""
    if order_id not in ORDERS:
        raise KeyError(f"no order {order_id}")
    return ORDERS[order_id]


def script(body: dict) -> assay.testing.Response:
    """The server's answer to one request (see the module docstring)."""
    chat = body.get("messages") or body.get("input") or []
    if isinstance(chat, str):
        chat = [{"role": "user", "content": chat}]
    question = str(next(_text(m) for m in chat if m.get("role") == "user"))
    done = any(m.get("role") == "tool" or m.get("type") == "function_call_output" for m in chat)
    responses = "input" in body
    model = "gpt-3.5-turbo" if "impostor" in question else None
    handoff = next((name for name in _tools(body) if name.startswith("transfer_to_")), None)
    if handoff and not done:  # an agent that can hand off always does, first
        if responses:
            return responses_tool_calls((handoff, {}), model=model)
        return tool_calls(
            (handoff, {}), input_tokens=HANDOFF_TOKENS[0], output_tokens=HANDOFF_TOKENS[1]
        )
    if done or not orders(question):
        text = f"Done: {question}"
        if responses:
            return responses_reply(text, model=model)
        return reply(
            text, input_tokens=ANSWER_TOKENS[0], output_tokens=ANSWER_TOKENS[1], model=model
        )
    calls = [("lookup_order", {"order_id": n}) for n in orders(question)]
    if responses:
        return responses_tool_calls(*calls, model=model)
    return tool_calls(
        *calls, input_tokens=CALL_TOKENS[0], output_tokens=CALL_TOKENS[1], model=model
    )


def orders(question: str) -> list[int]:
    """The order numbers a question names."""
    return [int(word) for word in question.replace("?", " ").split() if word.isdigit()]


def _tools(body: dict) -> list[str]:
    """The names of the tools a request offers, in either API's shape."""
    return [
        tool.get("name") or tool.get("function", {}).get("name", "")
        for tool in body.get("tools") or []
    ]


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def http_client() -> httpx.AsyncClient:
    """A client no connection outlives a request on: each run's event loop ends with it."""
    return httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))


def context(model: str | None = None) -> assay.AgentContext:
    """The context of one sample, on ``model`` when given."""
    suite = assay.Suite("S", agent=lambda text, ctx: "")
    case = suite.case("q")
    spec = None if model is None else assay.ModelSpec.parse(model)
    return assay.AgentContext(case=case, model=spec, sample=0, setup=None)


#: A conversation that already went through one lookup, then asks something new.
CONVERSATION = [
    {"role": "user", "content": "Is order 42 late?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "lookup_order", "arguments": '{"order_id": 42}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": '{"status": "shipped"}'},
    {"role": "assistant", "content": "It has shipped."},
    {"role": "user", "content": "Thanks, and hello again"},
]
