"""Running one sample: call the agent, coerce what it returned, calculate the metrics."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import math
from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_agents.agent import AgentContext, ModelSpec, Outcome, coerce_outcome
from assay_agents.checks import CheckContext, CheckError, Verdict, actions
from assay_agents.checks.observation import check_for
from assay_agents.checks.quoting import bounded_reason
from assay_agents.errors import SpecError
from assay_agents.judging.cache import positioned
from assay_agents.results import MetricResult, SampleResult, decide_status, errored, scored
from assay_agents.results.storable import storable
from assay_agents.results.tracebacks import TRACEBACK_KEY
from assay_agents.runner._calling import Timed, call_timed
from assay_agents.runner._traceback import user_traceback
from assay_agents.runner.answering import answered, watching
from assay_agents.runner.grading import Judging, grade, price
from assay_agents.runner.hooks import Capture, CaptureWatch
from assay_agents.runner.pacing import note_agent_error
from assay_agents.spec import ACTIONS_METRIC, CasePlan, PlannedMetric
from assay_agents.spec.observation import ChannelAssertion

if TYPE_CHECKING:
    from assay_agents.replay import ReplaySession


def run_sample(
    agent: Callable[..., Any],
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    *,
    timeout: float | None,
    judging: Judging | None = None,
    capture: Capture | None = None,
    record: Path | None = None,
    record_redact: tuple[str, ...] = (),
) -> Coroutine[Any, Any, SampleResult]:
    """Execute one sample; whatever the agent does, a result comes back (never an exception).

    A case with API fixtures gets a replay session of its own around the agent call; its
    evidence goes into the sample's metadata, and any replay failure makes the sample an
    agent error, even when the agent caught the exception or answered correctly. A value in
    the result that no store can hold makes the sample an error naming the field. With
    ``record`` (a folder), a case without fixtures records its agent's HTTP calls there,
    hiding what ``record_redact`` matches too.
    """
    if plan.case.api is None and record is not None:
        recording = (record, record_redact)
        return _recorded_sample(agent, plan, model, index, timeout, judging, recording, capture)
    if plan.case.api is None:
        # Returned, not awaited here: every coroutine layer is paid again on each of the
        # agent's own suspensions, and the common path needs none.
        return _execute_sample(
            agent, plan, model, index, timeout=timeout, judging=judging, capture=capture
        )
    return _replayed_sample(
        agent, plan, model, index, timeout=timeout, judging=judging, capture=capture
    )


async def _replayed_sample(
    agent: Callable[..., Any],
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    *,
    timeout: float | None,
    judging: Judging | None,
    capture: Capture | None,
) -> SampleResult:
    from assay_agents.replay import ReplaySession  # loaded only by suites that declare fixtures

    assert plan.case.api is not None
    replay = ReplaySession(plan.case.api)
    result = await _execute_sample(
        agent,
        plan,
        model,
        index,
        timeout=timeout,
        judging=judging,
        replay=replay,
        capture=capture,
    )
    return storable(replay.evidence().apply(result))


async def _recorded_sample(
    agent: Callable[..., Any],
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    timeout: float | None,
    judging: Judging | None,
    recording: tuple[Path, tuple[str, ...]],
    capture: Capture | None,
) -> SampleResult:
    from assay_agents.errors import AssayError
    from assay_agents.replay import ReplaySession
    from assay_agents.replay.recording import RECORD_KEY
    from assay_agents.spec.fixtures import ApiFixtures, fixture_file

    folder, patterns = recording
    path = fixture_file(folder, plan.case.id)
    try:
        replay = ReplaySession(ApiFixtures(redact=patterns), record=path)
    except AssayError as error:
        return _agent_error(plan, model, index, f"not recorded: {error}", 0.0)
    result = await _execute_sample(
        agent, plan, model, index, timeout=timeout, judging=judging, replay=replay, capture=capture
    )
    assert replay.recorder is not None
    noted: dict[str, Any] = {"file": str(path), "requests": replay.recorder.count}
    if result.error is not None:
        # An agent that failed, timed out or was cancelled may have made only some of its
        # calls: a file of those would replay as if they were the whole conversation.
        noted["error"] = "not written: the agent did not finish (error, timeout or cancellation)"
        return storable(
            dataclasses.replace(result, metadata={**result.metadata, RECORD_KEY: noted})
        )
    try:
        replay.save()
    except AssayError as error:
        noted["error"] = str(error)
        message = f"API recording failed: {error}"
        error_text = message if result.error is None else f"{message}\n{result.error}"
        result = dataclasses.replace(
            result, error=error_text, status=decide_status(error_text, result.metrics)
        )
    metadata = {**result.metadata, RECORD_KEY: noted}
    return storable(dataclasses.replace(result, metadata=metadata))


async def _execute_sample(
    agent: Callable[..., Any],
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    *,
    timeout: float | None,
    judging: Judging | None = None,
    replay: ReplaySession | None = None,
    capture: Capture | None = None,
) -> SampleResult:
    # The agent gets copies, so nothing it does can alter the suite or a later sample.
    case = plan.case.copy()
    context = AgentContext(case=case, model=model, sample=index, setup=case.setup)
    with watching(model) as watch, _capturing(capture) as captured:
        timed = await _call_agent(agent, case.input, context, timeout, replay)
    # Let every agent that finished in this turn of the loop stop its clock before any
    # sample's checks run: otherwise one sample's grading is charged to the next's agent.
    await asyncio.sleep(0)
    if timed.timed_out:
        return _agent_error(
            plan, model, index, f"the agent timed out after {timeout:g} s", timed.elapsed_ms
        )
    if timed.error is not None:
        note_agent_error(timed.error)
        return _agent_error(
            plan,
            model,
            index,
            _describe(timed.error),
            timed.elapsed_ms,
            user_traceback(timed.error),
        )
    try:
        outcome = coerce_outcome(timed.value)
    except SpecError as error:
        return _agent_error(plan, model, index, f"invalid outcome: {error}", timed.elapsed_ms)
    except Exception as error:
        # Whatever the returned object does when read (nesting past the recursion limit, a
        # number too large for a float, a mapping whose iteration raises) costs this sample
        # only: the run goes on.
        return _agent_error(
            plan,
            model,
            index,
            f"invalid outcome: could not be read ({type(error).__name__})",
            timed.elapsed_ms,
        )
    if captured is not None:
        outcome = captured.merged(outcome)
    if outcome.duration_ms is None:
        outcome = dataclasses.replace(outcome, duration_ms=timed.elapsed_ms)
    outcome, wrong_model = answered(outcome, model, watch)
    outcome = await price(outcome, model)
    if wrong_model is not None:
        # Not this model's sample: it is neither checked nor judged, only kept as evidence.
        return _unanswered(plan, model, index, outcome, wrong_model)
    return await graded_result(plan, outcome, model, index, judging)


async def graded_result(
    plan: CasePlan,
    outcome: Outcome,
    model: ModelSpec | None,
    index: int,
    judging: Judging | None,
) -> SampleResult:
    """The result of ``outcome`` (already coerced and priced): its checks, then its judging."""
    ctx = CheckContext(
        plan.case, outcome, model, index, judge=None if judging is None else judging.judge
    )
    checks = await _calculate(plan, ctx)
    with positioned(sample=index):  # a cache never serves one sample another's verdict
        graded, usage = await grade(plan, outcome.answer, judging, outcome.observation)
    metrics = checks + graded
    return storable(
        SampleResult(
            case_id=plan.case.id,
            model=None if model is None else model.label,
            sample=index,
            status=decide_status(outcome.error, metrics),
            answer=outcome.answer,
            actions=outcome.actions,
            observation=outcome.observation,
            usage=outcome.usage,
            duration_ms=outcome.duration_ms,
            error=outcome.error,
            metadata=outcome.metadata,
            metrics=metrics,
            judge_usage=usage,
        )
    )


async def _call_agent(
    agent: Callable[..., Any],
    value: Any,
    context: AgentContext,
    timeout: float | None,
    replay: ReplaySession | None = None,
) -> Timed:
    if replay is None:
        return await call_timed(agent, value, context, timeout)
    # Only the agent call is replayed: checks and judges run outside the session. A bound
    # sync agent keeps interception installed until its thread really stops. A recording
    # is saved by the caller, which turns a failure to save into this sample's error.
    with replay.active(save=False):
        return await call_timed(replay.bind(agent), value, context, timeout)


def _capturing(capture: Capture | None) -> AbstractContextManager[CaptureWatch | None]:
    return contextlib.nullcontext() if capture is None else capture.watch()


def _describe(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        # An agent calling sys.exit() ends its own sample, never the whole run.
        return f"the agent called sys.exit({error.code!r})"
    return f"{type(error).__name__}: {error}"


def _agent_error(
    plan: CasePlan,
    model: ModelSpec | None,
    index: int,
    message: str,
    elapsed_ms: float,
    trace: str | None = None,
) -> SampleResult:
    # The traceback goes through the same storable rule as everything the agent produced.
    return storable(
        SampleResult(
            case_id=plan.case.id,
            model=None if model is None else model.label,
            sample=index,
            status=decide_status(message, ()),
            duration_ms=elapsed_ms,
            error=message,
            metadata={} if trace is None else {TRACEBACK_KEY: trace},
        )
    )


def _unanswered(
    plan: CasePlan, model: ModelSpec | None, index: int, outcome: Outcome, message: str
) -> SampleResult:
    error = message if outcome.error is None else f"{message}\nagent error: {outcome.error}"
    return storable(
        SampleResult(
            case_id=plan.case.id,
            model=None if model is None else model.label,
            sample=index,
            status=decide_status(error, ()),
            answer=outcome.answer,
            actions=outcome.actions,
            observation=outcome.observation,
            usage=outcome.usage,
            duration_ms=outcome.duration_ms,
            error=error,
            metadata=outcome.metadata,
        )
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
        return errored(
            metric.name, "check", metric.category, metric.threshold, bounded_reason(str(error))
        )
    except Exception as error:
        return errored(
            metric.name,
            "check",
            metric.category,
            metric.threshold,
            bounded_reason(f"{type(error).__name__}: {error}"),
        )
    # Any check's reason is bounded (a custom one's too); the evidence stays in the sample.
    return scored(
        metric.name, "check", metric.category, metric.threshold, score, bounded_reason(reason)
    )


def _evaluator(metric: PlannedMetric) -> Any:
    if isinstance(metric.check, ChannelAssertion):
        # Declared by the spec layer, evaluated here: the spec never imports checks.
        return check_for(metric.check)
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
