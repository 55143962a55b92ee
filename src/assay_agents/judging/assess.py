"""Grading one answer on one criterion: fresh calls, strict verdicts, votes, usage."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field

from assay_agents.judging.cache import positioned
from assay_agents.judging.criteria import Criterion
from assay_agents.judging.input import JudgeInput
from assay_agents.judging.judge import Judge, JudgeReply, ask, counting_attempts
from assay_agents.judging.metering import calling_for
from assay_agents.judging.prompt import instructions, prompt
from assay_agents.judging.verdict import JudgeVerdict, VerdictError, parse_verdict
from assay_agents.judging.votes import majority
from assay_agents.results import JudgeCostSource, MetricResult, Vote, errored
from assay_agents.results import JudgeUsage as CountedUsage

_KEPT_REPLY = 2_000


@dataclass(slots=True)
class JudgeUsage:
    """What judging one sample cost: the evaluation's overhead, never the agent's.

    ``calls`` counts judge calls (one per vote); ``attempts`` counts the HTTP requests they
    took, retries included, so a rate-limited judge shows as 7 calls in 10 attempts.
    ``by_kind`` counts the calls per kind (``score``, ``refine``, ``verdict``); ``model`` is
    the judge's label and :attr:`source` says how its cost is known.
    """

    calls: int = 0
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    estimated: bool = False
    by_kind: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    priced_calls: int = 0
    estimated_calls: int = 0
    #: Calls answered from the cache: no request was made, nothing was spent.
    cached: int = 0

    @property
    def source(self) -> JudgeCostSource:
        """``reported``, ``estimated`` or ``mixed`` when priced; else ``unpriced``/``no_usage``.

        ``cached`` when every call was answered from the cache (they cost nothing).
        """
        if self.cached and self.cached == self.calls:
            return "cached"
        if self.priced_calls:
            if self.estimated_calls == 0:
                return "reported"
            return "estimated" if self.estimated_calls == self.priced_calls else "mixed"
        return "unpriced" if self.input_tokens or self.output_tokens else "no_usage"

    def add(self, reply: JudgeReply | None, kind: str = "score", attempts: int = 1) -> None:
        """Count one call and its attempts (``reply`` is None when the call itself failed)."""
        self.calls += 1
        if reply is not None and reply.cached:
            # Answered from the cache: no attempt, no tokens, a cost of nothing.
            self.cached += 1
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
            self.cost_usd = self.cost_usd or 0.0
            return
        self.attempts += max(1, attempts)
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        if reply is None:
            return
        # A judge is code of the user's: a figure that is no count or no price is not counted.
        self.input_tokens += _tokens(reply.input_tokens)
        self.output_tokens += _tokens(reply.output_tokens)
        price = _price(reply.cost_usd)
        if price is not None:
            self.cost_usd = (self.cost_usd or 0.0) + price
            self.estimated = self.estimated or reply.cost_estimated
            self.priced_calls += 1
            self.estimated_calls += reply.cost_estimated

    def counted(self) -> CountedUsage:
        """What was counted so far, as the value a run holds."""
        return CountedUsage(
            calls=self.calls,
            attempts=self.attempts,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd,
            cost_estimated=self.estimated,
            by_kind=dict(self.by_kind),
            model=self.model,
            source=self.source,
            cached=self.cached,
        )


def _tokens(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _price(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


async def assess(
    judge: Judge, criterion: Criterion, data: JudgeInput, *, votes: int, usage: JudgeUsage
) -> MetricResult:
    """Ask ``votes`` fresh times and keep the majority; a vote that fails is recorded.

    All votes failing is a metric error that keeps the raw replies; never a pass.
    """
    usage.model = usage.model or judge.label
    system, user = instructions(criterion), prompt(criterion, data)
    outcomes = await asyncio.gather(
        *(_vote(judge, system, user, criterion, usage, index) for index in range(votes))
    )
    verdicts = [verdict for verdict, _ in outcomes if verdict is not None]
    records = tuple(record for _, record in outcomes)
    if not verdicts:
        first = records[0].error or "no verdict"
        failure = errored(
            criterion.name,
            "judge",
            criterion.category,
            criterion.threshold,
            f"no vote returned a verdict ({len(records)} of {votes} failed; first: {first})",
        )
        return _with_votes(failure, records)
    standing = majority(verdicts)
    verdict = standing.verdict
    return MetricResult(
        criterion.name,
        "judge",
        criterion.category,
        criterion.threshold,
        verdict.score,
        verdict.score >= criterion.threshold,
        verdict.reason,
        None,
        records,
    )


async def _vote(
    judge: Judge, system: str, user: str, criterion: Criterion, usage: JudgeUsage, index: int
) -> tuple[JudgeVerdict | None, Vote]:
    # Each vote is a call of its own: a cache never answers one vote with another's reply.
    with counting_attempts() as attempts, positioned(vote=index), calling_for("score"):
        try:
            reply = await ask(judge, system, user)
        except Exception as error:
            usage.add(None, attempts=attempts.made)
            return None, Vote(error=f"{type(error).__name__}: {error}")
    usage.add(reply, attempts=attempts.made)
    try:
        verdict = parse_verdict(reply.text, criterion)
    except VerdictError as error:
        return None, Vote(error=f"invalid verdict: {error}", reply=reply.text[:_KEPT_REPLY])
    return verdict, Vote(score=verdict.score, raw=verdict.raw, reason=verdict.reason)


def _with_votes(metric: MetricResult, records: tuple[Vote, ...]) -> MetricResult:
    return MetricResult(
        metric.name,
        metric.kind,
        metric.category,
        metric.threshold,
        metric.score,
        False,
        metric.reason,
        metric.error,
        records,
    )
