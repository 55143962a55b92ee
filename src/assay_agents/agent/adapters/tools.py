"""Tools an adapter offers a model: JSON schemas from signatures, and calling them safely."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assay_agents.agent.adapters.framework import json_value
from assay_agents.agent.outcome import Action, measure_bytes
from assay_agents.spec import JSON


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """What a tool returned (or the error it raised), and what the model is handed."""

    action: Action
    content: str


def schema(name: str, function: Callable[..., Any]) -> dict[str, Any]:
    """The OpenAI tool schema of ``function``: its parameters from its signature."""
    from pydantic import create_model

    fields: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        annotation = Any if parameter.annotation is parameter.empty else parameter.annotation
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    parameters = create_model(f"{name}_arguments", **fields).model_json_schema()
    parameters.pop("title", None)
    for value in parameters.get("properties", {}).values():
        value.pop("title", None)
    description = inspect.getdoc(function) or name
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


async def call_tool(
    name: str, raw_arguments: str, tools: Mapping[str, Callable[..., Any]], group: str | None
) -> ToolCallResult:
    """Run one tool call the model asked for; failures become an errored action, not a crash."""
    try:
        arguments = json.loads(raw_arguments or "{}")
        if not isinstance(arguments, dict):
            raise ValueError("tool arguments must be a JSON object")
    except ValueError as error:
        return _failed(name, {"_raw": raw_arguments}, group, f"invalid arguments: {error}")
    function = tools.get(name)
    if function is None:
        return _failed(name, arguments, group, f"no tool named {name!r}")
    try:
        if inspect.iscoroutinefunction(function):
            result = await function(**arguments)
        else:
            # Off the event loop, so a slow tool does not stall the other samples; the
            # sample's context (its replay scope) travels with it.
            result = await asyncio.to_thread(function, **arguments)
            if inspect.isawaitable(result):
                result = await result
    except Exception as error:
        return _failed(name, arguments, group, f"{type(error).__name__}: {error}")
    value = json_value(result)
    content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    action = Action(
        name,
        _portable_arguments(arguments),
        group=group,
        result=value,
        result_bytes=len(content.encode("utf-8")),
    )
    return ToolCallResult(action, content)


def _failed(
    name: str, arguments: dict[str, Any], group: str | None, message: str
) -> ToolCallResult:
    content = json.dumps({"error": message})
    action = Action(
        name,
        _portable_arguments(arguments),
        group=group,
        result={"error": message},
        error=message,
        result_bytes=measure_bytes(content),
    )
    return ToolCallResult(action, content)


def _portable_arguments(arguments: dict[str, Any]) -> dict[str, JSON]:
    converted = json_value(arguments)
    return converted if isinstance(converted, dict) else {"_raw": str(arguments)}
