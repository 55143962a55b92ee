"""What moved between two runs on one item, and what kind of news it is.

Two things look like "the evaluation got worse" and are kept apart:

* a **deterministic regression**: a check the item used to satisfy that it no longer does
  (on a share of its samples). Behaviour changed.
* **judge drift**: the deterministic behaviour is the same, and a judge score moved beyond
  both the tolerance and the drift tolerance. The measurement moved, not the agent.

New errors and newly failed minimum scores (a judge criterion falling below its threshold)
are regressions too, whatever the tolerance: tolerance only ever excuses a score movement.

A **rescore** (``judge_only``) grades the baseline's recorded behaviour again: no agent ran,
so whatever a judge criterion does (a minimum score newly failed or newly met, a score moved
beyond the tolerances) is judge drift, never a regression of the agent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from assay_agents.compare.pooling import Pooled, PooledItem, movement
from assay_agents.results.changes import EPSILON, Change, ChangeKind, NoiseFloor, NoiseLabel


@dataclass(frozen=True, slots=True)
class Evidence:
    """The figures behind one change, beside its kind (the fields :class:`Change` carries)."""

    reason: str | None = None
    passed_before: int | None = None
    samples_before: int | None = None
    passed_after: int | None = None
    samples_after: int | None = None
    errored: int | None = None
    threshold: float | None = None
    tolerance: float | None = None
    drift_tolerance: float | None = None


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
    *,
    judge_only: bool = False,
) -> list[Change]:
    """Every metric of one item that moved, labelled against the noise floor.

    ``judge_only``: the current run rescores the baseline (see the module).
    """
    same = same_behaviour(old, new, tolerances.score)
    changes: list[Change] = []
    for name, after in new.metrics.items():
        before = old.metrics.get(name)
        if before is None:
            continue
        found = classify(before, after, tolerances, same, judge_only=judge_only)
        if found is None:
            continue
        kind, evidence = found
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
                moved,
                noise,
                **asdict(evidence),
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
    old: Pooled, new: Pooled, tolerances: Tolerances, same: bool, *, judge_only: bool = False
) -> tuple[ChangeKind, Evidence] | None:
    """The kind of one metric's movement and its evidence, or ``None`` when it did not move."""
    if new.errors > old.errors + EPSILON:
        return ChangeKind.NEW_ERROR, _errored(new)
    if new.kind == "judge" and judge_only:
        return _drifted(old, new, tolerances)
    if new.kind == "judge":
        return _judged(old, new, tolerances, same)
    drop = old.score - new.score
    if new.passed < old.passed - EPSILON:
        return ChangeKind.DETERMINISTIC_REGRESSION, _shares(old, new, reason=new.reason)
    if drop > tolerances.score + EPSILON:
        return ChangeKind.SCORE_DECREASE, Evidence()
    if _better(old, new) or -drop > tolerances.score + EPSILON:
        return ChangeKind.IMPROVEMENT, _improved(old, new)
    return None


def _judged(
    old: Pooled, new: Pooled, tolerances: Tolerances, same: bool
) -> tuple[ChangeKind, Evidence] | None:
    if new.passed < old.passed - EPSILON:
        minimum = _shares(old, new, reason=new.reason)
        return ChangeKind.NEWLY_FAILED_MINIMUM, replace(minimum, threshold=new.threshold)
    moved = new.score - old.score
    if abs(moved) > tolerances.judge + EPSILON:
        beyond = Evidence(tolerance=tolerances.score, drift_tolerance=tolerances.drift)
        if same:
            return ChangeKind.JUDGE_DRIFT, beyond
        if moved < 0:
            return ChangeKind.SCORE_DECREASE, beyond
        return ChangeKind.IMPROVEMENT, Evidence()
    if _better(old, new):
        return ChangeKind.IMPROVEMENT, _improved(old, new)
    return None


def _drifted(
    old: Pooled, new: Pooled, tolerances: Tolerances
) -> tuple[ChangeKind, Evidence] | None:
    """A rescored judge criterion: any movement is the judge's (its shares when they moved)."""
    shares_moved = abs(new.passed - old.passed) > EPSILON
    if not shares_moved and abs(new.score - old.score) <= tolerances.judge + EPSILON:
        return None if not _better(old, new) else (ChangeKind.JUDGE_DRIFT, Evidence())
    shares = _shares(old, new, reason=new.reason) if shares_moved else Evidence()
    beyond = replace(
        shares,
        threshold=new.threshold if shares_moved else None,
        tolerance=tolerances.score,
        drift_tolerance=tolerances.drift,
    )
    return ChangeKind.JUDGE_DRIFT, beyond


def _better(old: Pooled, new: Pooled) -> bool:
    return new.passed > old.passed + EPSILON or new.errors < old.errors - EPSILON


def _errored(new: Pooled) -> Evidence:
    return Evidence(
        reason=new.error, errored=_count(new.errors, new.samples), samples_after=new.samples
    )


def _improved(old: Pooled, new: Pooled) -> Evidence:
    return _shares(old, new) if abs(new.passed - old.passed) > EPSILON else Evidence()


def _shares(old: Pooled, new: Pooled, *, reason: str | None = None) -> Evidence:
    return Evidence(
        reason=reason,
        passed_before=_count(old.passed, old.samples),
        samples_before=old.samples,
        passed_after=_count(new.passed, new.samples),
        samples_after=new.samples,
    )


def _count(share: float, samples: int) -> int:
    return round(share * samples)
