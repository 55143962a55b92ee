"""A run against its baseline, as figures and typed facts, and the comparison a run stores.

Exclusion is as loud as the score: past ``max_excluded_share`` the headline is
:class:`WithheldHeadline`, and no pass-rate delta exists anywhere on the comparison, its
stored form included, because a figure over what is left of the corpus would read like a
measurement of the suite and would not be one. :func:`assay_agents.compare.compare` computes a
comparison; the sentences that read it are :mod:`assay_agents.report.prose`'s.

The stored form keeps, beside what a comparison is built from, the figures derived from it
(the ``pairing`` counts, the regression counts, the headline's rates): fields that are not
``__init__`` arguments, written for readers that do not rebuild the comparison and never read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from assay_agents.errors import SpecError
from assay_agents.results.changes import (
    DEFAULT_FLAKY_SHARE,
    Change,
    ChangeKind,
    Item,
    ItemMovement,
    NoiseFloor,
    NoiseLabel,
    PairedItem,
    Pairing,
)
from assay_agents.results.model_comparison import ModelComparison

#: Past this share of the paired corpus excluded, the headline is withheld.
DEFAULT_MAX_EXCLUDED_SHARE = 0.10
#: A judge score must move beyond this (0–1 scale: a tenth of a point on 1–5) to be drift.
DEFAULT_DRIFT_TOLERANCE = 0.025

_SHARES = ("tolerance", "drift_tolerance", "max_excluded_share", "flaky_share")


def _derived(key: str | None = None) -> Any:
    """A figure computed from the other fields: stored, never read, not compared."""
    return field(init=False, repr=False, compare=False, metadata={"key": key} if key else {})


def _in_pairing(name: str) -> dict[str, str]:
    return {"key": f"pairing.{name}"}


@dataclass(frozen=True, kw_only=True)
class ComparisonPolicy:
    """The rules a comparison applies; every share and tolerance is on the 0–1 scale.

    ``tolerance`` excuses a score movement (never a new failure or error);
    ``drift_tolerance`` is what a judge score may breathe by, independent of ``tolerance``;
    ``max_excluded_share`` is the exclusion ceiling above which the headline is withheld;
    ``flaky_share`` is the noise floor above which the corpus is reported as too flaky;
    ``noise_floor`` comes from a control run (``None``: every movement is unmeasured); a
    stored comparison keeps it beside the policy.
    """

    tolerance: float = 0.0
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE
    max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE
    flaky_share: float = DEFAULT_FLAKY_SHARE
    noise_floor: NoiseFloor | None = field(default=None, metadata={"stored": False})

    def __post_init__(self) -> None:
        for name in _SHARES:
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or not 0.0 <= value <= 1.0
            ):
                raise SpecError(f"must be a number in [0, 1], not {value!r}", field=name)


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredHeadline:
    """The pass rate over the compared items in both runs, and how far it moved."""

    record_tag: ClassVar[tuple[str, str]] = ("status", "measured")

    #: The baseline's pass rate over the compared items (``None``: nothing evaluated).
    before: float | None = _derived("pass_rate_before")
    #: The current run's pass rate over the compared items.
    after: float | None = _derived("pass_rate_after")
    #: After minus before, or ``None`` when either side evaluated nothing.
    delta: float | None = _derived()
    noise: NoiseLabel = NoiseLabel.UNMEASURED
    before_passed: int
    before_evaluated: int
    after_passed: int
    after_evaluated: int

    def __post_init__(self) -> None:
        before = _rate(self.before_passed, self.before_evaluated)
        after = _rate(self.after_passed, self.after_evaluated)
        object.__setattr__(self, "before", before)
        object.__setattr__(self, "after", after)
        delta = None if before is None or after is None else after - before
        object.__setattr__(self, "delta", delta)


@dataclass(frozen=True, slots=True)
class WithheldHeadline:
    """No figure: nothing was paired, or more of the paired corpus was excluded than allowed.

    Which of the two is the comparison's own counts (``paired``, ``excluded_share`` against
    ``policy.max_excluded_share``); :func:`assay_agents.report.prose.withheld_reason` says it. Its
    stored form is its status, and deliberately nothing else.
    """

    record_tag: ClassVar[tuple[str, str]] = ("status", "withheld")


Headline = MeasuredHeadline | WithheldHeadline


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """The current run against a baseline: pairing, defects, headline and changes.

    ``paired`` counts the items (a case on a model) both runs hold; ``excluded`` (broken
    pairings and corpus defects) and ``intended_changes`` are those not plainly compared.
    The fields are in the order the stored form has them: the pairing, defects and headline
    before the changes.
    """

    baseline_id: str
    current_id: str
    paired: int = field(metadata=_in_pairing("paired"))
    #: Items whose figures enter the comparison.
    compared: int = _derived("pairing.compared")
    #: How many items :attr:`excluded` holds.
    excluded_count: int = _derived("pairing.excluded")
    #: The share of the paired corpus excluded (0 when nothing was paired).
    excluded_share: float = _derived("pairing.excluded_share")
    max_excluded_share: float = _derived("pairing.max_excluded_share")
    only_in_baseline: int = field(metadata=_in_pairing("only_in_baseline"))
    only_in_current: int = field(metadata=_in_pairing("only_in_current"))
    #: Every item named as a change with its pass rates: moved, unverified, added, removed.
    movements: tuple[ItemMovement, ...] = ()
    #: The items only the current run holds (new cases, or cases on a new model).
    added: tuple[Item, ...] = ()
    #: The items only the baseline holds (removed cases, or a model no longer run).
    removed: tuple[Item, ...] = ()
    #: Items whose ``recorded`` parts differ: a problem with the corpus, never a result.
    corpus_defects: tuple[PairedItem, ...] = _derived()
    headline: Headline
    #: Items left out of every figure: broken pairings and corpus defects.
    excluded: tuple[PairedItem, ...]
    #: Items compared although they changed, because both runs declared the parts derived.
    intended_changes: tuple[PairedItem, ...]
    policy: ComparisonPolicy
    #: The control run's floor, when one was measured (the policy's, stored beside it).
    noise_floor: NoiseFloor | None = None
    #: Whether the floor is above the flaky share: the corpus is too flaky to measure.
    too_flaky: bool = _derived()
    #: The current run rescores the baseline: only the judge moved (every judge change is drift).
    judge_only: bool = field(default=False, metadata={"omit_empty": True})
    regression_count: int = _derived("regressions")
    signal_regression_count: int = _derived("signal_regressions")
    changes: tuple[Change, ...]

    def __post_init__(self) -> None:
        # The floor is the policy's; a stored comparison keeps it beside the policy.
        floor = self.policy.noise_floor if self.policy.noise_floor is not None else self.noise_floor
        if floor is not self.policy.noise_floor:
            object.__setattr__(self, "policy", replace(self.policy, noise_floor=floor))
        excluded = len(self.excluded)
        derived = {
            "noise_floor": floor,
            "compared": self.paired - excluded,
            "excluded_count": excluded,
            "excluded_share": excluded / self.paired if self.paired else 0.0,
            "max_excluded_share": self.policy.max_excluded_share,
            "corpus_defects": tuple(i for i in self.excluded if i.pairing is Pairing.DEFECT),
            "too_flaky": floor is not None and floor.too_flaky(self.policy.flaky_share),
            "regression_count": len(self.regressions),
            "signal_regression_count": len(self.signal_regressions),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    # -- pairing ---------------------------------------------------------------------------

    @property
    def pairings(self) -> tuple[PairedItem, ...]:
        """The items not plainly compared: excluded, then intended changes."""
        return (*self.excluded, *self.intended_changes)

    @property
    def items_compared(self) -> int:
        """Alias of :attr:`compared`."""
        return self.compared

    @property
    def tolerance(self) -> float:
        """The score tolerance the comparison applied."""
        return self.policy.tolerance

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


@dataclass(frozen=True, slots=True)
class StoredComparison:
    """What a completed run stores of its comparisons: against its baseline, between models.

    Stored once when the run completes, so a report rebuilt later renders what the run
    recorded (the same intervals, the same noise labels) instead of recomputing them.
    """

    baseline: Comparison | None = None
    models: ModelComparison | None = None

    @staticmethod
    def of(baseline: Comparison | None, models: ModelComparison | None) -> StoredComparison | None:
        """Both, or ``None`` when there is neither."""
        return None if baseline is None and models is None else StoredComparison(baseline, models)


def _rate(passed: int, total: int) -> float | None:
    return passed / total if total else None
