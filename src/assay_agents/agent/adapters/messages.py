"""An OpenAI-format conversation turned into an Outcome, for agents that keep their messages.

Rules: tool calls in the order the model made them; a call is errored when its result reports
an error at its top level (JSON whose ``"error"`` is a non-empty string, object or array, or
``true``; an MCP result with ``"isError": true``); text that merely mentions an error is a
success. The error detail is JSON-encoded unless it is a string, and cut to 1,200 bytes.
Tokens are summed over assistant messages' ``usage``, in the OpenAI response shape
(``prompt_tokens``/``completion_tokens``, as a mapping or the client's own usage object) or
the Responses and Anthropic one (``input_tokens``/``output_tokens``); input includes the cache
reads and writes Anthropic-style usage counts apart, while OpenAI's ``cached_tokens`` are
already part of ``prompt_tokens``. ``usage=`` gives the conversation's usage instead. Cost is
the sum of each assistant message's cost, and ``None`` when any of them is unpriced. The answer is
the last assistant message after the last user message; a conversation that stopped before
answering has no answer, and the error says where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from assay_agents.agent.outcome import Action, Outcome, Usage
from assay_agents.agent.tool_errors import tool_error
from assay_agents.errors import SpecError
from assay_agents.spec import JSON, portable

__all__ = ["from_messages", "tool_error"]

_UNSET: Any = object()


def from_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    answer: Any = _UNSET,
    error: Any = _UNSET,
    cost: Any = _UNSET,
    usage: Any = None,
    duration_ms: float | None = None,
    metadata: Mapping[str, Any] | None = None,
    action_groups: Mapping[str, str] | None = None,
) -> Outcome:
    """Turn ``messages`` into an Outcome; ``answer``, ``error``, ``cost`` and ``usage`` override.

    ``usage`` is the conversation's token usage when its messages do not carry it per turn:
    an :class:`~assay.Usage`, or usage in the OpenAI response shape (``response.usage``, or a
    mapping with ``prompt_tokens`` and ``completion_tokens``, or ``input_tokens`` and
    ``output_tokens``). ``action_groups`` names the group of each tool.
    """
    found_answer, stopped = _answer(messages)
    turns = _usage(messages)
    usage = turns if usage is None else _given_usage(usage, turns)
    if cost is not _UNSET and usage is not None:
        usage = Usage(usage.input_tokens, usage.output_tokens, cost, "reported")
    elif cost is not _UNSET:
        usage = Usage(cost_usd=cost, cost_source="reported")
    final = found_answer if answer is _UNSET else answer
    # Where the conversation stopped matters only when nothing, found or given, answers it.
    return Outcome(
        answer=final,
        actions=tuple(_actions(messages, action_groups or {})),
        usage=usage,
        duration_ms=duration_ms,
        error=(stopped if final is None else None) if error is _UNSET else error,
        metadata=dict(metadata or {}),
    )


def _answer(messages: Sequence[Mapping[str, Any]]) -> tuple[str | None, str | None]:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    after = list(messages[last_user + 1 :])
    # Only the final message can answer: text before later tool work was a step, not the
    # answer ("Let me check." followed by a call that never came back).
    final = after[-1] if after else None
    if (
        final is not None
        and final.get("role") == "assistant"
        and _text(final.get("content"))
        and not final.get("tool_calls")
    ):
        return _text(final.get("content")), None
    return None, _where_it_stopped(messages, after)


def _where_it_stopped(messages: Sequence[Mapping[str, Any]], after: list[Mapping[str, Any]]) -> str:
    if not messages:
        return "the conversation is empty"
    if not after:
        return "the conversation stopped on the user's message: no answer was produced"
    last = after[-1]
    if last.get("role") == "tool":
        return f"the conversation stopped at the result of tool {_tool_name(messages, last)!r}"
    calls = last.get("tool_calls") or []
    if calls:
        names = ", ".join(str(call.get("function", {}).get("name")) for call in calls)
        return f"the conversation stopped at a tool call ({names}) awaiting its result"
    return "the conversation ended without an assistant answer"


def _tool_name(messages: Sequence[Mapping[str, Any]], result: Mapping[str, Any]) -> str:
    wanted = result.get("tool_call_id")
    for message in messages:
        for call in message.get("tool_calls") or []:
            if call.get("id") == wanted:
                return str(call.get("function", {}).get("name"))
    return str(result.get("name") or "unknown")


def _actions(messages: Sequence[Mapping[str, Any]], groups: Mapping[str, str]) -> list[Action]:
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    actions = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            name = str(function.get("name"))
            content = results.get(call.get("id"), {}).get("content")
            actions.append(
                Action(
                    name,
                    _arguments(function.get("arguments")),
                    group=groups.get(name),
                    result=_result(content),
                    error=tool_error(content),
                    result_bytes=len(_text(content).encode("utf-8")),
                )
            )
    return actions


def _usage(messages: Sequence[Mapping[str, Any]]) -> Usage | None:
    assistant = [m for m in messages if m.get("role") == "assistant"]
    reported = [found for m in assistant if (found := _usage_mapping(m.get("usage"))) is not None]
    costs = [m.get("cost") for m in assistant]
    if not reported and all(cost is None for cost in costs):
        return None
    input_tokens = sum([_input_tokens(usage) for usage in reported])
    output_tokens = sum([_output_tokens(usage) for usage in reported])
    priced = bool(assistant) and all(isinstance(cost, int | float) for cost in costs)
    total = sum([float(cost) for cost in costs if cost is not None]) if priced else None
    return Usage(
        input_tokens if reported else None,
        output_tokens if reported else None,
        total,
        "reported" if total is not None else "unpriced",
    )


def _given_usage(value: Any, turns: Usage | None) -> Usage:
    """The ``usage=`` argument as a Usage; the turns' own cost stands unless it gives one."""
    if isinstance(value, Usage):
        return value
    found = _usage_mapping(value)
    if found is None or not _TOKEN_KEYS.intersection(found):
        raise SpecError(
            f"a {type(value).__name__} is not usage: give an assay.Usage or "
            "usage in the OpenAI response shape (prompt_tokens, "
            "completion_tokens)",
            field="usage",
        )
    try:
        tokens = (_input_tokens(found), _output_tokens(found))
    except (TypeError, ValueError):
        tokens = (-1, -1)
    if any(count < 0 for count in tokens):
        raise SpecError("token counts must be non-negative whole numbers", field="usage")
    if turns is not None and turns.cost_usd is not None:
        return Usage(*tokens, turns.cost_usd, "reported")
    return Usage(*tokens, None, "unpriced")


_TOKEN_KEYS = frozenset({"prompt_tokens", "completion_tokens", "input_tokens", "output_tokens"})


def _usage_mapping(value: Any) -> Mapping[str, Any] | None:
    """Usage as a mapping: a mapping, or an SDK's usage object (``response.usage``)."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # the openai client's CompletionUsage, or any pydantic usage
        dumped = dump()
        return dumped if isinstance(dumped, Mapping) else None
    return None


def _output_tokens(usage: Mapping[str, Any]) -> int:
    completion = usage.get("completion_tokens")
    return int((completion if completion is not None else usage.get("output_tokens")) or 0)


_CACHE_PARTS = (
    "cache_read_tokens",
    "cache_creation_tokens",
    "cache_write_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _input_tokens(usage: Mapping[str, Any]) -> int:
    # The whole prompt: the input (``prompt_tokens``, else ``input_tokens``; never both) plus
    # the cache reads and writes that RubyLLM- and Anthropic-style usage counts apart.
    base = usage.get("prompt_tokens")
    if base is None:
        base = usage.get("input_tokens")
    return int(base or 0) + sum(int(usage.get(part) or 0) for part in _CACHE_PARTS)


def _arguments(raw: Any) -> dict[str, JSON]:
    value = _json(raw) if isinstance(raw, str) else raw
    converted = portable(value, "arguments") if isinstance(value, dict) else None
    return converted if isinstance(converted, dict) else {"_raw": _text(raw)}


def _result(content: Any) -> JSON:
    value = _json(content)
    return value if value is not None else (_text(content) or None)


def _json(content: Any) -> Any:
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return None
    return content if isinstance(content, dict | list) else None


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return json.dumps(content, ensure_ascii=False)
