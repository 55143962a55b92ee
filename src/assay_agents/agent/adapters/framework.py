"""What every framework adapter shares: the case's input as chat turns, and its tool calls.

A case's input is a string, one chat message, a list of chat messages (OpenAI's shape:
``role``, ``content``, an assistant's ``tool_calls``, a tool result's ``tool_call_id``) or
other JSON (handed over as JSON text). Each adapter turns these :class:`Turn` values into its
framework's own message objects: a framework never receives Assay's dicts as they are.

Tool calls are recorded in the order the model made them, with their results; a call is
errored when its framework says so, or when its result reports an error at its top level
(the one rule of :mod:`assay_agents.agent.tool_errors`). A call that never got a result because the
run stopped carries the error that stopped it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.answered import ANSWERED_MODEL_KEY, same_model
from assay_agents.agent.outcome import Action, Usage, measure_bytes
from assay_agents.agent.usage_by_model import MODEL_USAGE_KEY
from assay_agents.spec import JSON, portable


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call in an input conversation: its id, tool name and JSON arguments."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One chat message of a case's input, whatever shape the case gave it."""

    role: str
    text: str
    calls: tuple[Call, ...] = ()
    call_id: str | None = None


def chat_turns(value: Any) -> list[Turn]:
    """The case's input as chat turns: a string is one user turn, a list is a conversation."""
    if isinstance(value, str):
        return [Turn("user", value)]
    if isinstance(value, list):
        return [_turn(message) for message in value]
    if isinstance(value, Mapping) and "role" in value:
        return [_turn(value)]
    return [Turn("user", json.dumps(value, ensure_ascii=False))]


def split_prompt(turns: list[Turn]) -> tuple[list[Turn], str | None]:
    """The history before the final user turn, and that turn's text (``None`` without one)."""
    if turns and turns[-1].role == "user":
        return turns[:-1], turns[-1].text
    return turns, None


def _turn(message: Any) -> Turn:
    if not isinstance(message, Mapping):
        return Turn("user", message if isinstance(message, str) else json.dumps(message))
    calls = tuple(_call(call, index) for index, call in enumerate(message.get("tool_calls") or []))
    call_id = message.get("tool_call_id")
    return Turn(
        str(message.get("role") or "user"),
        text_of(message.get("content")),
        calls,
        None if call_id is None else str(call_id),
    )


def _call(call: Any, index: int) -> Call:
    function = call.get("function", {}) if isinstance(call, Mapping) else {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {})
    identifier = call.get("id") if isinstance(call, Mapping) else None
    return Call(str(identifier or f"call_{index}"), str(function.get("name")), arguments)


def text_of(content: Any) -> str:
    """Message content as text: a string, or the text of its content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, Mapping) and isinstance(part.get("text"), str):
        return str(part["text"])
    return ""


def answer_text(output: Any) -> str | None:
    """A framework's final output as the answer: text as it is, structured output as JSON."""
    if output is None or isinstance(output, str):
        return output
    dump = getattr(output, "model_dump_json", None)
    if callable(dump):  # a pydantic model, the usual structured output
        return str(dump())
    return json.dumps(json_value(output), ensure_ascii=False)


@dataclass
class ToolLog:
    """The tool calls of one run, in the order the model made them, with their results."""

    groups: Mapping[str, str] = field(default_factory=dict)
    _calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    _results: dict[str, tuple[JSON, int, str | None]] = field(default_factory=dict)

    def call(self, call_id: str, name: str, arguments: Any) -> None:
        """The model asked for ``name`` with ``arguments`` (a mapping or JSON text)."""
        self._calls.setdefault(call_id, (name, arguments))

    def result(
        self, call_id: str, value: Any, *, text: str | None = None, error: str | None = None
    ) -> None:
        """What call ``call_id`` returned; ``text`` is what the model was handed, if known."""
        result = _result(value)
        size = len(text.encode("utf-8")) if text is not None else measure_bytes(result)
        self._results[call_id] = (result, size, error)

    def actions(self, stopped: str | None = None) -> tuple[Action, ...]:
        """Every call as an action; one left without a result carries ``stopped``."""
        actions = []
        for call_id, (name, arguments) in self._calls.items():
            result, size, error = self._results.get(call_id, (None, 0, stopped))
            actions.append(
                Action(
                    name,
                    tool_arguments(arguments),
                    group=self.groups.get(name),
                    result=result,
                    error=error,
                    result_bytes=size,
                )
            )
        return tuple(actions)


def answered_metadata(asked: str | None, named: Sequence[Any]) -> dict[str, JSON]:
    """The ``answered_model`` of a run: the asked model's own name if a response gave it.

    Without one, it is the model of the last response, the one that gave the final answer
    (after a handoff, the expert's, not the router's).
    """
    names = [name for name in named if isinstance(name, str) and name]
    if not names:
        return {}
    own = next((name for name in names if asked and same_model(asked, name)), names[-1])
    return {ANSWERED_MODEL_KEY: own}


@dataclass
class ModelTokens:
    """A run's tokens, kept per model so each model's tokens are priced at its own rate.

    ``called`` is the model the run was configured to call; a response that names it (or a
    release of it), or names no model, counts under it.
    """

    called: str | None
    _tokens: dict[str | None, list[int]] = field(default_factory=dict)

    def add(self, model: Any, input_tokens: Any, output_tokens: Any) -> None:
        """Count one response's tokens under the model it came from."""
        counts = self._tokens.setdefault(self._key(model), [0, 0])
        counts[0] += int(input_tokens or 0)
        counts[1] += int(output_tokens or 0)

    def _key(self, model: Any) -> str | None:
        if not isinstance(model, str) or not model:
            return self.called
        known = [self.called, *self._tokens]
        return next((k for k in known if k and same_model(k, model)), model)

    def usage(self) -> Usage | None:
        """The run's tokens, unpriced (Assay prices them); ``None`` when no response came."""
        if not self._tokens:
            return None
        counts = list(self._tokens.values())
        return Usage(sum(c[0] for c in counts), sum(c[1] for c in counts))

    def metadata(self) -> dict[str, JSON]:
        """``model`` when one model answered; each model's tokens when several did."""
        named = [name for name in self._tokens if name]
        if len(self._tokens) <= 1:
            model = self.called or (named[0] if named else None)
            return {} if model is None else {"model": model}
        each: dict[str, JSON] = {
            name: {"input_tokens": counts[0], "output_tokens": counts[1]}
            for name, counts in self._tokens.items()
            if name  # tokens of no known model leave the counts short: Assay won't price them
        }
        return {MODEL_USAGE_KEY: each}


def tool_arguments(raw: Any) -> dict[str, JSON]:
    """A tool call's arguments: a mapping, JSON text of one, else ``{"_raw": text}``."""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw or "{}")
        except ValueError:
            return {"_raw": raw}
    converted = json_value(value) if isinstance(value, Mapping) else None
    return converted if isinstance(converted, dict) else {"_raw": text_of(raw)}


def _result(value: Any) -> JSON:
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        try:  # JSON text as the value it encodes, so its top-level error is read
            return json_value(json.loads(value))
        except ValueError:
            return value
    return json_value(value)


def json_value(value: Any) -> JSON:
    """A tool's arguments or result as stored JSON: itself when portable, else its text.

    A pydantic result (an MCP ``CallToolResult``) is kept as its JSON, so that an error it
    reports (``isError``) is read by the same rule as any other result.
    """
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json", by_alias=True, exclude_none=True)
    try:
        return portable(value, "result")
    except Exception:  # anything a tool returns is kept, as text when it is not JSON
        return str(value)
