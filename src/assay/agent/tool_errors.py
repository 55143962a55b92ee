"""When a tool call failed: the one rule diagnosis, checks and reports all read.

A tool result reports an error only at its top level: JSON whose ``"error"`` is a non-empty
string, object or array, or ``true``, or an MCP result with ``"isError": true``. A result
that merely mentions an error (a log line, source code, ``{"error": null, "message": "order
not found"}``) is a successful call: a tool that correctly says "not found" did its job. The
error detail is JSON-encoded unless it is a string, and cut to 1,200 bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["call_error", "tool_error"]

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
        return _detail(value.get("content", value))
    return _reported(value.get("error"), value)


def call_error(error: Any, result: Any) -> str | None:
    """A tool call's error: the one recorded with it, else the one its result reports.

    ``error`` is read by the same rule as a result's top-level ``"error"``, so ``None``,
    ``False`` and ``""`` record none, and a non-empty text is kept whole.
    """
    if isinstance(error, str) and error:
        return error
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


def _json(content: Any) -> Any:
    if isinstance(content, str):
        if not content.lstrip().startswith("{"):
            return None  # only an object can carry a top-level error: skip parsing the rest
        try:
            return json.loads(content)
        except ValueError:
            return None
    return content if isinstance(content, Mapping | list) else None
