"""Pooling a run's samples: one figure per item (case on a model) and metric.

A comparison and a noise floor read the same pooled figures, so "how far did this move" means
the same thing in both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.results import GradedSample, MetricResult, SampleResult, SampleStatus
from assay_agents.results.changes import Item, ItemMovement

#: The pseudo-metric under which agent errors (exceptions, timeouts) are pooled.
AGENT = "(agent)"


@dataclass(frozen=True, slots=True)
class Pooled:
    """One metric of one item over its samples.

    ``score`` is the mean score (an errored metric counts zero), ``passed`` the share of
    samples on which it passed, ``errors`` the share on which it could not be calculated.
    """

    kind: str
    category: str
    threshold: float
    score: float
    passed: float
    errors: float
    samples: int
    reason: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PooledItem:
    """Every metric of one item, plus its sample-level pass counts."""

    metrics: dict[str, Pooled]
    passed: int
    evaluated: int


#: A sample as pooling reads it: whole, or only as it was graded (a baseline read for comparing).
Graded = SampleResult | GradedSample


def pool_run(samples: Sequence[Graded]) -> dict[Item, PooledItem]:
    """Group samples by (case, model) and pool each group, in first-seen order."""
    grouped: dict[Item, list[Graded]] = defaultdict(list)
    for sample in samples:
        grouped[(sample.case_id, sample.model)].append(sample)
    return {key: pool_item(group) for key, group in grouped.items()}


def pool_item(samples: Sequence[Graded]) -> PooledItem:
    """Pool one item's samples: the agent's error share, then each metric by name.

    One pass over the samples (a comparison pools every item of both runs: at 100,000
    items, each extra pass is seconds).
    """
    errors: list[str] = []
    by_metric: dict[str, list[MetricResult]] = {}
    passed = evaluated = 0
    for sample in samples:
        if sample.error is not None:
            errors.append(sample.error)
        for metric in sample.metrics:
            named = by_metric.get(metric.name)
            if named is None:
                by_metric[metric.name] = [metric]
            else:
                named.append(metric)
        if sample.status is not SampleStatus.NOT_EVALUATED:
            evaluated += 1
            passed += sample.status is SampleStatus.PASSED
    share = len(errors) / len(samples)
    pooled = {
        AGENT: Pooled(
            "agent",
            "agent",
            1.0,
            1.0 - share,
            1.0 - share,
            share,
            len(samples),
            None,
            errors[0] if errors else None,
        )
    }
    for name, metrics in by_metric.items():
        pooled[name] = _pool_metric(metrics)
    return PooledItem(pooled, passed, evaluated)


def _pool_metric(metrics: Sequence[MetricResult]) -> Pooled:
    count = len(metrics)
    scores: list[float] = []  # as effective_score: an errored metric counts zero
    passed = errors = 0
    first_error: str | None = None
    first_reason: str | None = None
    for metric in metrics:
        if metric.error is not None:
            errors += 1
            if first_error is None:
                first_error = metric.error
            scores.append(0.0)
        else:
            scores.append(0.0 if metric.score is None else metric.score)
        if metric.passed:
            passed += 1
        elif first_reason is None and metric.reason:
            first_reason = metric.reason
    first = metrics[0]
    return Pooled(
        kind=first.kind,
        category=first.category,
        threshold=first.threshold,
        score=sum(scores) / count,
        passed=passed / count,
        errors=errors / count,
        samples=count,
        reason=first_reason,
        error=first_error,
    )


def movement(old: Pooled, new: Pooled) -> float:
    """How far a metric moved: the largest shift of its score, pass share or error share.

    One measure for changes and for the noise floor, so the two are in the same unit.
    """
    return max(
        abs(new.score - old.score), abs(new.passed - old.passed), abs(new.errors - old.errors)
    )


def pass_rate(items: Sequence[PooledItem]) -> tuple[int, int]:
    """Passed and evaluated samples over a set of items (not-evaluated samples left out)."""
    return sum(item.passed for item in items), sum(item.evaluated for item in items)


def item_movement(
    key: Item, kind: str, before: PooledItem | None, after: PooledItem | None
) -> ItemMovement:
    """The movement of ``key`` from its pooled samples on each side."""
    return ItemMovement(
        case_id=key[0],
        model=key[1],
        kind=kind,
        before=None if before is None else (before.passed, before.evaluated),
        after=None if after is None else (after.passed, after.evaluated),
    )


def moved(before: PooledItem, after: PooledItem) -> bool:
    """Whether an item's sample pass rate differs between two runs."""
    old = before.passed / before.evaluated if before.evaluated else None
    new = after.passed / after.evaluated if after.evaluated else None
    return old != new
