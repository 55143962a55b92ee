"""One sample in three steps, for an executor that runs them apart (on a cluster).

The engine executes a sample in one go: the agent and its checks, the judge criteria, then
the diagnosis of a failing sample. An executor that spreads samples over machines runs the
agent where there is room (:func:`execute_unjudged`), grades the criteria in a step of its
own (:func:`judge_deferred`), so that an agent never waits on the judge, and diagnoses
where the run's refinement limit lives (:func:`concluded`). The three give the result the
engine would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from assay_agents.agent import ModelSpec
from assay_agents.judging.cache import positioned
from assay_agents.results import MetricResult, SampleResult, decide_status
from assay_agents.results.storable import storable
from assay_agents.runner._calling import accepting_context
from assay_agents.runner.answering import watched_run
from assay_agents.runner.diagnosing import DIAGNOSED, conclude
from assay_agents.runner.engine import Execution, WorkItem
from assay_agents.runner.execute import run_sample
from assay_agents.runner.grading import NOT_JUDGED, Judging, grade
from assay_agents.spec import CasePlan


async def execute_unjudged(
    agent: Callable[..., Any], item: WorkItem, models: Sequence[ModelSpec], execution: Execution
) -> SampleResult:
    """Call the agent on ``item`` and run its checks; its judge criteria wait for the judge.

    Each judge criterion is left as an error naming :data:`NOT_JUDGED` until
    :func:`judge_deferred` grades it (so a judging step that never returns leaves an errored
    sample, not a passing one).
    """
    judging = execution.judging
    case, model, index = item.key
    with watched_run(models), positioned(sample=index, case=case, model=model):
        return await run_sample(
            accepting_context(agent),
            item.plan,
            item.model,
            item.index,
            timeout=execution.timeout,
            judging=None if judging is None else dataclasses.replace(judging, deferred=True),
            record=execution.record,
            record_redact=execution.record_redact,
        )


def awaiting_judge(result: SampleResult) -> bool:
    """Whether ``result`` has judge criteria that :func:`judge_deferred` is still to grade."""
    return any(_waiting(metric) for metric in result.metrics)


async def judge_deferred(result: SampleResult, plan: CasePlan, judging: Judging) -> SampleResult:
    """``result`` with the criteria it left for the judge graded, and its status decided again."""
    if not awaiting_judge(result):
        return result
    asked = dataclasses.replace(judging, deferred=False)
    with _at(result):
        graded, usage = await grade(plan, result.answer, asked, result.observation)
    metrics = tuple(metric for metric in result.metrics if not _waiting(metric)) + graded
    status = decide_status(result.error, metrics)
    return storable(dataclasses.replace(result, metrics=metrics, status=status, judge_usage=usage))


async def concluded(result: SampleResult, plan: CasePlan, execution: Execution) -> SampleResult:
    """A failing or errored ``result`` with its fault and recommendation, as the engine gives it."""
    if result.status not in DIAGNOSED:
        return result
    with _at(result):
        return await conclude(result, plan, execution.diagnosing, execution.judging)


def _at(result: SampleResult) -> AbstractContextManager[None]:
    """Judge calls made inside are the sample's (a judge cache keys them by it)."""
    return positioned(sample=result.sample, case=result.case_id, model=result.model)


def _waiting(metric: MetricResult) -> bool:
    return metric.kind == "judge" and metric.error == NOT_JUDGED
