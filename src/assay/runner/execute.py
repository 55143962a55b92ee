"""Running one sample: call the agent, coerce what it returned, calculate the metrics."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import math
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from assay.agent import AgentContext, ModelSpec, Outcome, coerce_outcome
from assay.checks import CheckContext, CheckError, Verdict, actions
from assay.errors import SpecError
from assay.results import MetricResult, SampleResult, decide_status, errored, scored
from assay.spec import ACTIONS_METRIC, CasePlan, PlannedMetric


async def run_sample(
    agent: Callable[..., Any],
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    *,
    timeout: float | None,
    executor: Executor | None,
) -> SampleResult:
    """Execute one sample; whatever the agent does, a result comes back (never an exception)."""
    # The agent gets copies, so nothing it does can alter the suite or a later sample.
    case = plan.case.copy()
    context = AgentContext(case=case, model=model, sample=index, setup=case.setup)
    started = time.perf_counter()
    try:
        raw = await _call_agent(agent, case.input, context, timeout, executor)
        outcome = coerce_outcome(raw)
    except TimeoutError:
        return _agent_error(plan, model, index, f"the agent timed out after {timeout:g} s",
                            started)
    except SpecError as error:
        return _agent_error(plan, model, index, f"invalid outcome: {error}", started)
    except Exception as error:
        return _agent_error(plan, model, index, f"{type(error).__name__}: {error}", started)
    if outcome.duration_ms is None:
        outcome = _with_duration(outcome, started)
    metrics = await _calculate(plan, CheckContext(plan.case, outcome, model, index))
    return SampleResult(
        case_id=plan.case.id, model=None if model is None else model.label, sample=index,
        status=decide_status(outcome.error, metrics), answer=outcome.answer,
        actions=outcome.actions, observation=outcome.observation, usage=outcome.usage,
        duration_ms=outcome.duration_ms, error=outcome.error, metadata=outcome.metadata,
        metrics=metrics,
    )


async def _call_agent(agent: Callable[..., Any], value: Any, context: AgentContext,
                      timeout: float | None, executor: Executor | None) -> Any:
    if inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(
            getattr(agent, "__call__", None)):  # noqa: B004 - async callable objects
        return await asyncio.wait_for(agent(value, context), timeout)
    loop = asyncio.get_running_loop()
    # Context variables travel into the worker thread (per-sample replay relies on them).
    call = functools.partial(contextvars.copy_context().run, agent, value, context)
    result = await asyncio.wait_for(loop.run_in_executor(executor, call), timeout)
    if inspect.isawaitable(result):
        result = await asyncio.wait_for(result, timeout)
    return result


def _with_duration(outcome: Outcome, started: float) -> Outcome:
    elapsed = (time.perf_counter() - started) * 1000
    return Outcome(outcome.answer, outcome.actions, outcome.observation, outcome.usage, elapsed,
                   outcome.error, outcome.metadata)


def _agent_error(plan: CasePlan, model: ModelSpec | None, index: int, message: str,
                 started: float) -> SampleResult:
    return SampleResult(
        case_id=plan.case.id, model=None if model is None else model.label, sample=index,
        status=decide_status(message, ()), duration_ms=(time.perf_counter() - started) * 1000,
        error=message,
    )


async def _calculate(plan: CasePlan, ctx: CheckContext) -> tuple[MetricResult, ...]:
    results = []
    for metric in plan.metrics:
        if metric.kind == "check":
            results.append(await _check(metric, ctx))
    return tuple(results)


async def _check(metric: PlannedMetric, ctx: CheckContext) -> MetricResult:
    evaluator = _evaluator(metric)
    try:
        verdict = evaluator.evaluate(ctx)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        score, reason = _read(verdict)
    except CheckError as error:
        return errored(metric.name, "check", metric.category, metric.threshold, str(error))
    except Exception as error:
        return errored(metric.name, "check", metric.category, metric.threshold,
                       f"{type(error).__name__}: {error}")
    return scored(metric.name, "check", metric.category, metric.threshold, score, reason)


def _evaluator(metric: PlannedMetric) -> Any:
    if metric.check is not None:
        return metric.check
    if metric.name == ACTIONS_METRIC:
        return actions(threshold=metric.threshold)
    raise CheckError(f"no evaluator for metric {metric.name!r}")


def _read(verdict: Any) -> tuple[float, str]:
    if not isinstance(verdict, Verdict):
        raise CheckError(f"a check returned {type(verdict).__name__}, not a Verdict")
    if not math.isfinite(verdict.score) or not 0.0 <= verdict.score <= 1.0:
        raise CheckError(f"score {verdict.score!r} is outside [0, 1]")
    return float(verdict.score), verdict.reason
