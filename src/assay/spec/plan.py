"""The metric plan of a suite: which metrics each case calculates, and the fingerprints.

A plan is fixed before any agent runs, so the fingerprint covers the metrics actually
calculated: a judged run and an unjudged run of the same cases are never each other's baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.errors import SpecError
from assay.spec._json import JSON, digest
from assay.spec.case import Case
from assay.spec.metrics import JUDGE_CRITERIA, CheckDefinition, PlannedMetric

#: The metric implied by ``expected_actions`` on a case.
ACTIONS_METRIC = "actions"
#: Judge criteria a case with a reference gets by default when a judge is present.
DEFAULT_JUDGE_THRESHOLDS: dict[str, float] = {"semantic_accuracy": 0.9, "answer_relevancy": 0.9}


@dataclass(frozen=True, slots=True)
class CasePlan:
    """A case with the metrics it will calculate and its item fingerprint."""

    case: Case
    position: int
    metrics: tuple[PlannedMetric, ...]
    fingerprint: str

    def snapshot(self) -> dict[str, JSON]:
        """The definition this run used, stored so later reports never read today's suite."""
        described = self.case.definition()
        described["metrics"] = [metric.definition() for metric in self.metrics]
        return described


@dataclass(frozen=True, slots=True)
class SuitePlan:
    """Every case's plan plus the suite fingerprint that baselines are matched on."""

    suite: str
    version: str | None
    judged: bool
    cases: tuple[CasePlan, ...]
    fingerprint: str

    def case(self, case_id: str) -> CasePlan:
        """The plan of one case by id."""
        for planned in self.cases:
            if planned.case.id == case_id:
                return planned
        raise KeyError(case_id)


def plan_suite(
    name: str,
    version: str | None,
    cases: Sequence[Case],
    default_checks: Sequence[CheckDefinition],
    *,
    judged: bool,
) -> SuitePlan:
    """Plan every case and hash the suite definition (cases sorted by id: order is not meaning)."""
    planned = tuple(
        plan_case(case, position, default_checks, judged=judged)
        for position, case in enumerate(cases)
    )
    items = sorted((plan.case.id, plan.fingerprint) for plan in planned)
    identity: JSON = {
        "suite": name,
        "version": version,
        "items": [[case_id, fingerprint] for case_id, fingerprint in items],
    }
    return SuitePlan(name, version, judged, planned, digest(identity))


def plan_case(
    case: Case, position: int, default_checks: Sequence[CheckDefinition], *, judged: bool
) -> CasePlan:
    """Decide the metrics of one case (see :func:`select_metrics`) and fingerprint it."""
    metrics = select_metrics(case, default_checks, judged=judged)
    definition = case.definition()
    definition["metrics"] = [metric.definition() for metric in metrics]
    return CasePlan(case, position, metrics, digest(definition))


def select_metrics(
    case: Case, default_checks: Sequence[CheckDefinition], *, judged: bool
) -> tuple[PlannedMetric, ...]:
    """The metrics of a case, in a stable order.

    - the case's own checks always run, and so does the ordered-actions check that
      ``expected_actions`` implies;
    - suite default checks run for a case without ``minimum_scores``, or when it names them;
    - judge criteria run only with a judge: those named in ``minimum_scores``, or, without
      ``minimum_scores``, semantic accuracy and answer relevancy at 0.9 when the case has a
      reference;
    - ``minimum_scores`` overrides thresholds; a name that matches nothing is a spec error.
    """
    minimum = case.minimum_scores
    chosen: list[PlannedMetric] = [_from_check(check) for check in case.checks]
    names = {metric.name for metric in chosen}
    if case.expected_actions is not None and ACTIONS_METRIC not in names:
        chosen.append(PlannedMetric(ACTIONS_METRIC, "check", "actions", 1.0))
        names.add(ACTIONS_METRIC)
    for check in default_checks:
        if check.name not in names and (minimum is None or check.name in minimum):
            chosen.append(_from_check(check))
            names.add(check.name)
    chosen.extend(_judge_metrics(case, names, judged=judged))
    _refuse_duplicates(case, chosen)
    if minimum is not None:
        chosen = _apply_minimum_scores(case, chosen, minimum, judged=judged)
    return tuple(chosen)


def _from_check(check: CheckDefinition) -> PlannedMetric:
    return PlannedMetric(check.name, "check", check.category, check.threshold, check)


def _judge_metrics(case: Case, taken: set[str], *, judged: bool) -> list[PlannedMetric]:
    if not judged:
        return []
    if case.minimum_scores is None:
        wanted = DEFAULT_JUDGE_THRESHOLDS if case.reference is not None else {}
    else:
        wanted = {
            name: threshold
            for name, threshold in case.minimum_scores.items()
            if name in JUDGE_CRITERIA and name not in taken
        }
    return [PlannedMetric(name, "judge", "judge", threshold) for name, threshold in wanted.items()]


def _refuse_duplicates(case: Case, metrics: Sequence[PlannedMetric]) -> None:
    seen: set[str] = set()
    for metric in metrics:
        if metric.name in seen:
            raise SpecError(f"two checks are named {metric.name!r}; give one a name= of its own",
                            case=case.id, field="checks")
        seen.add(metric.name)


def _apply_minimum_scores(
    case: Case,
    metrics: list[PlannedMetric],
    minimum: dict[str, float],
    *,
    judged: bool,
) -> list[PlannedMetric]:
    by_name = {metric.name: metric for metric in metrics}
    for name in minimum:
        if name not in by_name and name not in JUDGE_CRITERIA:
            available = sorted(by_name) or ["none"]
            raise SpecError(
                f"names no metric of this case (available: {', '.join(available)}; "
                f"judge criteria: {', '.join(sorted(JUDGE_CRITERIA))})",
                case=case.id,
                field=f"minimum_scores.{name}",
            )
    return [_with_threshold(metric, minimum.get(metric.name)) for metric in metrics]


def _with_threshold(metric: PlannedMetric, threshold: float | None) -> PlannedMetric:
    if threshold is None:
        return metric
    check = metric.check.with_threshold(threshold) if metric.check is not None else None
    return PlannedMetric(metric.name, metric.kind, metric.category, threshold, check)
