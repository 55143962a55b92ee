"""What a run tells a team to change: its roster for diagnosis, and the judge's model verdict.

The roster (the agent's tools and instructions) is computed once per run, from the suite's
``available_tools`` and ``instructions`` or else from a chat adapter's own. With two or more
models and a judge, the judge picks the best model from pass rates, scores and faults (never
costs); that call belongs to no sample, so it is accounted on the run.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from assay_agents.judging import Judge, JudgeUsage
from assay_agents.judging.pick import pick_model
from assay_agents.results import Run, RunSummary, Tally
from assay_agents.results.diagnosis import Roster
from assay_agents.runner.diagnosing import Diagnosing, RefineLimit
from assay_agents.spec import JSON, Suite


def roster_of(suite: Suite) -> Roster:
    """The suite's declared roster, completed from the agent's own tools and instructions."""
    tools = suite.available_tools
    if tools is None:
        described = getattr(suite.agent, "tool_descriptions", None)
        tools = described() if callable(described) else {}
    instructions = suite.instructions
    if instructions is None:
        own = getattr(suite.agent, "instructions", None)
        instructions = own if isinstance(own, str) else None
    return Roster(dict(tools), instructions)


def diagnosing_for(suite: Suite, options: Any) -> Diagnosing:
    """The run's diagnosis settings: its roster, and the refinement limit with a judge."""
    refine = (
        None if options.judge is None else RefineLimit(options.judge_limit, options.refine_gate)
    )
    return Diagnosing(roster_of(suite), refine)


def model_figures(tally: Tally) -> dict[str, JSON]:
    """What the judge is shown of one model: rates, scores and faults; no cost, no tokens."""
    return {
        "samples": tally.samples,
        "pass_rate": tally.pass_rate,
        "check_pass_rate": tally.check_pass_rate,
        "check_score": tally.check_score,
        "cases_passed": tally.cases_passed,
        "cases": tally.cases,
        "errors": tally.errors,
        "judge_means": {name: c.mean for name, c in tally.judge.items()},
        "faults": dict(tally.faults),
    }


async def with_model_verdict(run: Run, summary: RunSummary, judge: Judge | None) -> Run:
    """``run`` with the judge's pick of its best model, when it ran two or more and has a judge.

    A verdict call that fails or answers unusably leaves no verdict (its usage is still
    counted on the run); the run itself never fails because of it.
    """
    if judge is None or len(summary.by_model) < 2:
        return run
    usage = JudgeUsage()
    models = {label: model_figures(tally) for label, tally in summary.by_model.items()}
    verdict = await pick_model(judge, models, usage)
    return dataclasses.replace(run, verdict=verdict, judge_usage=usage.counted())
