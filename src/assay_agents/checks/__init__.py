"""Deterministic checks: facts about what the agent did, decided without a model.

Each factory returns a small value whose fields are its settings. Every check has a metric
name (by default the factory's name), a category and an inclusive threshold (1.0 unless given).
A setting that means nothing (an empty text, a budget below 1, a threshold outside [0, 1])
is refused when the check is made, with a :class:`~assay_agents.errors.SpecError` naming the check
and the setting.

>>> from assay_agents import checks
>>> checks.contains("30 days", ignore_case=True).name
'contains'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay_agents.checks import _values
from assay_agents.checks.actions import (
    ForbidActions,
    OrderedActions,
    ToolsCalled,
    ToolsSucceeded,
    score_trace,
)
from assay_agents.checks.base import Check, CheckContext, CheckError, Verdict
from assay_agents.checks.budget import MaxLatency, TokenBudget, ToolResultBytes
from assay_agents.checks.content import (
    Contains,
    ExactMatch,
    JsonSchema,
    MinLength,
    NotContains,
    Regex,
    ResponsePresent,
    ValidJson,
)
from assay_agents.checks.custom import Custom, CustomFunction
from assay_agents.spec import portable

__all__ = [
    "Check",
    "CheckContext",
    "CheckError",
    "Verdict",
    "actions",
    "contains",
    "custom",
    "exact_match",
    "forbid_actions",
    "json_schema",
    "max_latency_ms",
    "min_length",
    "not_contains",
    "regex",
    "response_present",
    "score_trace",
    "token_budget",
    "tool_result_bytes",
    "tools_called",
    "tools_succeeded",
    "valid_json",
]


def response_present(*, name: str = "response_present", threshold: float = 1.0) -> ResponsePresent:
    """The agent gave an answer that is not blank."""
    return ResponsePresent(name=name, threshold=threshold)


def exact_match(
    *,
    strip: bool = True,
    ignore_case: bool = False,
    collapse_whitespace: bool = False,
    name: str = "exact_match",
    threshold: float = 1.0,
) -> ExactMatch:
    """The answer equals the case's expected answer.

    Normalisation, applied to both sides: ``collapse_whitespace`` folds runs of white space
    to one space, ``strip`` trims the ends (on by default), ``ignore_case`` compares casefolded.
    """
    return ExactMatch(
        name=name,
        threshold=threshold,
        strip=strip,
        ignore_case=ignore_case,
        collapse_whitespace=collapse_whitespace,
    )


def contains(
    text: str, *, ignore_case: bool = False, name: str = "contains", threshold: float = 1.0
) -> Contains:
    """The answer contains ``text``."""
    return Contains(name=name, threshold=threshold, text=text, ignore_case=ignore_case)


def not_contains(
    text: str, *, ignore_case: bool = False, name: str = "not_contains", threshold: float = 1.0
) -> NotContains:
    """The answer does not contain ``text``."""
    return NotContains(name=name, threshold=threshold, text=text, ignore_case=ignore_case)


def regex(
    pattern: str,
    *,
    ignore_case: bool = False,
    full: bool = False,
    name: str = "regex",
    threshold: float = 1.0,
) -> Regex:
    """The answer matches ``pattern`` (anywhere; the whole answer with ``full=True``)."""
    return Regex(
        name=name, threshold=threshold, pattern=pattern, ignore_case=ignore_case, full=full
    )


def valid_json(*, name: str = "valid_json", threshold: float = 1.0) -> ValidJson:
    """The answer parses as JSON."""
    return ValidJson(name=name, threshold=threshold)


def json_schema(
    schema: dict[str, Any], *, name: str = "json_schema", threshold: float = 1.0
) -> JsonSchema:
    """The answer is JSON valid against ``schema`` (any JSON Schema draft)."""
    converted = portable(schema, f"{name}.schema")
    if not isinstance(converted, dict):
        raise _values.refuse(
            name, f"schema must be a JSON object (a mapping) {_values.got(schema)}"
        )
    return JsonSchema(name=name, threshold=threshold, schema=converted)


def min_length(characters: int, *, name: str = "min_length", threshold: float = 1.0) -> MinLength:
    """The stripped answer has at least ``characters`` characters (scored actual ÷ required)."""
    return MinLength(name=name, threshold=threshold, characters=characters)


def max_latency_ms(
    milliseconds: float, *, name: str = "max_latency_ms", threshold: float = 1.0
) -> MaxLatency:
    """The sample took at most ``milliseconds`` (scored budget ÷ actual when over)."""
    return MaxLatency(name=name, threshold=threshold, milliseconds=milliseconds)


def token_budget(tokens: int, *, name: str = "token_budget", threshold: float = 1.0) -> TokenBudget:
    """The agent wrote at most ``tokens`` output tokens (scored budget ÷ output when over)."""
    return TokenBudget(name=name, threshold=threshold, tokens=tokens)


def tool_result_bytes(
    max_bytes: int, *, name: str = "tool_result_bytes", threshold: float = 1.0
) -> ToolResultBytes:
    """No model-facing tool result was larger than ``max_bytes`` bytes."""
    return ToolResultBytes(name=name, threshold=threshold, max_bytes=max_bytes)


def actions(*, name: str = "actions", threshold: float = 1.0) -> OrderedActions:
    """The observed tool calls equal the case's ``expected_actions``, in order."""
    return OrderedActions(name=name, threshold=threshold)


def forbid_actions(
    names: Iterable[str] | str, *, name: str = "forbid_actions", threshold: float = 1.0
) -> ForbidActions:
    """None of the named tools was called (one name alone is a list of one)."""
    return ForbidActions(name=name, threshold=threshold, names=_tool_names(names, name))


def tools_called(
    names: Iterable[str] | str, *, name: str = "tools_called", threshold: float = 1.0
) -> ToolsCalled:
    """Each named tool was called at least once (any order; other calls allowed)."""
    return ToolsCalled(name=name, threshold=threshold, names=_tool_names(names, name))


def tools_succeeded(*, name: str = "tools_succeeded", threshold: float = 1.0) -> ToolsSucceeded:
    """No tool call failed: none reported an error by the tool-error rule.

    A call fails when it raised, or its result reports an error at its top level (a
    non-empty ``"error"`` string, object or array, ``"error": true``, MCP ``"isError":
    true``); a result that only mentions an error is a success. Errors when actions were not
    instrumented (``actions=None``).
    """
    return ToolsSucceeded(name=name, threshold=threshold)


def custom(
    function: CustomFunction,
    *,
    name: str | None = None,
    threshold: float = 1.0,
    category: str = "custom",
) -> Custom:
    """A check from a function ``fn(answer, ctx)`` returning a bool, a score or (score, reason).

    The metric name defaults to the function's name.
    """
    if not callable(function):
        raise _values.refuse("custom", f"function must be callable {_values.got(function)}")
    metric = name
    if metric is None:
        metric = getattr(function, "__name__", None)
        if not isinstance(metric, str) or metric == "<lambda>":
            raise _values.refuse(
                "custom", "give a lambda (or any callable without a __name__) a name= of its own"
            )
    return Custom(name=metric, threshold=threshold, category=category, function=function)


def _tool_names(names: Iterable[str] | str, name: str) -> tuple[str, ...]:
    return _values.names(name, "names", [names] if isinstance(names, str) else names)
