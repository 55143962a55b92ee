"""What judge calls cost: the evaluation's overhead, never the agent's."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from assay_agents.errors import SpecError

#: How a judge cost is known: all calls priced as reported, estimated, a mix of both;
#: tokens with no price; no usage reported at all; or every call answered from the cache.
JudgeCostSource = Literal["reported", "estimated", "mixed", "unpriced", "no_usage", "cached"]


@dataclass(frozen=True, slots=True)
class JudgeUsage:
    """Judge calls counted together (a sample's, or the run's own: the model verdict).

    ``calls`` counts judge calls (one per vote); ``attempts`` counts the HTTP requests they
    took, retries included. ``by_kind`` counts the calls per kind (``score``, ``refine``,
    ``verdict``); ``model`` is the judge's label and ``source`` says how the cost is known.
    Every count and the cost are non-negative: anything else is refused naming the field.
    """

    calls: int = 0
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cost_estimated: bool = False
    by_kind: Mapping[str, int] = field(default_factory=dict)
    model: str | None = None
    source: JudgeCostSource = "no_usage"
    #: Calls answered from the cache (no request made, nothing spent): among ``calls``.
    cached: int = field(default=0, metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        for name in ("calls", "attempts", "input_tokens", "output_tokens", "cached"):
            _count(getattr(self, name), name)
        for kind, count in self.by_kind.items():
            if count < 0:
                raise SpecError(
                    f"counts {count!r} {kind!r} calls; a count is 0 or more", field="by_kind"
                )
        cost = self.cost_usd
        if cost is not None and not (math.isfinite(cost) and cost >= 0):
            raise SpecError(f"must be a non-negative number, not {cost!r}", field="cost_usd")

    def combined(self, other: JudgeUsage) -> JudgeUsage:
        """Both counts added: calls, attempts, tokens, cost and kinds; one cost basis."""
        costs = [usage.cost_usd for usage in (self, other) if usage.cost_usd is not None]
        kinds = dict(self.by_kind)
        for kind, count in other.by_kind.items():
            kinds[kind] = kinds.get(kind, 0) + count
        return JudgeUsage(
            calls=self.calls + other.calls,
            attempts=self.attempts + other.attempts,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=sum(costs) if costs else None,
            cost_estimated=self.cost_estimated or other.cost_estimated,
            by_kind=kinds,
            model=self.model or other.model,
            source=_combined_source(self.source, other.source),
            cached=self.cached + other.cached,
        )


def _count(value: int, name: str) -> None:
    if value < 0:
        raise SpecError(f"must be a non-negative whole number, not {value!r}", field=name)


def _combined_source(first: JudgeCostSource, second: JudgeCostSource) -> JudgeCostSource:
    """One basis when both agree (or one counted nothing, or was all cached), ``mixed`` else."""
    if first == second:
        return first
    for quiet in ("no_usage", "cached"):
        if first == quiet:
            return second
        if second == quiet:
            return first
    return "mixed"
