"""What moved between two runs on one item, and what kind of news it is.

Two things look like "the evaluation got worse" and are kept apart:

* a **deterministic regression**: a check the item used to satisfy that it no longer does
  (on a share of its samples). Behaviour changed.
* **judge drift**: the deterministic behaviour is the same, and a judge score moved beyond
  both the tolerance and the drift tolerance. The measurement moved, not the agent.

New errors and newly failed minimum scores (a judge criterion falling below its threshold)
are regressions too, whatever the tolerance: tolerance only ever excuses a score movement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from assay.compare._pooling import EPSILON, Pooled, PooledItem, movement
from assay.compare.noise import NoiseFloor, NoiseLabel
from assay.spec._json import known_fields


class ChangeKind(StrEnum):
    """What moved between the baseline and the current run, in report order."""

    DETERMINISTIC_REGRESSION = "deterministic_regression"
    NEW_ERROR = "new_error"
    NEWLY_FAILED_MINIMUM = "newly_failed_minimum"
    SCORE_DECREASE = "score_decrease"
    JUDGE_DRIFT = "judge_drift"
    IMPROVEMENT = "improvement"


@dataclass(frozen=True, slots=True)
class Change:
    """One metric of one item that moved, with the evidence on both sides.

    ``before`` and ``after`` are the pooled scores; ``movement`` is the largest shift of the
    score, pass share or error share (the unit of the noise floor); ``noise`` says how it
    compares with the floor.
    """

    kind: ChangeKind
    case_id: str
    model: str | None
    metric: str
    metric_kind: str
    category: str
    before: float | None
    after: float | None
    detail: str
    movement: float = 0.0
    noise: NoiseLabel = NoiseLabel.UNMEASURED

    @property
    def is_regression(self) -> bool:
        """Everything but improvements is a regression, and drift only when it fell."""
        if self.kind is ChangeKind.IMPROVEMENT:
            return False
        if self.kind is ChangeKind.JUDGE_DRIFT:
            return (self.after or 0.0) < (self.before or 0.0)
        return True

    @property
    def is_signal(self) -> bool:
        """A regression a gate fails on: beyond the noise floor, or with none measured."""
        return self.is_regression and self.noise.is_signal

    def to_json(self) -> dict[str, Any]:
        """The portable form stored with the run and written by reports."""
        data = asdict(self)
        data["kind"] = self.kind.value
        data["noise"] = self.noise.value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Change:
        """Rebuild a change from its stored form."""
        return cls(
            **{
                **known_fields(cls, data),
                "kind": ChangeKind(data["kind"]),
                "noise": NoiseLabel(data.get("noise", NoiseLabel.UNMEASURED.value)),
            }
        )


@dataclass(frozen=True, slots=True)
class Tolerances:
    """How far a score may move unreported: checks by ``score``, judges by the larger of both."""

    score: float
    drift: float

    @property
    def judge(self) -> float:
        """A judge score must move beyond both tolerances to count."""
        return max(self.score, self.drift)


def item_changes(
    case_id: str,
    model: str | None,
    old: PooledItem,
    new: PooledItem,
    tolerances: Tolerances,
    floor: NoiseFloor | None,
) -> list[Change]:
    """Every metric of one item that moved, labelled against the noise floor."""
    same = same_behaviour(old, new, tolerances.score)
    changes: list[Change] = []
    for name, after in new.metrics.items():
        before = old.metrics.get(name)
        if before is None:
            continue
        found = classify(before, after, tolerances, same)
        if found is None:
            continue
        kind, detail = found
        moved = movement(before, after)
        noise = NoiseLabel.UNMEASURED if floor is None else floor.label(name, moved)
        changes.append(
            Change(
                kind,
                case_id,
                model,
                name,
                after.kind,
                after.category,
                before.score,
                after.score,
                detail,
                moved,
                noise,
            )
        )
    return changes


def same_behaviour(old: PooledItem, new: PooledItem, tolerance: float) -> bool:
    """Whether the agent and every deterministic check did the same in both runs."""
    names = [n for n, m in new.metrics.items() if m.kind != "judge"]
    if names != [n for n, m in old.metrics.items() if m.kind != "judge"]:
        return False
    return all(_unchanged(old.metrics[name], new.metrics[name], tolerance) for name in names)


def _unchanged(old: Pooled, new: Pooled, tolerance: float) -> bool:
    return (
        abs(old.passed - new.passed) <= EPSILON
        and abs(old.errors - new.errors) <= EPSILON
        and abs(old.score - new.score) <= tolerance + EPSILON
    )


def classify(
    old: Pooled, new: Pooled, tolerances: Tolerances, same: bool
) -> tuple[ChangeKind, str] | None:
    """The kind of one metric's movement and its detail, or ``None`` when it did not move."""
    if new.errors > old.errors + EPSILON:
        return ChangeKind.NEW_ERROR, _error_detail(new)
    if new.kind == "judge":
        return _judged(old, new, tolerances, same)
    drop = old.score - new.score
    if new.passed < old.passed - EPSILON:
        return ChangeKind.DETERMINISTIC_REGRESSION, _failing_detail(old, new)
    if drop > tolerances.score + EPSILON:
        return ChangeKind.SCORE_DECREASE, f"fell by {drop:.3f}"
    if _better(old, new) or -drop > tolerances.score + EPSILON:
        return ChangeKind.IMPROVEMENT, _improved_detail(old, new)
    return None


def _judged(
    old: Pooled, new: Pooled, tolerances: Tolerances, same: bool
) -> tuple[ChangeKind, str] | None:
    if new.passed < old.passed - EPSILON:
        return ChangeKind.NEWLY_FAILED_MINIMUM, (
            f"{_because(new)}below its minimum score {new.threshold:.3f} ({_shares(old, new)})"
        )
    moved = new.score - old.score
    if abs(moved) > tolerances.judge + EPSILON:
        direction = "fell" if moved < 0 else "rose"
        beyond = (
            f"beyond tolerance {tolerances.score:.3f} and drift tolerance {tolerances.drift:.3f}"
        )
        if same:
            return ChangeKind.JUDGE_DRIFT, (
                f"same deterministic behaviour; the judge score "
                f"{direction} by {abs(moved):.3f}, {beyond}"
            )
        if moved < 0:
            return ChangeKind.SCORE_DECREASE, f"fell by {-moved:.3f}, {beyond}"
        return ChangeKind.IMPROVEMENT, f"rose by {moved:.3f}"
    if _better(old, new):
        return ChangeKind.IMPROVEMENT, _improved_detail(old, new)
    return None


def _better(old: Pooled, new: Pooled) -> bool:
    return new.passed > old.passed + EPSILON or new.errors < old.errors - EPSILON


def _error_detail(new: Pooled) -> str:
    error = new.error or "error"
    if new.samples == 1:
        return error
    return f"{error} (errored on {_count(new.errors, new.samples)} of {new.samples} samples)"


def _failing_detail(old: Pooled, new: Pooled) -> str:
    what = "the agent" if new.kind == "agent" else "the check"
    return f"{_because(new)}{what} passed {_shares(old, new)}"


def _improved_detail(old: Pooled, new: Pooled) -> str:
    if abs(new.passed - old.passed) > EPSILON:
        return f"passed {_shares(old, new)}"
    return f"rose by {new.score - old.score:.3f}"


def _because(new: Pooled) -> str:
    return f"{new.reason}; " if new.reason else ""


def _shares(old: Pooled, new: Pooled) -> str:
    return (
        f"{_count(old.passed, old.samples)}/{old.samples} samples before, "
        f"{_count(new.passed, new.samples)}/{new.samples} now"
    )


def _count(share: float, samples: int) -> int:
    return round(share * samples)
