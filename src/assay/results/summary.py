"""Aggregates over sample results: pass rates, deterministic scores, usage and latency.

Rules: pass rates and scores exclude not-evaluated samples and are ``None`` when no sample
was evaluated; the deterministic pass rate is also ``None`` when no sample had a
deterministic check (it was not measured, which is not 0%); judge criteria are summarised per
criterion and never averaged with checks.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.agent.calls import CACHED_CALLS_KEY
from assay.results.judge_usage import JudgeUsage
from assay.results.reliability import (
    checked_by_category,
    failing_by_category,
    failing_by_integrity,
    rates,
)
from assay.results.sample import SampleResult, SampleStatus
from assay.results.vote import vote_spread


def nearest_rank(values: Sequence[float], percentile: float) -> float | None:
    """The value at rank ``ceil(p/100 × n)``: always one that was actually observed."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percentile / 100 * len(ordered)))
    return ordered[rank - 1]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True, slots=True)
class CriterionSummary:
    """A judge criterion over the samples that asked for it.

    ``samples`` asked, ``errors`` of them errored (so ``samples - errors`` were scored);
    ``mean`` is over the scored ones. ``mean_vote_spread`` is ``None`` when no sample had two
    verdicts to compare (one vote has no spread).
    """

    mean: float | None
    samples: int
    passed: int
    errors: int
    mean_vote_spread: float | None = None

    @property
    def scored(self) -> int:
        """Samples on which the criterion was calculated."""
        return self.samples - self.errors


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts, rates, usage and latency over a set of samples."""

    samples: int
    passed: int
    failed: int
    errors: int
    not_evaluated: int
    pass_rate: float | None
    check_score: float | None
    cases: int
    cases_passed: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    priced: int
    unpriced: int
    latency_avg_ms: float | None
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    judge: dict[str, CriterionSummary] = field(default_factory=dict)
    check_pass_rate: float | None = None
    reported: int = 0
    estimated: int = 0
    cost_per_1000_usd: float | None = None
    #: Judge calls (one per vote) and the HTTP attempts they took, retries included.
    judge_calls: int = 0
    judge_attempts: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0
    judge_cost_usd: float | None = None
    judge_cost_estimated: bool = False
    #: Judge calls answered from the cache (among ``judge_calls``): nothing was spent on them.
    judge_cached: int = field(default=0, metadata={"omit_empty": True})
    #: The agents' model calls answered from the cache (``--cache-model-calls``): no request.
    model_cached: int = field(default=0, metadata={"omit_empty": True})
    #: Failing samples per reliability category (side_effects, content, actions, budget,
    #: judge, then any other category); rates over all samples, ``None`` without samples.
    failing_by_category: dict[str, int] = field(default_factory=dict)
    agent_error_rate: float | None = None
    provider_failure_rate: float | None = None
    not_evaluated_rate: float | None = None
    #: Diagnosed faults (``run_error``, ``missing_content``, ...) and their sample counts.
    faults: dict[str, int] = field(default_factory=dict)
    #: Failing samples per integrity category (side-effect integrity, operational claim
    #: integrity, semantic interpretation, clarification integrity); judge scores never count.
    integrity: dict[str, int] = field(default_factory=dict)
    #: Over the samples that declared an outcome; ``None`` when none did (never read from prose).
    clarification_rate: float | None = None
    abandonment_rate: float | None = None
    #: Samples whose judge criterion could not be graded: the judge's outage, not the agent's.
    judge_failure_rate: float | None = None
    #: Samples that reported no usage at all (no tokens, no cost): neither priced nor unpriced.
    no_usage: int = 0
    #: How the priced samples were priced: ``reported``, ``estimated`` or ``mixed``.
    cost_basis: str | None = None
    #: The agent's cost and the judge's together (each still reported on its own).
    total_cost_usd: float | None = None
    #: Errored samples another model answered: never checked, so in no rate (see
    #: :attr:`SampleResult.evaluated`).
    other_model: int = 0
    #: Samples with a deterministic check per category: what ``failing_by_category`` is out
    #: of (0 side_effects means side effects were not measured, not that none failed).
    checked_by_category: dict[str, int] = field(default_factory=dict)

    @property
    def evaluated(self) -> int:
        """Samples that count towards the pass rate."""
        return self.samples - self.not_evaluated - self.other_model


@dataclass(frozen=True, slots=True)
class RunSummary(Tally):
    """The run's tally, plus one tally per model when the run named models.

    The run's judge totals (``judge_calls``, ``judge_cost_usd``, ``total_cost_usd``, ...)
    count every judge call: the samples' and the run's own (the model verdict), which is
    also kept apart as :attr:`run_judge_usage`. A model's tally counts its samples' only.
    """

    by_model: dict[str, Tally] = field(default_factory=dict)
    #: Judge calls no sample owns (the model verdict), counted in the run's judge totals.
    run_judge_usage: JudgeUsage | None = None


def summarise(
    samples: Sequence[SampleResult], run_judge_usage: JudgeUsage | None = None
) -> RunSummary:
    """Summarise a run's samples, overall and per model, with the run's own judge calls."""
    by_model: dict[str, list[SampleResult]] = defaultdict(list)
    for sample in samples:
        if sample.model is not None:
            by_model[sample.model].append(sample)
    overall = tally(samples)
    summary = RunSummary(**_fields(overall), by_model={m: tally(s) for m, s in by_model.items()})
    return with_run_judge_usage(summary, run_judge_usage)


def with_run_judge_usage(summary: RunSummary, usage: JudgeUsage | None) -> RunSummary:
    """``summary`` (of the samples alone) with the run's own judge calls in its totals."""
    if usage is None:
        return summary
    judge_cost = _total(summary.judge_cost_usd, usage.cost_usd)
    return dataclasses.replace(
        summary,
        run_judge_usage=usage,
        judge_calls=summary.judge_calls + usage.calls,
        judge_attempts=summary.judge_attempts + (usage.attempts or usage.calls),
        judge_input_tokens=summary.judge_input_tokens + usage.input_tokens,
        judge_output_tokens=summary.judge_output_tokens + usage.output_tokens,
        judge_cost_usd=judge_cost,
        judge_cost_estimated=summary.judge_cost_estimated or usage.cost_estimated,
        total_cost_usd=_total(summary.cost_usd, judge_cost),
    )


def _fields(value: Tally) -> dict[str, Any]:
    return {name: getattr(value, name) for name in Tally.__dataclass_fields__}


def tally(samples: Sequence[SampleResult]) -> Tally:
    """Count and average one set of samples."""
    statuses = [sample.status for sample in samples]
    evaluated = [sample for sample in samples if sample.evaluated]
    passed = statuses.count(SampleStatus.PASSED)
    scores = [s.check_score for s in evaluated if s.check_score is not None]
    durations = [s.duration_ms for s in samples if s.duration_ms is not None]
    case_total, case_passed = _case_counts(samples)
    costs = [s.usage.cost_usd for s in samples if s.usage and s.usage.cost_usd is not None]
    sources = [s.usage.cost_source for s in samples if s.usage and s.usage.cost_usd is not None]
    no_usage = sum(1 for s in samples if cost_source(s) == "no_usage")
    judged = _judge_totals(samples)
    shares = rates(samples)
    return Tally(
        samples=len(samples),
        passed=passed,
        failed=statuses.count(SampleStatus.FAILED),
        errors=statuses.count(SampleStatus.ERROR),
        not_evaluated=statuses.count(SampleStatus.NOT_EVALUATED),
        other_model=sum(1 for sample in samples if sample.other_model),
        pass_rate=passed / len(evaluated) if evaluated else None,
        check_score=_mean(scores),
        cases=case_total,
        cases_passed=case_passed,
        input_tokens=sum((s.usage.input_tokens or 0) for s in samples if s.usage),
        output_tokens=sum((s.usage.output_tokens or 0) for s in samples if s.usage),
        cost_usd=sum(costs) if costs else None,
        priced=len(costs),
        unpriced=len(samples) - len(costs) - no_usage,
        latency_avg_ms=_mean(durations),
        latency_p50_ms=nearest_rank(durations, 50),
        latency_p95_ms=nearest_rank(durations, 95),
        judge=_judge_criteria(samples),
        check_pass_rate=_check_pass_rate(evaluated),
        reported=sources.count("reported"),
        estimated=sources.count("estimated"),
        # One denominator for every model: what 1,000 samples cost at the mean priced sample.
        cost_per_1000_usd=1000 * sum(costs) / len(costs) if costs else None,
        judge_calls=int(judged["calls"] or 0),
        judge_attempts=int(judged["attempts"] or 0),
        judge_cached=int(judged["cached"]),
        model_cached=sum(_cached_calls(sample) for sample in samples),
        judge_input_tokens=int(judged["input_tokens"] or 0),
        judge_output_tokens=int(judged["output_tokens"] or 0),
        judge_cost_usd=judged["cost_usd"],
        judge_cost_estimated=bool(judged["estimated"]),
        failing_by_category=failing_by_category(samples),
        checked_by_category=checked_by_category(samples),
        agent_error_rate=shares["agent_error_rate"],
        provider_failure_rate=shares["provider_failure_rate"],
        not_evaluated_rate=shares["not_evaluated_rate"],
        faults=_fault_counts(samples),
        integrity=failing_by_integrity(samples),
        clarification_rate=shares["clarification_rate"],
        abandonment_rate=shares["abandonment_rate"],
        judge_failure_rate=shares["judge_failure_rate"],
        no_usage=no_usage,
        cost_basis=cost_basis(sources),
        total_cost_usd=_total(sum(costs) if costs else None, judged["cost_usd"]),
    )


def _cached_calls(sample: SampleResult) -> int:
    count = sample.metadata.get(CACHED_CALLS_KEY)
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def cost_source(sample: SampleResult) -> str:
    """How the sample's cost is known: reported, estimated, unpriced or no_usage.

    A sample with no usage at all is ``no_usage``: no price list could fix it, unlike tokens
    nobody priced (``unpriced``).
    """
    usage = sample.usage
    if usage is None or (usage.total_tokens is None and usage.cost_usd is None):
        return "no_usage"
    if usage.cost_usd is None:
        return "unpriced"
    return usage.cost_source or "reported"


def cost_basis(sources: Iterable[str | None]) -> str | None:
    """``reported``, ``estimated`` or ``mixed`` over priced samples; ``None`` with none."""
    kinds = {"estimated" if source == "estimated" else "reported" for source in sources}
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _total(agent: float | None, judge: float | None) -> float | None:
    if agent is None and judge is None:
        return None
    return (agent or 0.0) + (judge or 0.0)


def _fault_counts(samples: Iterable[SampleResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for sample in samples:
        if sample.fault is not None:
            counts[sample.fault] = counts.get(sample.fault, 0) + 1
    return counts


def _check_pass_rate(evaluated: Sequence[SampleResult]) -> float | None:
    """Samples whose deterministic checks all passed (judge criteria set aside).

    Over the evaluated samples that had a deterministic check, an agent error counting as a
    failure; ``None`` when no sample had one: a judge-only run measured nothing deterministic.
    """
    counted = check_counts(evaluated)
    return None if counted is None else counted[0] / counted[1]


def check_counts(samples: Sequence[SampleResult]) -> tuple[int, int] | None:
    """The deterministic pass rate's figures: samples whose checks all passed, and out of how many.

    Over the evaluated ``samples`` that had a deterministic check, an agent error counting as
    a failure; ``None`` when no sample had one.
    """
    return CheckTally.of(samples).counts()


@dataclass(frozen=True, slots=True)
class CheckTally:
    """What the deterministic pass rate counts of evaluated samples.

    ``checked`` had a deterministic check, ``passing`` of them passed every one without an
    agent error, ``failed_early`` had an agent error and no check (an agent that failed
    before any check ran failed them all). A store can count these in a query, without
    loading the samples.
    """

    checked: int = 0
    passing: int = 0
    failed_early: int = 0

    @classmethod
    def of(cls, samples: Iterable[SampleResult]) -> CheckTally:
        """Counted over the evaluated ones of ``samples``."""
        checked = passing = failed_early = 0
        for sample in samples:
            if not sample.evaluated:
                continue
            checks = [m.passed for m in sample.metrics if m.kind == "check"]
            if checks:
                checked += 1
                passing += all(checks) and sample.error is None
            elif sample.error is not None:
                failed_early += 1
        return cls(checked, passing, failed_early)

    def __add__(self, other: CheckTally) -> CheckTally:
        return CheckTally(
            self.checked + other.checked,
            self.passing + other.passing,
            self.failed_early + other.failed_early,
        )

    def counts(self) -> tuple[int, int] | None:
        """(passing, counted), ``None`` when no sample had a check."""
        if not self.checked:
            return None
        return self.passing, self.checked + self.failed_early


def _judge_totals(samples: Iterable[SampleResult]) -> dict[str, Any]:
    totals: dict[str, Any] = {
        "calls": 0,
        "attempts": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": None,
        "estimated": False,
        "cached": 0,
    }
    for sample in samples:
        usage = sample.judge_usage
        if usage is None:
            continue
        for key in ("calls", "input_tokens", "output_tokens"):
            totals[key] += getattr(usage, key)
        # Usage stored before attempts were counted made at least one attempt per call; a
        # call answered from the cache made none.
        totals["attempts"] += usage.attempts if usage.attempts or usage.cached else usage.calls
        totals["cached"] += usage.cached
        totals["estimated"] = totals["estimated"] or usage.cost_estimated
        if usage.cost_usd is not None:
            totals["cost_usd"] = (totals["cost_usd"] or 0.0) + usage.cost_usd
    return totals


def _case_counts(samples: Iterable[SampleResult]) -> tuple[int, int]:
    """Cases seen, and those whose every sample passed on every model.

    A case is counted once however many models ran it: 3 cases on 2 models are 3 cases.
    """
    outcomes: dict[str, bool] = {}
    for sample in samples:
        passed = sample.status is SampleStatus.PASSED
        outcomes[sample.case_id] = outcomes.get(sample.case_id, True) and passed
    return len(outcomes), sum(outcomes.values())


def _judge_criteria(samples: Iterable[SampleResult]) -> dict[str, CriterionSummary]:
    grouped: dict[str, list[Any]] = defaultdict(list)
    for sample in samples:
        for metric in sample.metrics:
            if metric.kind == "judge":
                grouped[metric.name].append(metric)
    return {name: _criterion(metrics) for name, metrics in sorted(grouped.items())}


def _criterion(metrics: Sequence[Any]) -> CriterionSummary:
    scores = [m.score for m in metrics if m.error is None and m.score is not None]
    spreads = [s for s in (vote_spread(m.votes) for m in metrics if m.votes) if s is not None]
    # One verdict has nothing to spread against: None, never a spread of 0.
    return CriterionSummary(
        mean=_mean(scores),
        samples=len(metrics),
        passed=sum(1 for m in metrics if m.passed),
        errors=sum(1 for m in metrics if m.error is not None),
        mean_vote_spread=_mean(spreads),
    )
