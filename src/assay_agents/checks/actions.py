"""Checks on the tool calls the agent actually made: the trace, forbidden and failed calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from assay_agents.agent import Action
from assay_agents.checks import _values
from assay_agents.checks.base import Check, CheckContext, CheckError, Verdict, observed_actions
from assay_agents.checks.quoting import quoted
from assay_agents.spec import ExpectedAction, canonical_json
from assay_agents.spec.observation import SIDE_EFFECTS
from assay_agents.text import one_line

_Call = tuple[str | None, str, str]
_SHORT_TRACE = 4


@dataclass(frozen=True, kw_only=True)
class OrderedActions(Check):
    """The observed calls equal the case's ``expected_actions``: group, name, arguments, order.

    The score is the longest common subsequence of expected and observed calls over the
    longer of the two lists, so each missing, wrong or extra call lowers it and only the exact
    trace scores 1. ``actions=None`` (not instrumented) is an error, never a pass; a narrative
    claim in the answer is never evidence of a call.
    """

    category: ClassVar[str] = "actions"
    factory: ClassVar[str] = "actions"

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Align the observed trace with the expected one."""
        expected = ctx.case.expected_actions
        if expected is None:
            raise CheckError("the case declares no expected_actions")
        return score_trace(expected, observed_actions(ctx))


def score_trace(expected: Sequence[ExpectedAction], observed: Sequence[Action]) -> Verdict:
    """Score an observed trace against the expected one (see :class:`OrderedActions`)."""
    want = [_call(a.group, a.name, a.arguments) for a in expected]
    got = [_call(a.group, a.name, a.arguments) for a in observed]
    longest = max(len(want), len(got))
    if longest == 0:
        return Verdict(1.0, "no calls expected and none made")
    common = _lcs_length(want, got)
    if want == got:
        return Verdict(1.0, f"{len(got)} call(s) as expected")
    return Verdict(common / longest, _difference(want, got))


def _call(group: str | None, name: str, arguments: object) -> _Call:
    return (group, name, canonical_json(arguments))  # type: ignore[arg-type]


def _lcs_length(left: Sequence[_Call], right: Sequence[_Call]) -> int:
    previous = [0] * (len(right) + 1)
    for item in left:
        current = [0]
        for index, other in enumerate(right):
            current.append(
                previous[index] + 1 if item == other else max(previous[index + 1], current[index])
            )
        previous = current
    return previous[-1]


def _difference(want: Sequence[_Call], got: Sequence[_Call]) -> str:
    missing = [call for call in want if call not in got]
    extra = [call for call in got if call not in want]
    parts = [f"expected [{_render_all(want)}], got [{_render_all(got)}]"]
    if not missing and not extra:
        parts.append("same calls in another order")
    elif len(want) + len(got) > _SHORT_TRACE:
        # Short lists are read at a glance; long ones need the difference spelled out.
        parts.extend(
            f"{label} {_render_all(calls)}"
            for label, calls in (("missing", missing), ("unexpected", extra))
            if calls
        )
    return "; ".join(parts)


def _render_all(calls: Sequence[_Call]) -> str:
    # A few calls, and how many more: the whole trace stays in the sample's actions.
    return quoted(calls, _render)


def _render(call: _Call) -> str:
    group, name, arguments = call
    qualified = f"{group}.{name}" if group else name
    return f"{qualified}({arguments})"


@dataclass(frozen=True, kw_only=True)
class ForbidActions(Check):
    """None of the named tools was called.

    A forbidden call is an effect the agent must not have (a refund issued, a booking sent),
    so the check counts under ``side_effects``, as forbid lists on observation channels do:
    the summary, the integrity counts and the gate's ``max_side_effect_failures`` read it there.
    """

    category: ClassVar[str] = SIDE_EFFECTS
    factory: ClassVar[str] = "forbid_actions"
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        # A list given directly is kept as a tuple, so the check stays a hashable value.
        object.__setattr__(self, "names", _values.names(self.name, "names", self.names))

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Look for any forbidden call in the observed trace."""
        observed = observed_actions(ctx)
        hits = [action.name for action in observed if action.name in self.names]
        if hits:
            return Verdict(0.0, f"forbidden call(s) made: {quoted(hits)}")
        return Verdict(1.0, f"none of {quoted(self.names)} called")


@dataclass(frozen=True, kw_only=True)
class ToolsCalled(Check):
    """Every named tool was called at least once, in any order; other calls are allowed."""

    category: ClassVar[str] = "actions"
    factory: ClassVar[str] = "tools_called"
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "names", _values.names(self.name, "names", self.names))

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Look for each expected tool in the observed trace."""
        observed = observed_actions(ctx)
        called = {action.name for action in observed}
        missing = [name for name in self.names if name not in called]
        if missing:
            return Verdict(0.0, f"expected tool(s) not called: {quoted(missing)}")
        return Verdict(1.0, f"called {quoted(self.names)}")


@dataclass(frozen=True, kw_only=True)
class ToolsSucceeded(Check):
    """No tool call failed, by the one tool-error rule (:mod:`assay_agents.agent.tool_errors`).

    A result that reports an error at its top level (``{"error": "..."}``, MCP ``isError``)
    fails; one that only mentions an error ("order not found") is a success.
    """

    category: ClassVar[str] = "actions"
    factory: ClassVar[str] = "tools_succeeded"

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Look for a failed call in the observed trace."""
        observed = observed_actions(ctx)
        failed = [action for action in observed if action.failed]
        if failed:
            first = failed[0]
            names = quoted(list(dict.fromkeys(action.name for action in failed)))
            return Verdict(
                0.0,
                f"{len(failed)} of {len(observed)} tool call(s) failed: {names} "
                f"({first.name}: {_error_start(first.error or '')})",
            )
        if not observed:
            return Verdict(1.0, "no tool was called")
        return Verdict(1.0, f"{len(observed)} tool call(s), none failed")


def _error_start(error: str, limit: int = 120) -> str:
    # A tool's error is untrusted text: one line, made visible, bounded.
    text = error.strip()
    return f"“{one_line(text[:limit])}{'…' if len(text) > limit else ''}”"
