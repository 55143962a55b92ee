"""Budget checks: latency, tokens and the size of what tools hand the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from assay_agents.checks import _values
from assay_agents.checks.base import (
    Check,
    CheckContext,
    CheckError,
    Verdict,
    observed_actions,
    unanswered,
)


@dataclass(frozen=True, kw_only=True)
class MaxLatency(Check):
    """The sample took at most ``milliseconds``.

    Scored by degree: budget ÷ actual when over (2,000 ms against 1,000 scores 0.5), 1.0
    within. Only 1.0 meets the default threshold, so the verdict is the budget's; the
    degree is what means and drift read.
    """

    category: ClassVar[str] = "budget"
    factory: ClassVar[str] = "max_latency_ms"
    milliseconds: float

    def __post_init__(self) -> None:
        super().__post_init__()
        # Kept as a float, so 1000 and 1000.0 are one setting in the fingerprint.
        object.__setattr__(
            self, "milliseconds", _values.positive(self.name, "milliseconds", self.milliseconds)
        )

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Compare the sample's duration with the budget; an empty answer scores 0."""
        if (silent := unanswered(ctx)) is not None:
            return silent
        duration = ctx.outcome.duration_ms
        if duration is None:
            raise CheckError("the sample has no duration")
        return Verdict(
            ratio(self.milliseconds, duration),
            f"took {duration:.0f} ms (budget {self.milliseconds:g} ms)",
        )


@dataclass(frozen=True, kw_only=True)
class TokenBudget(Check):
    """The agent wrote at most ``tokens`` output tokens.

    Scored by degree: budget ÷ output tokens when over, 1.0 within; only 1.0 passes by
    default. Output is what the agent spends on its own; the prompt is the caller's.
    """

    category: ClassVar[str] = "budget"
    factory: ClassVar[str] = "token_budget"
    tokens: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.count(self.name, "tokens", self.tokens)

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Compare reported output tokens with the budget; unreported usage cannot be checked.

        An empty answer scores 0 whatever it spent.
        """
        if (silent := unanswered(ctx)) is not None:
            return silent
        usage = ctx.outcome.usage
        output = None if usage is None else usage.output_tokens
        if output is None:
            raise CheckError("the agent reported no output token usage")
        return Verdict(
            ratio(self.tokens, output), f"wrote {output} output tokens (budget {self.tokens})"
        )


def ratio(budget: float, actual: float) -> float:
    """Budget ÷ actual, capped at 1.0: how much of the overrun stayed within the budget."""
    if actual <= budget:
        return 1.0
    return budget / actual


@dataclass(frozen=True, kw_only=True)
class ToolResultBytes(Check):
    """No model-facing tool result exceeded ``max_bytes``; the largest one is what counts."""

    category: ClassVar[str] = "budget"
    factory: ClassVar[str] = "tool_result_bytes"
    max_bytes: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.count(self.name, "max_bytes", self.max_bytes)

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Find the largest tool result and compare it with the budget."""
        actions = observed_actions(ctx)
        if not actions:
            return Verdict(1.0, "no tool results")
        largest = max(actions, key=lambda action: action.result_bytes or 0)
        size = largest.result_bytes or 0
        return Verdict.of(
            size <= self.max_bytes,
            f"largest tool result {size:,} bytes from {largest.name} (budget {self.max_bytes:,})",
        )
