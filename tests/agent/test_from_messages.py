import json

import pytest

from assay_agents.agents import from_messages, tool_error


def call(call_id, name, arguments):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


CONVERSATION = [
    {"role": "system", "content": "Be helpful."},
    {"role": "user", "content": "Refund order 42"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("a", "lookup_order", {"id": 42})],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cache_read_tokens": 50},
        "cost": 0.001,
    },
    {"role": "tool", "tool_call_id": "a", "content": '{"status": "shipped"}'},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("b", "refund", {"id": 42})],
        "usage": {"prompt_tokens": 200, "completion_tokens": 10, "cache_creation_tokens": 5},
        "cost": 0.002,
    },
    {"role": "tool", "tool_call_id": "b", "content": '{"error": "refund window closed"}'},
    {
        "role": "assistant",
        "content": "I could not refund it.",
        "usage": {"prompt_tokens": 300, "completion_tokens": 20},
        "cost": 0.003,
    },
]


def test_answer_actions_usage_and_cost():
    outcome = from_messages(CONVERSATION, action_groups={"refund": "billing"})
    assert outcome.answer == "I could not refund it." and outcome.error is None
    assert [(a.group, a.name, a.arguments) for a in outcome.actions] == [
        (None, "lookup_order", {"id": 42}),
        ("billing", "refund", {"id": 42}),
    ]
    assert outcome.actions[0].error is None and outcome.actions[0].result == {"status": "shipped"}
    assert outcome.actions[1].error == "refund window closed"
    assert outcome.usage.input_tokens == 100 + 50 + 200 + 5 + 300
    assert outcome.usage.output_tokens == 40
    assert outcome.usage.cost_usd == pytest.approx(0.006)


def test_cost_is_none_when_any_message_is_unpriced():
    messages = [dict(m) for m in CONVERSATION]
    del messages[4]["cost"]
    assert from_messages(messages).usage.cost_usd is None


@pytest.mark.parametrize(
    ("cut", "where"),
    [
        (3, "at a tool call (lookup_order)"),
        (4, "at the result of tool 'lookup_order'"),
        (2, "on the user's message"),
    ],
)
def test_a_conversation_that_stopped_says_where(cut, where):
    outcome = from_messages(CONVERSATION[:cut])
    assert outcome.answer is None and where in outcome.error


def test_overrides():
    outcome = from_messages(
        CONVERSATION[:3],
        answer="halted",
        error=None,
        cost=0.5,
        duration_ms=12.0,
        metadata={"chat_id": 7},
    )
    assert (outcome.answer, outcome.error, outcome.usage.cost_usd) == ("halted", None, 0.5)
    assert outcome.duration_ms == 12.0 and outcome.metadata == {"chat_id": 7}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"error": "boom"}', "boom"),
        ('{"error": {"code": 3}}', '{"code": 3}'),
        ('{"error": ["a"]}', '["a"]'),
        ('{"error": true, "detail": "x"}', '{"error": true, "detail": "x"}'),
        (
            '{"isError": true, "content": [{"type": "text", "text": "bad"}]}',
            "bad",
        ),
        ('{"error": ""}', None),
        ('{"error": false}', None),
        ('{"error": null}', None),
        ("ERROR: this log line mentions an error", None),
        ('def f():\n    raise Error("x")', None),
    ],
)
def test_top_level_tool_error_rules(content, expected):
    assert tool_error(content) == expected


def test_error_detail_is_cut_to_1200_bytes_on_a_character_boundary():
    detail = tool_error(json.dumps({"error": "é" * 1000}))
    assert len(detail.encode("utf-8")) <= 1200 and detail == "é" * 600


def test_text_before_later_tool_work_is_not_the_answer():
    messages = [
        {"role": "user", "content": "Refund order 42"},
        {"role": "assistant", "content": "Let me check."},
        {"role": "assistant", "content": None, "tool_calls": [call("a", "refund", {"id": 42})]},
        {"role": "tool", "tool_call_id": "a", "content": '{"ok": true}'},
    ]
    outcome = from_messages(messages)
    assert outcome.answer is None and "result of tool 'refund'" in outcome.error


def test_an_answer_given_for_a_halted_conversation_clears_the_stop():
    outcome = from_messages(CONVERSATION[:4], answer="Refunded.")
    assert outcome.answer == "Refunded." and outcome.error is None


def test_input_tokens_count_anthropic_cache_fields_and_never_double_count():
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "a",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 2,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 5,
            },
        },
    ]
    assert from_messages(messages).usage.input_tokens == 115
    both = [
        messages[0],
        {"role": "assistant", "content": "a", "usage": {"prompt_tokens": 10, "input_tokens": 10}},
    ]
    assert from_messages(both).usage.input_tokens == 10


def openai_conversation(server_url):
    """A conversation a host keeps with the real openai client: each turn's usage beside it."""
    from openai import OpenAI

    messages = [{"role": "user", "content": "Where is order 42?"}]
    with OpenAI(base_url=server_url, api_key="test") as client:
        while True:
            response = client.chat.completions.create(model="m", messages=messages)
            turn = response.choices[0].message.model_dump(exclude_none=True)
            messages.append({**turn, "usage": response.usage})
            if not turn.get("tool_calls"):
                return messages
            for made in turn["tool_calls"]:
                messages.append(
                    {"role": "tool", "tool_call_id": made["id"], "content": '{"status": "shipped"}'}
                )


def test_usage_in_the_openai_response_shape_is_read_per_assistant_turn():
    from assay_agents.testing import ScriptedServer, reply, tool_calls

    script = [
        tool_calls(("lookup_order", {"id": 42}), input_tokens=120, output_tokens=9),
        reply("It shipped.", input_tokens=180, output_tokens=12),
    ]
    with ScriptedServer(script) as server:
        messages = openai_conversation(server.base_url)
    outcome = from_messages(messages)
    assert outcome.answer == "It shipped." and [a.name for a in outcome.actions] == ["lookup_order"]
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (300, 21)
    assert outcome.usage.cost_usd is None and outcome.usage.cost_source == "unpriced"


def test_cached_prompt_tokens_are_part_of_the_openai_prompt_not_added_again():
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "hello",
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 5,
                "total_tokens": 105,
                "prompt_tokens_details": {"cached_tokens": 80},
            },
        },
    ]
    assert from_messages(messages).usage.input_tokens == 100


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 300, "completion_tokens": 21, "total_tokens": 321},
        {"input_tokens": 300, "output_tokens": 21},
    ],
)
def test_a_usage_argument_gives_the_conversations_tokens(usage):
    from openai.types import CompletionUsage

    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for given in (
        usage,
        CompletionUsage(prompt_tokens=300, completion_tokens=21, total_tokens=321),
    ):
        outcome = from_messages(messages, usage=given)
        assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (300, 21)
    priced = from_messages(messages, usage=usage, cost=0.01)
    assert priced.usage.cost_usd == 0.01 and priced.usage.cost_source == "reported"
    turned = from_messages(CONVERSATION, usage=usage)
    assert turned.usage.input_tokens == 300  # the argument, not the turns' sum
    assert turned.usage.cost_usd == pytest.approx(0.006)  # the turns' own cost stands


def test_a_usage_argument_of_the_wrong_shape_is_refused():
    from assay_agents.errors import SpecError

    with pytest.raises(SpecError, match="usage"):
        from_messages(CONVERSATION, usage="300 tokens")
    with pytest.raises(SpecError, match="usage"):
        from_messages(CONVERSATION, usage={"prompt_tokens": -1})
