"""When a tool call failed: the one rule diagnosis, checks and reports all read.

A tool result reports an error only at its top level: JSON whose ``"error"`` is a non-empty
string, object or array, or ``true``, or an MCP result with ``"isError": true``. A result
that merely mentions an error (a log line, source code, ``{"error": null, "message": "order
not found"}``) is a successful call: a tool that correctly says "not found" did its job. The
rule reads the result however an adapter holds it: JSON text, a JSON value, text content parts
(``[{"type": "text", "text": ...}]``, read as their joined text) or a pydantic object such as
the MCP SDK's ``CallToolResult``. The detail of an MCP error is its text content parts joined
by newlines; any other detail is JSON-encoded unless it is a string. A raised exception is
described as ``<Class>: <message>``. Every detail is cut to 1,200 bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["call_error", "describe_exception", "tool_error"]

_DETAIL_BYTES = 1_200


def tool_error(content: Any) -> str | None:
    """The error a tool result reports at its top level, or ``None`` (see the module rule).

    ``content`` is the result as the model saw it (JSON text, other text, content parts) or
    as a JSON value.
    """
    value = _json(content)
    if not isinstance(value, Mapping):
        return None
    if value.get("isError") is True:
        return _detail(_mcp_text(value.get("content")) or value.get("content", value))
    return _reported(value.get("error"), value)


def describe_exception(error: BaseException) -> str:
    """An exception as ``<Class>: <message>`` (the class alone when it has no message)."""
    message = str(error)
    name = type(error).__name__
    return f"{name}: {message}" if message else name


def call_error(error: Any, result: Any) -> str | None:
    """A tool call's error: the one recorded with it, else the one its result reports.

    ``error`` is read by the same rule as a result's top-level ``"error"``, so ``None``,
    ``False`` and ``""`` record none, and a non-empty text is kept whole.
    """
    if isinstance(error, str) and error:
        return error
    if isinstance(error, BaseException):
        return _detail(describe_exception(error))
    return _reported(error, result) or tool_error(result)


def _reported(problem: Any, whole: Any) -> str | None:
    if problem is True:
        return _detail(whole) if whole is not None else "the tool reported an error"
    if isinstance(problem, str | dict | list) and problem:
        return _detail(problem)
    return None


def _detail(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    encoded = text.encode("utf-8")[:_DETAIL_BYTES]
    return encoded.decode("utf-8", errors="ignore")


def _mcp_text(content: Any) -> str | None:
    """The text parts of MCP content joined by newlines, or ``None`` when it has none."""
    if not isinstance(content, list):
        return None
    texts = [
        part["text"]
        for part in content
        if isinstance(part, Mapping)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _json(content: Any) -> Any:
    dump = getattr(content, "model_dump", None)
    if callable(dump) and not isinstance(content, Mapping):
        # A pydantic result (the MCP SDK's CallToolResult) read as the JSON it stands for.
        content = dump(mode="json", by_alias=True)
    if _text_parts(content):
        content = "".join(part["text"] for part in content)
    if isinstance(content, str):
        if not content.lstrip().startswith("{"):
            return None  # only an object can carry a top-level error: skip parsing the rest
        try:
            return json.loads(content)
        except ValueError:
            return None
    return content if isinstance(content, Mapping | list) else None


def _text_parts(content: Any) -> bool:
    """Whether ``content`` is a non-empty list of text content parts only."""
    return (
        isinstance(content, list)
        and bool(content)
        and all(
            isinstance(part, Mapping)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
            for part in content
        )
    )
