"""What a comparison names: the changes, the noise floor they are read against, the items.

Values only: :mod:`assay_agents.compare` computes them, :mod:`assay_agents.record` stores them and
:mod:`assay_agents.report.prose` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

#: Differences smaller than this are floating-point noise, not movement.
EPSILON = 1e-9

#: Above this floor the corpus is reported as too flaky to measure (0–1 scale).
DEFAULT_FLAKY_SHARE = 0.3

#: An item: a case on a model (``None``: the run named no model).
Item = tuple[str, str | None]


class ChangeKind(StrEnum):
    """What moved between the baseline and the current run, in report order."""

    DETERMINISTIC_REGRESSION = "deterministic_regression"
    NEW_ERROR = "new_error"
    NEWLY_FAILED_MINIMUM = "newly_failed_minimum"
    SCORE_DECREASE = "score_decrease"
    JUDGE_DRIFT = "judge_drift"
    IMPROVEMENT = "improvement"


class NoiseLabel(StrEnum):
    """How a movement compares with the noise floor."""

    WITHIN = "within_noise"
    BEYOND = "beyond_noise"
    UNMEASURED = "unmeasured"

    @property
    def is_signal(self) -> bool:
        """Only a movement within a measured floor is excused."""
        return self is not NoiseLabel.WITHIN


@dataclass(frozen=True, slots=True)
class Change:
    """One metric of one item that moved, with the evidence on both sides, as figures.

    ``before`` and ``after`` are the pooled scores; ``movement`` is the largest shift of the
    score, pass share or error share (the unit of the noise floor); ``noise`` says how it
    compares with the floor. The rest is what a report says about it
    (:func:`assay_agents.report.prose.change_detail` writes it): ``reason`` (why the check failed,
    or the error), the passing (and, for a new error, ``errored``) samples on each side, the
    minimum score a judge fell below, and the tolerances a judge score moved beyond. A change
    stored by an earlier version has none of them (``None``).
    """

    kind: ChangeKind
    case_id: str
    model: str | None
    metric: str
    metric_kind: str
    category: str
    before: float | None
    after: float | None
    movement: float = 0.0
    noise: NoiseLabel = NoiseLabel.UNMEASURED
    reason: str | None = None
    passed_before: int | None = None
    samples_before: int | None = None
    passed_after: int | None = None
    samples_after: int | None = None
    errored: int | None = None
    threshold: float | None = None
    tolerance: float | None = None
    drift_tolerance: float | None = None
    #: Stored empty: earlier versions require it when they read a change; a report fills it.
    detail: str = field(default="", init=False, repr=False, compare=False)

    @property
    def is_regression(self) -> bool:
        """Everything but improvements is a regression, and drift only when it fell."""
        if self.kind is ChangeKind.IMPROVEMENT:
            return False
        if self.kind is ChangeKind.JUDGE_DRIFT:
            return (self.after or 0.0) < (self.before or 0.0) or self._fewer_passed
        return True

    @property
    def _fewer_passed(self) -> bool:
        """Whether a smaller share of samples passed (a rescore's minimum score newly failed)."""
        if None in (self.passed_before, self.samples_before, self.passed_after):
            return False
        if not self.samples_before or not self.samples_after:
            return False
        before = (self.passed_before or 0) / self.samples_before
        return (self.passed_after or 0) / self.samples_after < before - EPSILON

    @property
    def is_signal(self) -> bool:
        """A regression a gate fails on: beyond the noise floor, or with none measured."""
        return self.is_regression and self.noise.is_signal


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemMovement:
    """One item named as a change, with its pass rate on each side that holds it.

    ``kind`` is ``moved`` (its pass rate changed), ``unverified`` (paired by id alone: one
    run holds no definition fingerprint for it), ``added`` or ``removed``. Rates are
    (passed, evaluated) samples; ``None`` on the side that does not hold the item.
    """

    case_id: str
    model: str | None = None
    kind: str
    before: tuple[int, int] | None = None
    after: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """The largest movement of an unchanged system against itself.

    ``metrics`` maps each metric (and ``"(agent)"`` for agent errors) to the largest movement
    of any item's pooled score, pass share or error share; ``pass_rate`` is the largest
    movement of the run's pass rate, overall and per model. ``control`` names the two runs.
    :func:`assay_agents.compare.measure_noise` measures one.
    """

    control: tuple[str, str]
    pass_rate: float
    metrics: dict[str, float] = field(default_factory=dict)
    #: The items whose pass rate moved between the two control runs, by name.
    moved: tuple[ItemMovement, ...] = ()

    @property
    def largest(self) -> float:
        """The largest movement of anything the floor measured."""
        return max([self.pass_rate, *self.metrics.values()])

    def label(self, metric: str | None, moved: float) -> NoiseLabel:
        """Label a movement of ``metric`` (``None``: the pass rate) against the floor."""
        floor = self.pass_rate if metric is None else self.metrics.get(metric)
        if floor is None:
            return NoiseLabel.UNMEASURED
        return NoiseLabel.WITHIN if abs(moved) <= floor + EPSILON else NoiseLabel.BEYOND

    def too_flaky(self, share: float = DEFAULT_FLAKY_SHARE) -> bool:
        """Whether the floor itself is the finding: more movement than ``share`` allows."""
        return self.largest > share + EPSILON


class Pairing(StrEnum):
    """What became of one paired item."""

    COMPARED = "compared"
    INTENDED = "intended_change"
    BROKEN = "broken_pairing"
    DEFECT = "corpus_defect"

    @property
    def compared(self) -> bool:
        """Whether the item enters the comparison's figures."""
        return self in (Pairing.COMPARED, Pairing.INTENDED)


@dataclass(frozen=True, slots=True)
class ChangedPart:
    """One part of a case definition that differs between the runs, and who wrote it."""

    part: str
    provenance: str
    baseline: str
    current: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedItem:
    """An item present in both runs, with the verdict on its pairing."""

    case_id: str
    model: str | None = None
    pairing: Pairing
    parts: tuple[ChangedPart, ...] = ()

    @property
    def key(self) -> Item:
        """(case, model)."""
        return (self.case_id, self.model)

    def part_names(self, provenance: str | None = None) -> list[str]:
        """The changed parts, optionally only those of one effective provenance."""
        return [p.part for p in self.parts if provenance is None or p.provenance == provenance]
