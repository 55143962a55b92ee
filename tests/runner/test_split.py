"""A sample executed in three steps (agent and checks, judge, diagnosis) is the engine's sample."""

from __future__ import annotations

import asyncio
import json

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.runner import Execution, Runner, work_items
from assay_agents.runner.diagnosing import Diagnosing
from assay_agents.runner.grading import NOT_JUDGED, Judging
from assay_agents.runner.split import awaiting_judge, concluded, execute_unjudged, judge_deferred


def grading(instructions: str, prompt: str) -> str:
    good = "thirty" in prompt.lower()
    return json.dumps({"score": 1 if good else 0.1, "reason": "Read the answer."})


def answer(text: str, ctx: assay.AgentContext) -> str | assay.Outcome:
    if ctx.case.id == "silent":
        return assay.Outcome(answer=None, error="the tool timed out")
    return "Thirty days." if ctx.case.id == "window" else "I cannot say."


def suite() -> assay.Suite:
    built = assay.Suite("Split", agent=answer, checks=[checks.min_length(3)])
    for name in ("window", "refund", "silent"):
        built.case(f"Question {name}", id=name, criteria=["answer_relevancy"])
    return built


def test_the_three_steps_give_the_engines_result() -> None:
    plan = suite().plan(judged=True)
    execution = Execution(
        judging=Judging(judges.function("grader", grading)), diagnosing=Diagnosing()
    )
    items = work_items(plan)
    whole = asyncio.run(Runner(answer, execution=execution).execute(plan))

    async def in_steps() -> list[assay.SampleResult]:
        results = []
        for item in items:
            unjudged = await execute_unjudged(answer, item, (), execution)
            assert awaiting_judge(unjudged)
            assert unjudged.status is assay.SampleStatus.ERROR  # until it is judged
            assert NOT_JUDGED in {metric.error for metric in unjudged.metrics}
            judged = await judge_deferred(unjudged, item.plan, execution.judging)
            results.append(await concluded(judged, item.plan, execution))
        return results

    stepped = asyncio.run(in_steps())
    timeless = [
        [(s.status, s.answer, s.error, s.metrics, s.fault, s.recommendation) for s in samples]
        for samples in (whole, stepped)
    ]
    assert timeless[0] == timeless[1]
    assert [s.status.value for s in stepped] == ["passed", "failed", "error"]
    assert [s.judge_usage is not None for s in stepped] == [True, True, True]
