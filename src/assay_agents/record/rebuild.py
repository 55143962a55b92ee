"""What a stored run needs to be graded again: its cases and its judge, built again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from assay_agents.errors import ConfigurationError
from assay_agents.record._typed import RecordError, read
from assay_agents.results import Run
from assay_agents.spec import JSON, Case
from assay_agents.spec.metrics import CheckDefinition
from assay_agents.spec.plan import case_metrics

if TYPE_CHECKING:
    # The judging package is loaded only to build a judge: reading a history never needs it.
    from assay_agents.judging.judge import Judge


def rebuilt_judge(run: Run, *, api_key: str | None = None) -> Judge:
    """The judge ``run`` was graded with, built again from the spec its settings keep.

    A run graded by a function judge (code, not a spec), by none, or stored before the spec
    was kept is a :class:`ConfigurationError` naming the run.
    """
    from assay_agents import judges

    spec = run.settings.judge_spec
    if spec is None:
        graded = "no judge" if run.settings.judge is None else f"judge {run.settings.judge!r}"
        raise ConfigurationError(
            f"run {run.id} keeps no judge it can build again (it was graded by {graded})"
        )
    return judges.from_spec(spec, api_key=api_key)


def rebuilt_cases(run: Run) -> tuple[Case, ...]:
    """The cases ``run`` ran, built again from its case snapshots' definitions.

    Planned without suite defaults, they give the fingerprints the run stored: a suite's
    default checks are the case's own checks here. A check that is code (a custom check) and
    HTTP fixtures (kept as hashes) cannot be built again: the first is a
    :class:`ConfigurationError` naming the metric, the second is left out.
    """
    return tuple(
        _case(snapshot.definition, f"cases[{index}].definition")
        for index, snapshot in enumerate(run.cases)
    )


def _case(definition: Mapping[str, JSON], path: str) -> Case:
    fields = dict(definition)
    metrics = fields.pop("metrics", None) or []
    fields.pop("api", None)
    try:
        bare = cast(Case, read(Case, fields, path))
    except RecordError as error:
        raise ConfigurationError(str(error)) from None
    # Metrics the case's own fields imply (expected actions, observation channels).
    implied = {metric.name for metric in case_metrics(bare, (), judged=False)}
    found_checks: list[CheckDefinition] = []
    found_criteria: list[str | CheckDefinition] = []
    for index, metric in enumerate(metrics if isinstance(metrics, list) else []):
        where = f"{path}.metrics[{index}]"
        if not isinstance(metric, Mapping) or metric.get("name") in implied:
            continue
        built = _metric(metric, where)
        if metric.get("kind") == "judge":
            found_criteria.append(built)
        else:
            found_checks.append(cast(CheckDefinition, built))
    return replace(bare, checks=tuple(found_checks), criteria=tuple(found_criteria))


def _metric(metric: Mapping[str, JSON], path: str) -> str | CheckDefinition:
    settings = metric.get("settings")
    if settings is None and metric.get("kind") == "judge":
        return str(metric.get("name"))  # a built-in criterion, named
    kind = settings.get("type") if isinstance(settings, Mapping) else None
    built = _buildable().get(str(kind))
    if built is None or not isinstance(settings, Mapping):
        raise ConfigurationError(
            f"{path}: {kind!r} is no check or criterion this version can build again "
            "(a custom check is code, kept by the suite, not by the run)"
        )
    values = {key: value for key, value in settings.items() if key != "type"}
    values.update(name=metric.get("name"), threshold=metric.get("threshold"))
    try:
        return cast(CheckDefinition, read(built, values, f"{path}.settings"))
    except RecordError as error:
        raise ConfigurationError(str(error)) from None


def _buildable() -> dict[str, type]:
    """Every built-in check and the judge criterion, by the ``type`` their settings name."""
    import assay_agents.checks  # noqa: F401  (defines every built-in check)
    from assay_agents.checks.base import Check
    from assay_agents.checks.custom import Custom
    from assay_agents.judging.criteria import Criterion

    found: dict[str, type] = {"Criterion": Criterion}
    pending: list[type] = [Check]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        if kind is not Check and kind is not Custom:
            found[kind.__name__] = kind
    return found
