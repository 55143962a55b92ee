"""Comparing two runs honestly: the pairing first, corpus defects above any figure.

Exclusion is as loud as the score: past ``max_excluded_share`` the headline is
:class:`WithheldHeadline`, and no pass-rate delta exists anywhere on the comparison, its JSON
included, because a figure over what is left of the corpus would read like a measurement of the
suite and would not be one. The comparison is figures and typed facts; the sentences that read
it (the pairing first, defects before any figure) are :mod:`assay.report.prose`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assay.compare.changes import Change, ChangeKind, Tolerances, item_changes
from assay.compare.noise import DEFAULT_FLAKY_SHARE, NoiseFloor, NoiseLabel
from assay.compare.pairing import PairedItem, Pairing, pair_items
from assay.compare.pooling import (
    EPSILON,
    Item,
    ItemMovement,
    PooledItem,
    moved,
    pass_rate,
    pool_run,
)
from assay.errors import ConfigurationError
from assay.results import CaseSnapshot, Run
from assay.spec.json_data import known_fields

#: Past this share of the paired corpus excluded, the headline is withheld.
DEFAULT_MAX_EXCLUDED_SHARE = 0.10
#: A judge score must move beyond this (0–1 scale: a tenth of a point on 1–5) to be drift.
DEFAULT_DRIFT_TOLERANCE = 0.025


@dataclass(frozen=True, kw_only=True)
class ComparisonPolicy:
    """The rules a comparison applies; every share and tolerance is on the 0–1 scale.

    ``tolerance`` excuses a score movement (never a new failure or error);
    ``drift_tolerance`` is what a judge score may breathe by, independent of ``tolerance``;
    ``max_excluded_share`` is the exclusion ceiling above which the headline is withheld;
    ``flaky_share`` is the noise floor above which the corpus is reported as too flaky;
    ``noise_floor`` comes from a control run (``None``: every movement is unmeasured).
    """

    tolerance: float = 0.0
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE
    max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE
    flaky_share: float = DEFAULT_FLAKY_SHARE
    noise_floor: NoiseFloor | None = None

    def __post_init__(self) -> None:
        for name in ("tolerance", "drift_tolerance", "max_excluded_share", "flaky_share"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or not 0.0 <= value <= 1.0
            ):
                raise ConfigurationError(f"{name} must be a number in [0, 1], not {value!r}")

    def to_json(self) -> dict[str, float]:
        """The settings, without the floor (stored beside them)."""
        return {
            "tolerance": self.tolerance,
            "drift_tolerance": self.drift_tolerance,
            "max_excluded_share": self.max_excluded_share,
            "flaky_share": self.flaky_share,
        }


@dataclass(frozen=True, slots=True)
class MeasuredHeadline:
    """The pass rate over the compared items in both runs, and how far it moved."""

    before_passed: int
    before_evaluated: int
    after_passed: int
    after_evaluated: int
    noise: NoiseLabel = NoiseLabel.UNMEASURED

    @property
    def before(self) -> float | None:
        """The baseline's pass rate over the compared items (``None``: nothing evaluated)."""
        return _rate(self.before_passed, self.before_evaluated)

    @property
    def after(self) -> float | None:
        """The current run's pass rate over the compared items."""
        return _rate(self.after_passed, self.after_evaluated)

    @property
    def delta(self) -> float | None:
        """After minus before, or ``None`` when either side evaluated nothing."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    def to_json(self) -> dict[str, Any]:
        """The portable form."""
        return {
            "status": "measured",
            "pass_rate_before": self.before,
            "pass_rate_after": self.after,
            "delta": self.delta,
            "noise": self.noise.value,
            "before_passed": self.before_passed,
            "before_evaluated": self.before_evaluated,
            "after_passed": self.after_passed,
            "after_evaluated": self.after_evaluated,
        }


@dataclass(frozen=True, slots=True)
class WithheldHeadline:
    """No figure: nothing was paired, or more of the paired corpus was excluded than allowed.

    Which of the two is the comparison's own counts (``paired``, ``excluded_share`` against
    ``policy.max_excluded_share``); :func:`assay.report.prose.withheld_reason` says it.
    """

    def to_json(self) -> dict[str, Any]:
        """The portable form: the status, and deliberately nothing else."""
        return {"status": "withheld"}


Headline = MeasuredHeadline | WithheldHeadline


@dataclass(frozen=True, slots=True)
class Comparison:
    """The current run against a baseline: pairing, defects, headline and changes.

    ``paired`` counts the items (a case on a model) both runs hold; ``pairings`` lists those
    that are not plainly compared (excluded, corpus defects, intended changes).
    """

    baseline_id: str
    current_id: str
    policy: ComparisonPolicy
    paired: int
    only_in_baseline: int
    only_in_current: int
    pairings: tuple[PairedItem, ...]
    headline: Headline
    changes: tuple[Change, ...]
    #: The items only the current run holds (new cases, or cases on a new model).
    added: tuple[Item, ...] = ()
    #: The items only the baseline holds (removed cases, or a model no longer run).
    removed: tuple[Item, ...] = ()
    #: Every item named as a change with its pass rates: moved, unverified, added, removed.
    movements: tuple[ItemMovement, ...] = ()

    # -- pairing ---------------------------------------------------------------------------

    @property
    def excluded(self) -> tuple[PairedItem, ...]:
        """Items left out of every figure: broken pairings and corpus defects."""
        return tuple(item for item in self.pairings if not item.pairing.compared)

    @property
    def compared(self) -> int:
        """Items whose figures enter the comparison."""
        return self.paired - len(self.excluded)

    @property
    def items_compared(self) -> int:
        """Alias of :attr:`compared`."""
        return self.compared

    @property
    def excluded_share(self) -> float:
        """The share of the paired corpus excluded (0 when nothing was paired)."""
        return len(self.excluded) / self.paired if self.paired else 0.0

    @property
    def corpus_defects(self) -> tuple[PairedItem, ...]:
        """Items whose ``recorded`` parts differ: a problem with the corpus, never a result."""
        return tuple(item for item in self.pairings if item.pairing is Pairing.DEFECT)

    @property
    def intended_changes(self) -> tuple[PairedItem, ...]:
        """Items compared although they changed, because both runs declared the parts derived."""
        return tuple(item for item in self.pairings if item.pairing is Pairing.INTENDED)

    @property
    def tolerance(self) -> float:
        """The score tolerance the comparison applied."""
        return self.policy.tolerance

    @property
    def noise_floor(self) -> NoiseFloor | None:
        """The control run's floor, when one was measured."""
        return self.policy.noise_floor

    @property
    def too_flaky(self) -> bool:
        """Whether the floor is above the flaky share: the corpus is too flaky to measure."""
        floor = self.policy.noise_floor
        return floor is not None and floor.too_flaky(self.policy.flaky_share)

    @property
    def pass_rate_delta(self) -> float | None:
        """The headline delta; ``None`` when withheld (or nothing was evaluated)."""
        return self.headline.delta if isinstance(self.headline, MeasuredHeadline) else None

    # -- changes ---------------------------------------------------------------------------

    def of_kind(self, kind: ChangeKind) -> tuple[Change, ...]:
        """The changes of one kind, in item order."""
        return tuple(change for change in self.changes if change.kind is kind)

    @property
    def regressions(self) -> tuple[Change, ...]:
        """Every change for the worse, within the noise or not: what a human should skim."""
        return tuple(change for change in self.changes if change.is_regression)

    @property
    def signal_regressions(self) -> tuple[Change, ...]:
        """Regressions beyond the noise floor or unmeasured: what a gate reads."""
        return tuple(change for change in self.changes if change.is_signal)

    @property
    def deterministic_regressions(self) -> tuple[Change, ...]:
        """Checks an item used to satisfy and no longer does."""
        return self.of_kind(ChangeKind.DETERMINISTIC_REGRESSION)

    @property
    def judge_drift(self) -> tuple[Change, ...]:
        """Judge scores that moved with the same deterministic behaviour."""
        return self.of_kind(ChangeKind.JUDGE_DRIFT)

    @property
    def improvements(self) -> tuple[Change, ...]:
        """Metrics that got better beyond the tolerance, or newly pass."""
        return self.of_kind(ChangeKind.IMPROVEMENT)

    # -- storage ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The portable form: the pairing, defects and headline come before the changes."""
        floor = self.policy.noise_floor
        return {
            "baseline_id": self.baseline_id,
            "current_id": self.current_id,
            "pairing": {
                "paired": self.paired,
                "compared": self.compared,
                "excluded": len(self.excluded),
                "excluded_share": self.excluded_share,
                "max_excluded_share": self.policy.max_excluded_share,
                "only_in_baseline": self.only_in_baseline,
                "only_in_current": self.only_in_current,
            },
            "movements": [movement.to_json() for movement in self.movements],
            "added": [list(item) for item in self.added],
            "removed": [list(item) for item in self.removed],
            "corpus_defects": [item.to_json() for item in self.corpus_defects],
            "headline": self.headline.to_json(),
            "excluded": [item.to_json() for item in self.excluded],
            "intended_changes": [item.to_json() for item in self.intended_changes],
            "policy": self.policy.to_json(),
            "noise_floor": None if floor is None else floor.to_json(),
            "too_flaky": self.too_flaky,
            "regressions": len(self.regressions),
            "signal_regressions": len(self.signal_regressions),
            "changes": [change.to_json() for change in self.changes],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Comparison:
        """Rebuild a comparison from its stored form."""
        floor = data.get("noise_floor")
        measured = None if floor is None else NoiseFloor.from_json(floor)
        policy = ComparisonPolicy(
            **known_fields(ComparisonPolicy, data["policy"]), noise_floor=measured
        )
        pairing = data["pairing"]
        pairings = [*data["corpus_defects"], *data["excluded"], *data["intended_changes"]]
        unique = {(p["case_id"], p.get("model")): p for p in pairings}
        return cls(
            baseline_id=data["baseline_id"],
            current_id=data["current_id"],
            policy=policy,
            paired=int(pairing["paired"]),
            only_in_baseline=int(pairing["only_in_baseline"]),
            only_in_current=int(pairing["only_in_current"]),
            pairings=tuple(PairedItem.from_json(p) for p in unique.values()),
            headline=_headline_from(data["headline"]),
            changes=tuple(Change.from_json(change) for change in data["changes"]),
            added=tuple((str(case), model) for case, model in data.get("added") or ()),
            removed=tuple((str(case), model) for case, model in data.get("removed") or ()),
            movements=tuple(ItemMovement.from_json(item) for item in data.get("movements") or ()),
        )


def compare_runs(
    baseline: Run,
    current: Run,
    *,
    tolerance: float = 0.0,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE,
    flaky_share: float = DEFAULT_FLAKY_SHARE,
    noise_floor: NoiseFloor | None = None,
) -> Comparison:
    """Compare ``current`` with ``baseline`` (see :class:`ComparisonPolicy` for the options)."""
    policy = ComparisonPolicy(
        tolerance=tolerance,
        drift_tolerance=drift_tolerance,
        max_excluded_share=max_excluded_share,
        flaky_share=flaky_share,
        noise_floor=noise_floor,
    )
    return compare(baseline, current, policy)


def compare(baseline: Run, current: Run, policy: ComparisonPolicy) -> Comparison:
    """Pair the items, judge each pairing, then compare the items that still pair."""
    before, after = pool_run(baseline.samples), pool_run(current.samples)
    paired = pair_items(baseline, current, list(before), list(after))
    compared = [item.key for item in paired if item.pairing.compared]
    tolerances = Tolerances(policy.tolerance, policy.drift_tolerance)
    changes = [
        change
        for case_id, model in compared
        for change in item_changes(
            case_id,
            model,
            before[(case_id, model)],
            after[(case_id, model)],
            tolerances,
            policy.noise_floor,
        )
    ]
    notable = tuple(item for item in paired if item.pairing is not Pairing.COMPARED)
    keys = {item.key for item in paired}
    comparison = Comparison(
        baseline_id=baseline.id,
        current_id=current.id,
        policy=policy,
        paired=len(paired),
        only_in_baseline=sum(1 for key in before if key not in keys),
        only_in_current=sum(1 for key in after if key not in keys),
        pairings=notable,
        headline=WithheldHeadline(),
        changes=tuple(changes),
        added=tuple(key for key in after if key not in keys),
        removed=tuple(key for key in before if key not in keys),
        movements=_movements(baseline, current, before, after, paired),
    )
    # The headline needs the pairing counts, so it is decided on the comparison itself.
    headline = _headline(comparison, [before[k] for k in compared], [after[k] for k in compared])
    return replace(comparison, headline=headline)


def _movements(
    baseline: Run,
    current: Run,
    before: Mapping[Item, PooledItem],
    after: Mapping[Item, PooledItem],
    paired: Sequence[PairedItem],
) -> tuple[ItemMovement, ...]:
    """Every item a reader should see by name, in the current run's order, then removals."""
    found: list[ItemMovement] = []
    before_cases, after_cases = baseline.cases_by_id(), current.cases_by_id()
    for item in paired:
        key = item.key
        if not (_fingerprinted(before_cases, key[0]) and _fingerprinted(after_cases, key[0])):
            found.append(ItemMovement.between(key, "unverified", before[key], after[key]))
        elif item.pairing.compared and moved(before[key], after[key]):
            found.append(ItemMovement.between(key, "moved", before[key], after[key]))
    keys = {item.key for item in paired}
    found += [
        ItemMovement.between(key, "added", None, pooled)
        for key, pooled in after.items()
        if key not in keys
    ]
    found += [
        ItemMovement.between(key, "removed", pooled, None)
        for key, pooled in before.items()
        if key not in keys
    ]
    return tuple(found)


def _fingerprinted(cases: Mapping[str, CaseSnapshot], case_id: str) -> bool:
    snapshot = cases.get(case_id)
    return snapshot is not None and bool(snapshot.fingerprint)


def _headline(
    comparison: Comparison, before: list[PooledItem], after: list[PooledItem]
) -> Headline:
    ceiling = comparison.policy.max_excluded_share
    if comparison.paired == 0 or comparison.excluded_share > ceiling + EPSILON:
        return WithheldHeadline()
    old, new = pass_rate(before), pass_rate(after)
    headline = MeasuredHeadline(old[0], old[1], new[0], new[1])
    floor = comparison.policy.noise_floor
    if floor is not None and headline.delta is not None:
        headline = MeasuredHeadline(*old, *new, floor.label(None, headline.delta))
    return headline


def _headline_from(data: Mapping[str, Any]) -> Headline:
    if data["status"] == "withheld":
        # Earlier forms also stored the reason; it is read again from the counts.
        return WithheldHeadline()
    return MeasuredHeadline(
        int(data["before_passed"]),
        int(data["before_evaluated"]),
        int(data["after_passed"]),
        int(data["after_evaluated"]),
        NoiseLabel(data["noise"]),
    )


def _rate(passed: int, total: int) -> float | None:
    return passed / total if total else None
