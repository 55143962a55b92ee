"""Grading an outcome the caller already holds: the run's checks and judging, with no run.

A replay made elsewhere (a background job, a log, another harness) is scored exactly as a
sample of a run would be: the case's checks and the suite-wide ``checks``, then the judge
criteria when a judge is given, then the mechanical diagnosis of a shortfall. Nothing is
stored and no agent is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay_agents.agent import ModelSpec, coerce_outcome
from assay_agents.errors import SpecError
from assay_agents.judging import Judge
from assay_agents.results import SampleResult
from assay_agents.runner.diagnosing import DIAGNOSED, Diagnosing, conclude
from assay_agents.runner.execute import graded_result
from assay_agents.runner.grading import Judging, price
from assay_agents.spec import Case
from assay_agents.spec.metrics import CheckDefinition
from assay_agents.spec.plan import Criterion, plan_suite


async def grade_held(
    case: Case,
    outcome: Any,
    *,
    checks: Sequence[CheckDefinition] = (),
    criteria: Sequence[Criterion] = (),
    judge: Judge | None = None,
    votes: int = 1,
    model: ModelSpec | None = None,
    sample: int = 0,
) -> SampleResult:
    """The result ``outcome`` gets as sample ``sample`` of ``case`` on ``model``.

    ``outcome`` is what an agent returns (an :class:`~assay.Outcome`, a string, or a dict of
    its fields); one that does not read is a :class:`~assay.SpecError` naming the field.
    """
    if not isinstance(case, Case):
        raise SpecError(
            f"{case!r} is not an assay Case (suite.case(...) returns one)", field="case"
        )
    for index, check in enumerate(checks):
        if not isinstance(check, CheckDefinition):
            raise SpecError(
                f"{check!r} is not a check (use assay_agents.checks)", field=f"checks[{index}]"
            )
    plan = plan_suite(
        "grade", None, [case], checks, judged=judge is not None, default_criteria=criteria
    ).cases[0]
    try:
        held = coerce_outcome(outcome)
    except SpecError as error:
        raise SpecError(error.detail, field=f"outcome{_under(error.field)}") from None
    held = await price(held, model)
    judging = None if judge is None else Judging(judge, votes)
    result = await graded_result(plan, held, model, sample, judging)
    if result.status in DIAGNOSED:
        result = await conclude(result, plan, Diagnosing(), judging)
    return result


def _under(field: str | None) -> str:
    if not field:
        return ""
    return field if field.startswith((".", "[")) else f".{field}"
