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

from assay_agents.agent.calls import CACHED_CALLS_KEY
from assay_agents.results.judge_usage import JudgeUsage
from assay_agents.results.metric import MetricResult
from assay_agents.results.reliability import (
    ABANDONED,
    CATEGORIES,
    CLARIFICATION,
    INTEGRITY,
    declared_outcomes,
    integrity_of,
    is_judge_failure,
    is_provider_failure,
)
from assay_agents.results.sample import SampleResult, SampleStatus
from assay_agents.results.vote import vote_spread


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
    samples: Iterable[SampleResult], run_judge_usage: JudgeUsage | None = None
) -> RunSummary:
    """Summarise a run's samples, overall and per model, with the run's own judge calls."""
    counting = RunTally()
    counting.add_all(samples)
    return counting.summary(run_judge_usage)


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


def tally(samples: Iterable[SampleResult]) -> Tally:
    """Count and average one set of samples."""
    counting = Tallying()
    counting.add_all(samples)
    return counting.tally()


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


class _Criterion:
    """One judge criterion's figures so far (see :class:`CriterionSummary`)."""

    __slots__ = (
        "errors",
        "passed",
        "samples",
        "score_count",
        "score_sum",
        "spread_count",
        "spread_sum",
    )

    def __init__(self) -> None:
        self.samples = self.passed = self.errors = 0
        self.score_count = self.spread_count = 0
        self.score_sum: float = 0
        self.spread_sum: float = 0

    def add(self, metric: MetricResult) -> None:
        self.samples += 1
        self.passed += metric.passed
        if metric.error is not None:
            self.errors += 1
        elif metric.score is not None:
            self.score_sum += metric.score
            self.score_count += 1
        spread = vote_spread(metric.votes) if metric.votes else None
        if spread is not None:
            self.spread_sum += spread
            self.spread_count += 1

    def summary(self) -> CriterionSummary:
        # One verdict has nothing to spread against: None, never a spread of 0.
        return CriterionSummary(
            mean=_ratio(self.score_sum, self.score_count),
            samples=self.samples,
            passed=self.passed,
            errors=self.errors,
            mean_vote_spread=_ratio(self.spread_sum, self.spread_count),
        )


class Tallying:
    """A :class:`Tally` counted one sample at a time, so samples can be read in pages.

    Only counts and sums are kept, plus what an exact figure needs whole: each sample's
    latency (for the percentiles) and whether each case has passed so far.
    """

    def __init__(self) -> None:
        self._statuses: dict[SampleStatus, int] = dict.fromkeys(SampleStatus, 0)
        self._counts: dict[str, int] = defaultdict(int)
        self._sums: dict[str, float] = defaultdict(float)
        self._durations: list[float] = []
        self._cases: dict[str, bool] = {}
        self._criteria: dict[str, _Criterion] = {}
        self._faults: dict[str, int] = {}
        self._failing = dict.fromkeys(CATEGORIES, 0)
        self._checked = dict.fromkeys(CATEGORIES, 0)
        self._integrity = dict.fromkeys(INTEGRITY, 0)
        self._cost: float | None = None
        self._judge_cost: float | None = None
        self._cost_kinds: set[str] = set()

    def add_all(self, samples: Iterable[SampleResult]) -> None:
        """Count every sample of ``samples``."""
        for sample in samples:
            self.add(sample)

    def add(self, sample: SampleResult) -> None:
        """Count one sample."""
        count = self._counts
        count["samples"] += 1
        self._statuses[sample.status] += 1
        count["other_model"] += sample.other_model
        if sample.duration_ms is not None:
            self._durations.append(sample.duration_ms)
        passed = sample.status is SampleStatus.PASSED
        self._cases[sample.case_id] = self._cases.get(sample.case_id, True) and passed
        count["model_cached"] += _cached_calls(sample)
        if sample.fault is not None:
            self._faults[sample.fault] = self._faults.get(sample.fault, 0) + 1
        if sample.evaluated:
            self._add_evaluated(sample)
        self._add_usage(sample)
        self._add_judge_usage(sample.judge_usage)
        self._add_metrics(sample)
        self._add_rates(sample)

    def _add_evaluated(self, sample: SampleResult) -> None:
        count = self._counts
        count["evaluated"] += 1
        score = sample.check_score
        if score is not None:
            self._sums["check_score"] += score
            count["scored"] += 1
        if _has_check(sample):
            # An agent that failed before any check ran failed them all.
            count["checked"] += 1
            checks = (m.passed for m in sample.metrics if m.kind == "check")
            count["checks_passed"] += sample.error is None and all(checks)
        elif sample.error is not None:
            count["check_failed_early"] += 1

    def _add_usage(self, sample: SampleResult) -> None:
        usage = sample.usage
        source = cost_source(sample)
        if source == "no_usage":
            self._counts["no_usage"] += 1
        if usage is None:
            return
        self._counts["input_tokens"] += usage.input_tokens or 0
        self._counts["output_tokens"] += usage.output_tokens or 0
        if usage.cost_usd is None:
            return
        self._cost = (self._cost or 0) + usage.cost_usd
        self._counts["priced"] += 1
        if usage.cost_source in ("reported", "estimated"):
            self._counts[usage.cost_source] += 1
        self._cost_kinds.add("estimated" if usage.cost_source == "estimated" else "reported")

    def _add_judge_usage(self, usage: JudgeUsage | None) -> None:
        if usage is None:
            return
        count = self._counts
        count["judge_calls"] += usage.calls
        count["judge_input_tokens"] += usage.input_tokens
        count["judge_output_tokens"] += usage.output_tokens
        # Usage stored before attempts were counted made at least one attempt per call; a
        # call answered from the cache made none.
        count["judge_attempts"] += usage.attempts if usage.attempts or usage.cached else usage.calls
        count["judge_cached"] += usage.cached
        count["judge_estimated"] |= usage.cost_estimated
        if usage.cost_usd is not None:
            self._judge_cost = (self._judge_cost or 0.0) + usage.cost_usd

    def _add_metrics(self, sample: SampleResult) -> None:
        failing: set[str] = set()
        checked: set[str] = set()
        spoken: set[str | None] = set()
        for metric in sample.metrics:
            if metric.kind == "check":
                checked.add(metric.category)
            elif metric.kind == "judge":
                self._criteria.setdefault(metric.name, _Criterion()).add(metric)
            if not metric.passed:
                failing.add(metric.category)
                spoken.add(integrity_of(metric.category, metric.kind))
        for category in failing:
            self._failing[category] = self._failing.get(category, 0) + 1
        for category in checked:
            self._checked[category] = self._checked.get(category, 0) + 1
        for integrity in spoken - {None}:
            assert integrity is not None
            self._integrity[integrity] += 1

    def _add_rates(self, sample: SampleResult) -> None:
        count = self._counts
        provider = is_provider_failure(sample)
        count["provider"] += provider
        count["errored"] += sample.error is not None and not provider
        declared = declared_outcomes(sample)
        if declared:
            count["declared"] += 1
            count["clarification"] += CLARIFICATION in declared
            count["abandoned"] += ABANDONED in declared
        if any(m.kind == "judge" for m in sample.metrics):
            count["judged"] += 1
            count["judge_failed"] += is_judge_failure(sample)

    def tally(self) -> Tally:
        """The tally of every sample counted so far."""
        count, statuses = self._counts, self._statuses
        samples, evaluated, priced = count["samples"], count["evaluated"], count["priced"]
        durations = self._durations
        return Tally(
            samples=samples,
            passed=statuses[SampleStatus.PASSED],
            failed=statuses[SampleStatus.FAILED],
            errors=statuses[SampleStatus.ERROR],
            not_evaluated=statuses[SampleStatus.NOT_EVALUATED],
            other_model=count["other_model"],
            pass_rate=_ratio(statuses[SampleStatus.PASSED], evaluated),
            check_score=_ratio(self._sums["check_score"], count["scored"]),
            cases=len(self._cases),
            cases_passed=sum(self._cases.values()),
            input_tokens=count["input_tokens"],
            output_tokens=count["output_tokens"],
            cost_usd=self._cost,
            priced=priced,
            unpriced=samples - priced - count["no_usage"],
            latency_avg_ms=_mean(durations),
            latency_p50_ms=nearest_rank(durations, 50),
            latency_p95_ms=nearest_rank(durations, 95),
            judge={name: c.summary() for name, c in sorted(self._criteria.items())},
            check_pass_rate=self._check_pass_rate(),
            reported=count["reported"],
            estimated=count["estimated"],
            # One denominator for every model: what 1,000 samples cost at the mean priced sample.
            cost_per_1000_usd=None if self._cost is None else 1000 * self._cost / priced,
            judge_calls=count["judge_calls"],
            judge_attempts=count["judge_attempts"],
            judge_cached=count["judge_cached"],
            model_cached=count["model_cached"],
            judge_input_tokens=count["judge_input_tokens"],
            judge_output_tokens=count["judge_output_tokens"],
            judge_cost_usd=self._judge_cost,
            judge_cost_estimated=bool(count["judge_estimated"]),
            failing_by_category=_in_reading_order(self._failing),
            checked_by_category=_in_reading_order(self._checked),
            faults=dict(self._faults),
            integrity=dict(self._integrity),
            no_usage=count["no_usage"],
            cost_basis=self._cost_basis(),
            total_cost_usd=_total(self._cost, self._judge_cost),
            **self._rates(),
        )

    def _check_pass_rate(self) -> float | None:
        checked = self._counts["checked"]
        counted = checked + self._counts["check_failed_early"]
        return _ratio(self._counts["checks_passed"], counted) if checked else None

    def _cost_basis(self) -> str | None:
        kinds = self._cost_kinds
        if not kinds:
            return None
        return next(iter(kinds)) if len(kinds) == 1 else "mixed"

    def _rates(self) -> dict[str, float | None]:
        count = self._counts
        total, declared, judged = count["samples"], count["declared"], count["judged"]
        return {
            "agent_error_rate": _ratio(count["errored"], total),
            "provider_failure_rate": _ratio(count["provider"], total),
            "not_evaluated_rate": _ratio(self._statuses[SampleStatus.NOT_EVALUATED], total),
            "clarification_rate": _ratio(count["clarification"], declared),
            "abandonment_rate": _ratio(count["abandoned"], declared),
            "judge_failure_rate": _ratio(count["judge_failed"], judged),
        }


class RunTally:
    """A :class:`RunSummary` counted one sample at a time: overall and per model."""

    def __init__(self) -> None:
        self._overall = Tallying()
        self._by_model: dict[str, Tallying] = {}

    def add_all(self, samples: Iterable[SampleResult]) -> None:
        """Count every sample of ``samples`` (a page of a run's samples, say)."""
        for sample in samples:
            self.add(sample)

    def add(self, sample: SampleResult) -> None:
        """Count one sample."""
        self._overall.add(sample)
        if sample.model is not None:
            self._by_model.setdefault(sample.model, Tallying()).add(sample)

    def summary(self, run_judge_usage: JudgeUsage | None = None) -> RunSummary:
        """The summary of every sample counted so far, with the run's own judge calls."""
        overall = self._overall.tally()
        fields = {name: getattr(overall, name) for name in Tally.__dataclass_fields__}
        by_model = {model: each.tally() for model, each in self._by_model.items()}
        return with_run_judge_usage(RunSummary(**fields, by_model=by_model), run_judge_usage)


def _ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def _in_reading_order(counts: dict[str, int]) -> dict[str, int]:
    extra = sorted(set(counts) - set(CATEGORIES))
    return {name: counts[name] for name in (*CATEGORIES, *extra)}


def _has_check(sample: SampleResult) -> bool:
    return any(m.kind == "check" for m in sample.metrics)
