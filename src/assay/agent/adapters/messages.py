"""An OpenAI-format conversation turned into an Outcome, for agents that keep their messages.

Rules: tool calls in the order the model made them; a call is errored when its result reports
an error at its top level (JSON whose ``"error"`` is a non-empty string, object or array, or
``true``; an MCP result with ``"isError": true``); text that merely mentions an error is a
success. The error detail is JSON-encoded unless it is a string, and cut to 1,200 bytes.
Tokens are summed over assistant messages, input including cache reads and writes. Cost is the
sum of each assistant message's cost, and ``None`` when any of them is unpriced. The answer is
the last assistant message after the last user message; a conversation that stopped before
answering has no answer, and the error says where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from assay.agent.outcome import Action, Outcome, Usage
from assay.spec import JSON, portable

_DETAIL_BYTES = 1_200
_UNSET: Any = object()


def from_messages(messages: Sequence[Mapping[str, Any]], *, answer: Any = _UNSET,
                  error: Any = _UNSET, cost: Any = _UNSET, duration_ms: float | None = None,
                  metadata: Mapping[str, Any] | None = None,
                  action_groups: Mapping[str, str] | None = None) -> Outcome:
    """Turn ``messages`` into an Outcome; ``answer``, ``error`` and ``cost`` override."""
    found_answer, stopped = _answer(messages)
    usage = _usage(messages)
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
    after = list(messages[last_user + 1:])
    # Only the final message can answer: text before later tool work was a step, not the
    # answer ("Let me check." followed by a call that never came back).
    final = after[-1] if after else None
    if final is not None and final.get("role") == "assistant" \
            and _text(final.get("content")) and not final.get("tool_calls"):
        return _text(final.get("content")), None
    return None, _where_it_stopped(messages, after)


def _where_it_stopped(messages: Sequence[Mapping[str, Any]],
                      after: list[Mapping[str, Any]]) -> str:
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


def _actions(messages: Sequence[Mapping[str, Any]],
             groups: Mapping[str, str]) -> list[Action]:
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    actions = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            name = str(function.get("name"))
            content = results.get(call.get("id"), {}).get("content")
            actions.append(Action(name, _arguments(function.get("arguments")),
                                  group=groups.get(name), result=_result(content),
                                  error=tool_error(content),
                                  result_bytes=len(_text(content).encode("utf-8"))))
    return actions


def tool_error(content: Any) -> str | None:
    """The error a tool result reports at its top level, or None (see the module rules)."""
    value = _json(content)
    if not isinstance(value, dict):
        return None
    if value.get("isError") is True:
        return _detail(value.get("content", value))
    problem = value.get("error")
    if problem is True:
        return _detail(value)
    if isinstance(problem, str | dict | list) and problem:
        return _detail(problem)
    return None


def _detail(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    encoded = text.encode("utf-8")[:_DETAIL_BYTES]
    return encoded.decode("utf-8", errors="ignore")


def _usage(messages: Sequence[Mapping[str, Any]]) -> Usage | None:
    assistant = [m for m in messages if m.get("role") == "assistant"]
    reported: list[Mapping[str, Any]] = [m["usage"] for m in assistant
                                         if isinstance(m.get("usage"), Mapping)]
    costs = [m.get("cost") for m in assistant]
    if not reported and all(cost is None for cost in costs):
        return None
    input_tokens = sum([_input_tokens(usage) for usage in reported])
    output_tokens = sum([int(u.get("completion_tokens", u.get("output_tokens", 0)) or 0)
                         for u in reported])
    priced = bool(assistant) and all(isinstance(cost, int | float) for cost in costs)
    total = sum([float(cost) for cost in costs if cost is not None]) if priced else None
    return Usage(input_tokens if reported else None, output_tokens if reported else None,
                 total, "reported" if total is not None else "unpriced")


_CACHE_PARTS = ("cache_read_tokens", "cache_creation_tokens", "cache_write_tokens",
                "cache_read_input_tokens", "cache_creation_input_tokens")


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
