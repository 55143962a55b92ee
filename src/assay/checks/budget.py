"""Budget checks: latency, tokens and the size of what tools hand the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from assay.checks.base import Check, CheckContext, CheckError, Verdict, observed_actions


@dataclass(frozen=True, kw_only=True)
class MaxLatency(Check):
    """The sample took at most ``milliseconds``."""

    category: ClassVar[str] = "budget"
    milliseconds: float

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Compare the sample's duration with the budget."""
        duration = ctx.outcome.duration_ms
        if duration is None:
            raise CheckError("the sample has no duration")
        return Verdict.of(duration <= self.milliseconds,
                          f"took {duration:.0f} ms (budget {self.milliseconds:g} ms)")


@dataclass(frozen=True, kw_only=True)
class TokenBudget(Check):
    """The agent used at most ``tokens`` input plus output tokens."""

    category: ClassVar[str] = "budget"
    tokens: int

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Compare reported usage with the budget; unreported usage cannot be checked."""
        usage = ctx.outcome.usage
        total = None if usage is None else usage.total_tokens
        if total is None:
            raise CheckError("the agent reported no token usage")
        return Verdict.of(total <= self.tokens, f"used {total} tokens (budget {self.tokens})")


@dataclass(frozen=True, kw_only=True)
class ToolResultBytes(Check):
    """No model-facing tool result exceeded ``max_bytes``; the largest one is what counts."""

    category: ClassVar[str] = "budget"
    max_bytes: int

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Find the largest tool result and compare it with the budget."""
        actions = observed_actions(ctx)
        if not actions:
            return Verdict(1.0, "no tool results")
        largest = max(actions, key=lambda action: action.result_bytes or 0)
        size = largest.result_bytes or 0
        return Verdict.of(size <= self.max_bytes,
                          f"largest tool result {size:,} bytes from {largest.name} "
                          f"(budget {self.max_bytes:,})")
