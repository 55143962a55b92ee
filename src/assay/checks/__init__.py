"""Deterministic checks: facts about what the agent did, decided without a model.

Each factory returns a small value whose fields are its settings. Every check has a metric
name (by default the factory's name), a category and an inclusive threshold (1.0 unless given).

>>> from assay import checks
>>> checks.contains("30 days", ignore_case=True).name
'contains'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay.checks.actions import (
    ForbidActions,
    OrderedActions,
    ToolsCalled,
    ToolsSucceeded,
    score_trace,
)
from assay.checks.base import Check, CheckContext, CheckError, Verdict
from assay.checks.budget import MaxLatency, TokenBudget, ToolResultBytes
from assay.checks.content import (
    Contains,
    ExactMatch,
    JsonSchema,
    MinLength,
    NotContains,
    Regex,
    ResponsePresent,
    ValidJson,
)
from assay.checks.custom import Custom, CustomFunction
from assay.errors import SpecError
from assay.spec import portable

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


def response_present(*, name: str = "response_present",
                     threshold: float = 1.0) -> ResponsePresent:
    """The agent gave an answer that is not blank."""
    return ResponsePresent(name=name, threshold=threshold)


def exact_match(*, strip: bool = True, ignore_case: bool = False,
                collapse_whitespace: bool = False, name: str = "exact_match",
                threshold: float = 1.0) -> ExactMatch:
    """The answer equals the case's expected answer.

    Normalisation, applied to both sides: ``collapse_whitespace`` folds runs of white space
    to one space, ``strip`` trims the ends (on by default), ``ignore_case`` compares casefolded.
    """
    return ExactMatch(name=name, threshold=threshold, strip=strip, ignore_case=ignore_case,
                      collapse_whitespace=collapse_whitespace)


def contains(text: str, *, ignore_case: bool = False, name: str = "contains",
             threshold: float = 1.0) -> Contains:
    """The answer contains ``text``."""
    return Contains(name=name, threshold=threshold, text=_text(text, name),
                    ignore_case=ignore_case)


def not_contains(text: str, *, ignore_case: bool = False, name: str = "not_contains",
                 threshold: float = 1.0) -> NotContains:
    """The answer does not contain ``text``."""
    return NotContains(name=name, threshold=threshold, text=_text(text, name),
                       ignore_case=ignore_case)


def regex(pattern: str, *, ignore_case: bool = False, full: bool = False, name: str = "regex",
          threshold: float = 1.0) -> Regex:
    """The answer matches ``pattern`` (anywhere; the whole answer with ``full=True``)."""
    return Regex(name=name, threshold=threshold, pattern=_text(pattern, name),
                 ignore_case=ignore_case, full=full)


def valid_json(*, name: str = "valid_json", threshold: float = 1.0) -> ValidJson:
    """The answer parses as JSON."""
    return ValidJson(name=name, threshold=threshold)


def json_schema(schema: dict[str, Any], *, name: str = "json_schema",
                threshold: float = 1.0) -> JsonSchema:
    """The answer is JSON valid against ``schema`` (any JSON Schema draft)."""
    converted = portable(schema, f"{name}.schema")
    if not isinstance(converted, dict):
        raise SpecError("a JSON Schema is a mapping", field=f"{name}.schema")
    return JsonSchema(name=name, threshold=threshold, schema=converted)


def min_length(characters: int, *, name: str = "min_length", threshold: float = 1.0) -> MinLength:
    """The stripped answer has at least ``characters`` characters (scored actual ÷ required)."""
    return MinLength(name=name, threshold=threshold,
                     characters=_whole(characters, name, "characters"))


def max_latency_ms(milliseconds: float, *, name: str = "max_latency_ms",
                   threshold: float = 1.0) -> MaxLatency:
    """The sample took at most ``milliseconds`` (scored budget ÷ actual when over)."""
    if isinstance(milliseconds, bool) or not isinstance(milliseconds, int | float) \
            or milliseconds <= 0:
        raise SpecError(f"{milliseconds!r} is not a positive number",
                        field=f"{name}.milliseconds")
    return MaxLatency(name=name, threshold=threshold, milliseconds=float(milliseconds))


def token_budget(tokens: int, *, name: str = "token_budget",
                 threshold: float = 1.0) -> TokenBudget:
    """The agent wrote at most ``tokens`` output tokens (scored budget ÷ output when over)."""
    return TokenBudget(name=name, threshold=threshold, tokens=_whole(tokens, name, "tokens"))


def tool_result_bytes(max_bytes: int, *, name: str = "tool_result_bytes",
                      threshold: float = 1.0) -> ToolResultBytes:
    """No model-facing tool result was larger than ``max_bytes`` bytes."""
    return ToolResultBytes(name=name, threshold=threshold,
                           max_bytes=_whole(max_bytes, name, "max_bytes"))


def actions(*, name: str = "actions", threshold: float = 1.0) -> OrderedActions:
    """The observed tool calls equal the case's ``expected_actions``, in order."""
    return OrderedActions(name=name, threshold=threshold)


def forbid_actions(names: Iterable[str] | str, *, name: str = "forbid_actions",
                   threshold: float = 1.0) -> ForbidActions:
    """None of the named tools was called."""
    listed = (names,) if isinstance(names, str) else tuple(names)
    if not listed or not all(isinstance(item, str) and item for item in listed):
        raise SpecError("needs one or more tool names", field=f"{name}.names")
    return ForbidActions(name=name, threshold=threshold, names=listed)


def tools_called(names: Iterable[str] | str, *, name: str = "tools_called",
                 threshold: float = 1.0) -> ToolsCalled:
    """Each named tool was called at least once (any order; other calls allowed)."""
    listed = (names,) if isinstance(names, str) else tuple(names)
    if not listed or not all(isinstance(item, str) and item for item in listed):
        raise SpecError("needs one or more tool names", field=f"{name}.names")
    return ToolsCalled(name=name, threshold=threshold, names=listed)


def tools_succeeded(*, name: str = "tools_succeeded",
                    threshold: float = 1.0) -> ToolsSucceeded:
    """No tool call failed: none reported an error by the tool-error rule.

    A call fails when it raised, or its result reports an error at its top level (a
    non-empty ``"error"`` string, object or array, ``"error": true``, MCP ``"isError":
    true``); a result that only mentions an error is a success. Errors when actions were not
    instrumented (``actions=None``).
    """
    return ToolsSucceeded(name=name, threshold=threshold)


def custom(function: CustomFunction, *, name: str | None = None, threshold: float = 1.0,
           category: str = "custom") -> Custom:
    """A check from a function ``fn(answer, ctx)`` returning a bool, a score or (score, reason).

    The metric name defaults to the function's name.
    """
    if not callable(function):
        raise SpecError(f"{function!r} is not callable", field="custom")
    metric = name or getattr(function, "__name__", None)
    if not metric or metric == "<lambda>":
        raise SpecError("give a lambda a name= of its own", field="custom.name")
    return Custom(name=metric, threshold=threshold, category=category, function=function)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise SpecError("needs a non-empty string", field=name)
    return value


def _whole(value: Any, name: str, part: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(f"{value!r} is not a non-negative whole number", field=f"{name}.{part}")
    return value


