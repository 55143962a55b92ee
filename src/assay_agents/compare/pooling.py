"""Pooling a run's samples: one figure per item (case on a model) and metric.

A comparison and a noise floor read the same pooled figures, so "how far did this move" means
the same thing in both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


def pool_run(samples: Iterable[Graded]) -> dict[Item, PooledItem]:
    """Pool each item's samples, items in first-seen order.

    The samples are folded as they come: a comparison holds one small tally per item, never
    the samples themselves (at 100,000 items, the samples of both runs at once would be
    hundreds of megabytes).
    """
    tallies: dict[Item, _ItemTally] = {}
    for sample in samples:
        key = (sample.case_id, sample.model)
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = _ItemTally()
        tally.add(sample)
    pooled: dict[Item, PooledItem] = {}
    for key in list(tallies):
        pooled[key] = tallies.pop(key).pooled()  # each tally let go as its item is pooled
    return pooled


def pool_item(samples: Iterable[Graded]) -> PooledItem:
    """Pool one item's samples: the agent's error share, then each metric by name."""
    tally = _ItemTally()
    for sample in samples:
        tally.add(sample)
    return tally.pooled()


class _ItemTally:
    """What pooling one item needs from its samples, kept as they are read."""

    __slots__ = ("errors", "evaluated", "first_error", "metrics", "passed", "samples")

    def __init__(self) -> None:
        self.samples = self.errors = self.passed = self.evaluated = 0
        self.first_error: str | None = None
        self.metrics: dict[str, _MetricTally] = {}

    def add(self, sample: Graded) -> None:
        self.samples += 1
        if sample.error is not None:
            self.errors += 1
            if self.first_error is None:
                self.first_error = sample.error
        for metric in sample.metrics:
            named = self.metrics.get(metric.name)
            if named is None:
                named = self.metrics[metric.name] = _MetricTally(metric)
            named.add(metric)
        if sample.status is not SampleStatus.NOT_EVALUATED:
            self.evaluated += 1
            self.passed += sample.status is SampleStatus.PASSED

    def pooled(self) -> PooledItem:
        share = self.errors / self.samples
        pooled = {
            AGENT: Pooled(
                "agent",
                "agent",
                1.0,
                1.0 - share,
                1.0 - share,
                share,
                self.samples,
                None,
                self.first_error,
            )
        }
        for name, metric in self.metrics.items():
            pooled[name] = metric.pooled()
        return PooledItem(pooled, self.passed, self.evaluated)


class _MetricTally:
    """One metric of one item over its samples, kept as they are read."""

    __slots__ = ("errors", "first", "first_error", "first_reason", "passed", "scores")

    def __init__(self, first: MetricResult) -> None:
        self.first = first  # its kind, category and threshold stand for the item's
        # As effective_score: an errored metric counts zero. Summed at the end, as a list:
        # the mean is the same to the last bit as over the samples themselves.
        self.scores: list[float] = []
        self.passed = self.errors = 0
        self.first_error: str | None = None
        self.first_reason: str | None = None

    def add(self, metric: MetricResult) -> None:
        if metric.error is not None:
            self.errors += 1
            if self.first_error is None:
                self.first_error = metric.error
            self.scores.append(0.0)
        else:
            self.scores.append(0.0 if metric.score is None else metric.score)
        if metric.passed:
            self.passed += 1
        elif self.first_reason is None and metric.reason:
            self.first_reason = metric.reason

    def pooled(self) -> Pooled:
        count = len(self.scores)
        first = self.first
        return Pooled(
            kind=first.kind,
            category=first.category,
            threshold=first.threshold,
            score=sum(self.scores) / count,
            passed=self.passed / count,
            errors=self.errors / count,
            samples=count,
            reason=self.first_reason,
            error=self.first_error,
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
