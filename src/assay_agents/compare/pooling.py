"""Pooling a run's samples: one figure per item (case on a model) and metric.

A comparison and a noise floor read the same pooled figures, so "how far did this move" means
the same thing in both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from assay_agents.results import GradedSample, MetricResult, SampleResult, SampleStatus
from assay_agents.results.changes import Item, ItemMovement

K = TypeVar("K")
V = TypeVar("V")

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
    """Every metric of one item, plus its sample-level pass counts.

    Read-only: a run's items pooled to equal figures share one value (see :class:`RunPooling`),
    their ``metrics`` included.
    """

    metrics: Mapping[str, Pooled]
    passed: int
    evaluated: int


#: A sample as pooling reads it: whole, or only as it was graded (a baseline read for comparing).
Graded = SampleResult | GradedSample


def pool_run(samples: Iterable[Graded], *, in_order: bool = False) -> dict[Item, PooledItem]:
    """Pool each item's samples, items in first-seen order (see :class:`RunPooling`)."""
    pooling = RunPooling(in_order=in_order)
    for sample in samples:
        pooling.add(sample)
    return pooling.pooled()


class RunPooling:
    """A run's items pooled as its samples are given, one at a time.

    The samples are folded as they come: a comparison holds one small tally per item, never
    the samples themselves (at 100,000 items, the samples of both runs at once would be
    hundreds of megabytes). Items pooled to equal figures share one value: most items of a
    run pass every check alike, so a run's pooled items take a few values, not one each.

    ``in_order``: each item's samples come together (as in report order), so each item is
    pooled as soon as the next begins and only its tally is held. An item whose samples come
    apart then is a :class:`ValueError`: its figures would be pooled from part of them.
    """

    __slots__ = ("_in_order", "_pooled", "_shared", "_tallies")

    def __init__(self, *, in_order: bool = False) -> None:
        self._in_order = in_order
        self._shared = _Shared()
        self._pooled: dict[Item, PooledItem] = {}
        self._tallies: dict[Item, _ItemTally] = {}

    def add(self, sample: Graded) -> None:
        """Fold one more sample in."""
        key = (sample.case_id, sample.model)
        tally = self._tallies.get(key)
        if tally is None:
            if self._in_order:
                self._pool_tallies()
                if key in self._pooled:
                    raise ValueError(f"the samples of item {key!r} do not come together")
            tally = self._tallies[key] = _ItemTally()
        tally.add(sample)

    def add_all(self, samples: Iterable[Graded]) -> None:
        """Fold each of ``samples`` in, in order."""
        for sample in samples:
            self.add(sample)

    def pooled(self) -> dict[Item, PooledItem]:
        """Every item given, pooled, in first-seen order: the last call, once all are given."""
        self._pool_tallies()
        return self._pooled

    def _pool_tallies(self) -> None:
        """Pool the items still tallied, each tally let go as its item is pooled."""
        shared = self._shared
        for key in list(self._tallies):
            self._pooled[key] = shared.item(self._tallies.pop(key).pooled(shared.figure))


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

    def pooled(
        self, figure: Callable[[Fields], Pooled] = lambda fields: Pooled(*fields)
    ) -> PooledItem:
        """The item pooled; ``figure`` gives the value to hold for each figure's fields."""
        share = self.errors / self.samples
        agent = ("agent", "agent", 1.0, 1.0 - share, 1.0 - share, share, self.samples, None)
        pooled = {AGENT: figure((*agent, self.first_error))}
        for name, metric in self.metrics.items():
            pooled[name] = figure(metric.fields())
        return PooledItem(pooled, self.passed, self.evaluated)


#: A pooled figure's fields, in :class:`Pooled`'s order.
Fields = tuple[str, str, float, float, float, float, int, str | None, str | None]


class _Shared:
    """One value for each distinct pooled figure and item of a run, as they are pooled.

    Bounded: a run whose every item pools differently (a judge's scores, say) holds no more
    than :data:`SHARED_VALUES` spare entries, and shares only what recurs among them.
    """

    __slots__ = ("figures", "items")

    def __init__(self) -> None:
        self.figures: dict[tuple[object, ...], Pooled] = {}
        self.items: dict[tuple[object, ...], PooledItem] = {}

    def figure(self, fields: Fields) -> Pooled:
        # Equal as stored, not only as compared: 1 and 1.0, or 0.0 and -0.0, compare equal.
        threshold = fields[2]
        sign = math.copysign(1.0, threshold) if type(threshold) is float else 0.0
        key = (fields, type(threshold), sign)
        found = self.figures.get(key)
        if found is None:
            found = _held(self.figures, key, Pooled(*fields))
        return found

    def item(self, pooled: PooledItem) -> PooledItem:
        # The figures are shared already: the same object is the same figure, as stored.
        # Each is held alive by the item kept under its key, so no id is reused meanwhile.
        figures = tuple((name, id(figure)) for name, figure in pooled.metrics.items())
        return _held(self.items, (figures, pooled.passed, pooled.evaluated), pooled)


#: How many distinct values :class:`_Shared` keeps of each sort before starting afresh.
SHARED_VALUES = 1024


def _held(values: dict[K, V], key: K, value: V) -> V:
    """The value held under ``key``, or ``value`` held there from now on."""
    found = values.get(key)
    if found is not None:
        return found
    if len(values) >= SHARED_VALUES:
        values.clear()
    values[key] = value
    return value


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

    def fields(self) -> Fields:
        """The fields of the metric pooled, in :class:`Pooled`'s order."""
        count = len(self.scores)
        first = self.first
        return (
            first.kind,
            first.category,
            first.threshold,
            sum(self.scores) / count,
            self.passed / count,
            self.errors / count,
            count,
            self.first_reason,
            self.first_error,
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
