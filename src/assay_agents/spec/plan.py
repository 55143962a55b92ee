"""The metric plan of a suite: which metrics each case calculates, and the fingerprints.

A plan is fixed before any agent runs, so the fingerprint covers the metrics actually
calculated: a judged run and an unjudged run of the same cases are never each other's baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from assay_agents.errors import SpecError
from assay_agents.spec.case import Case
from assay_agents.spec.json_data import JSON, digest
from assay_agents.spec.metrics import (
    JUDGE_CRITERIA,
    JUDGE_THRESHOLDS,
    CheckDefinition,
    PlannedMetric,
    metric_kind,
)
from assay_agents.spec.observation import channel_metrics

#: A judge criterion as a case or suite declares it: a built-in name or a definition.
Criterion = str | CheckDefinition

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

    def snapshot(self, shared: SharedDefinitions | None = None) -> dict[str, JSON]:
        """The definition this run used, stored so later reports never read today's suite.

        With ``shared``, a metric defined alike in many cases (a suite's default checks) is
        described once and that description shared: the snapshots are read, never changed.
        """
        described = self.case.definition()
        described["metrics"] = [
            metric.definition() if shared is None else shared.of(metric) for metric in self.metrics
        ]
        if self.case.provenance:
            # Stored for comparisons, but not fingerprinted: declaring where a part came from
            # does not change what the case asks, so it never breaks a baseline.
            described["provenance"] = dict(self.case.provenance)
        return described


class SharedDefinitions:
    """Metric descriptions made once per distinct metric, for the snapshots of many cases."""

    def __init__(self) -> None:
        self._made: dict[tuple[object, ...], dict[str, JSON]] = {}
        # The checks keyed by identity are kept alive, so no id is reused meanwhile.
        self._checks: list[object] = []

    def of(self, metric: PlannedMetric) -> dict[str, JSON]:
        """The description of ``metric``, the same object for every metric defined alike."""
        threshold = (type(metric.threshold), metric.threshold)  # 1 and 1.0 are stored apart
        key = (metric.name, metric.kind, metric.category, threshold, id(metric.check))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = metric.definition()
            self._checks.append(metric.check)
        return made


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
    default_criteria: Sequence[Criterion] = (),
) -> SuitePlan:
    """Plan every case and hash the suite definition (cases sorted by id: order is not meaning)."""
    defaults = _Defaults.of(default_checks, default_criteria)
    planned = tuple(
        plan_case(case, position, defaults, judged=judged) for position, case in enumerate(cases)
    )
    items = sorted((plan.case.id, plan.fingerprint) for plan in planned)
    identity: JSON = {
        "suite": name,
        "version": version,
        "items": [[case_id, fingerprint] for case_id, fingerprint in items],
    }
    return SuitePlan(name, version, judged, planned, digest(identity))


@dataclass(frozen=True, slots=True)
class _Defaults:
    checks: tuple[CheckDefinition, ...]
    criteria: tuple[Criterion, ...]
    #: The planned metric of each, made once: every case that runs one shares it.
    planned: tuple[PlannedMetric, ...] = ()

    @classmethod
    def of(cls, checks: Sequence[CheckDefinition], criteria: Sequence[Criterion]) -> _Defaults:
        """The suite's defaults with their planned metrics."""
        planned = tuple(_planned(item) for item in (*checks, *criteria))
        return cls(tuple(checks), tuple(criteria), planned)


def plan_case(case: Case, position: int, defaults: _Defaults, *, judged: bool) -> CasePlan:
    """Decide the metrics of one case (see :func:`select_metrics`) and fingerprint it."""
    metrics = select_metrics(case, defaults, judged=judged)
    definition = case.definition()
    definition["metrics"] = [metric.definition() for metric in metrics]
    return CasePlan(case, position, metrics, digest(definition))


def case_metrics(
    case: Case,
    default_checks: Sequence[CheckDefinition],
    default_criteria: Sequence[Criterion] = (),
    *,
    judged: bool,
) -> tuple[PlannedMetric, ...]:
    """The metrics a case would have in a suite with these defaults, without fingerprinting."""
    return next(metrics_of_cases([case], default_checks, default_criteria, judged=judged))


def metrics_of_cases(
    cases: Iterable[Case],
    default_checks: Sequence[CheckDefinition],
    default_criteria: Sequence[Criterion] = (),
    *,
    judged: bool,
) -> Iterator[tuple[PlannedMetric, ...]]:
    """:func:`case_metrics` of each case, the suite's defaults planned once for them all."""
    defaults = _Defaults.of(default_checks, default_criteria)
    for case in cases:
        yield select_metrics(case, defaults, judged=judged)


def select_metrics(case: Case, defaults: _Defaults, *, judged: bool) -> tuple[PlannedMetric, ...]:
    """The metrics of a case, in a stable order: checks first, then judge criteria.

    - the case's own checks and criteria always run (criteria only with a judge), and so does
      the ordered-actions check that ``expected_actions`` implies;
    - suite default checks and criteria run for a case without ``minimum_scores``, or when it
      names them;
    - with a judge, a case without ``minimum_scores`` and without suite default criteria gets
      semantic accuracy and answer relevancy at 0.9 when it has a reference, and task
      completion at 0.7 when it has none; a case with ``minimum_scores`` gets the built-in
      criteria those name;
    - ``minimum_scores`` overrides thresholds; a name that matches nothing is a spec error.
    """
    minimum = case.minimum_scores
    chosen = [_planned(item) for item in (*case.checks, *case.criteria)]
    if case.expected_actions is not None and ACTIONS_METRIC not in _names(chosen):
        chosen.append(PlannedMetric(ACTIONS_METRIC, "check", "actions", 1.0))
    # Observation channels and forbid lists, like expected_actions, always run when declared.
    chosen.extend(channel_metrics(case.observation, case.forbid))
    for planned in defaults.planned:
        if planned.name not in _names(chosen) and (minimum is None or planned.name in minimum):
            chosen.append(planned)
    chosen.extend(_implicit_criteria(case, _names(chosen), bool(defaults.criteria)))
    _refuse_duplicates(case, chosen)
    _refuse_missing_reference(case, chosen)
    if minimum is not None:
        defaulted = {metric.name for metric in defaults.planned}
        chosen = _apply_minimum_scores(case, chosen, minimum, defaulted)
    if not judged:
        # Without a judge, judge criteria are not calculated and nothing stands in for them.
        chosen = [metric for metric in chosen if metric.kind == "check"]
    return tuple(sorted(chosen, key=lambda metric: metric.kind != "check"))


def _names(metrics: Sequence[PlannedMetric]) -> set[str]:
    return {metric.name for metric in metrics}


def _planned(item: Criterion) -> PlannedMetric:
    if isinstance(item, str):
        return PlannedMetric(item, "judge", "judge", JUDGE_THRESHOLDS[item])
    return PlannedMetric(item.name, metric_kind(item), item.category, item.threshold, item)


def _implicit_criteria(case: Case, taken: set[str], has_defaults: bool) -> list[PlannedMetric]:
    if case.minimum_scores is None:
        # Every answer is graded by default: against the reference when there is one,
        # otherwise on whether it completed the task.
        fallback = (
            DEFAULT_JUDGE_THRESHOLDS
            if case.reference is not None
            else {"task_completion": JUDGE_THRESHOLDS["task_completion"]}
        )
        wanted = {} if has_defaults else fallback
    else:
        wanted = {
            name: JUDGE_THRESHOLDS[name] for name in case.minimum_scores if name in JUDGE_CRITERIA
        }
    return [
        PlannedMetric(name, "judge", "judge", threshold)
        for name, threshold in wanted.items()
        if name not in taken
    ]


def _refuse_missing_reference(case: Case, metrics: Sequence[PlannedMetric]) -> None:
    # A check that compares with the expected answer cannot run on a case without one.
    if case.reference is not None:
        return
    for metric in metrics:
        if getattr(metric.check, "needs_reference", False):
            raise SpecError(
                f"{metric.name} compares the answer with the expected answer; "
                "give this case expected=",
                case=case.id,
                field="expected",
            )


def _refuse_duplicates(case: Case, metrics: Sequence[PlannedMetric]) -> None:
    seen: set[str] = set()
    for metric in metrics:
        if metric.name in seen:
            raise SpecError(
                f"two checks are named {metric.name!r}; give one a name= of its own",
                case=case.id,
                field="checks",
            )
        seen.add(metric.name)


def _apply_minimum_scores(
    case: Case,
    metrics: list[PlannedMetric],
    minimum: dict[str, float],
    defaulted: set[str],
) -> list[PlannedMetric]:
    by_name = {metric.name: metric for metric in metrics}
    for name in minimum:
        if name not in by_name and name not in JUDGE_CRITERIA:
            raise SpecError(
                _unknown_metric(name, set(by_name) | defaulted),
                case=case.id,
                field=f"minimum_scores.{name}",
            )
    return [_with_threshold(metric, minimum.get(metric.name)) for metric in metrics]


def _unknown_metric(name: str, available: set[str]) -> str:
    """What a ``minimum_scores`` name that matches nothing could have been."""
    import difflib

    near = difflib.get_close_matches(name, [*available, *JUDGE_CRITERIA], n=1, cutoff=0.6)
    hint = f"did you mean {near[0]!r}? " if near else ""
    checks = ", ".join(sorted(available)) or "no check (give the case or the suite checks=)"
    return (
        f"names no metric of this case ({hint}available: {checks}; "
        f"judge criteria: {', '.join(sorted(JUDGE_CRITERIA))})"
    )


def _with_threshold(metric: PlannedMetric, threshold: float | None) -> PlannedMetric:
    if threshold is None:
        return metric
    check = metric.check.with_threshold(threshold) if metric.check is not None else None
    return PlannedMetric(metric.name, metric.kind, metric.category, threshold, check)
