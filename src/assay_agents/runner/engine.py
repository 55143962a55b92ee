"""The async core: cases × models × samples under concurrency limits, results in order."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay_agents.agent import AgentContext, ModelSpec
from assay_agents.judging.cache import positioned
from assay_agents.judging.judge import wait_listener
from assay_agents.ratelimit import PaceKey, current_pacer
from assay_agents.results import SampleResult
from assay_agents.results.diagnosis import Roster
from assay_agents.runner._calling import accepting_context
from assay_agents.runner.answering import watched_run
from assay_agents.runner.diagnosing import DIAGNOSED, Diagnosing, conclude
from assay_agents.runner.execute import run_sample
from assay_agents.runner.grading import Judging
from assay_agents.runner.hooks import AroundSample, Capture
from assay_agents.runner.pacing import NO_MODEL, Adaptive, Pacing
from assay_agents.runner.progress import Progress, QuietProgress
from assay_agents.runner.sink import MemorySink, ResultSink
from assay_agents.runner.wrapping import SampleWrapper, wrapped
from assay_agents.spec import CasePlan, SuitePlan
from assay_agents.startup import agents_at_work, anything_frozen

DEFAULT_CONCURRENCY = 8
SampleKey = tuple[str, str | None, int]


@dataclass(frozen=True, kw_only=True, slots=True)
class Execution:
    """How samples are executed; none of it changes what a result is."""

    samples: int = 1
    concurrency: int = DEFAULT_CONCURRENCY
    model_concurrency: int | None = None
    timeout: float | None = None
    judging: Judging | None = None
    #: Samples of one case on one model in flight at once (None: only ``concurrency``).
    #: It changes the execution order only; results come back in index order regardless.
    sample_concurrency: int | None = None
    #: The roster diagnosis reads and the run-wide limit on judge refinements.
    diagnosing: Diagnosing | None = None
    #: Put around each sample's whole execution (a tracer's span per sample).
    around_sample: AroundSample | None = None
    #: The caller's context manager per sample, inside ``around_sample`` (see
    #: :mod:`assay_agents.runner.wrapping`): what it raises is that sample's error.
    wrapper: SampleWrapper | None = None
    #: Builds what the agent did from what it emitted (its spans), before the checks run.
    capture: Capture | None = None
    #: A folder to record each case's HTTP calls into, as replay fixtures (cases that
    #: declare their own fixtures are replayed as usual instead).
    record: Path | None = None
    #: Regular expressions the recordings hide too (the suite's own secrets).
    record_redact: tuple[str, ...] = ()
    #: How each model's concurrency adapts to rate limits (its floor, ceiling and retries).
    adaptive: Adaptive = field(default_factory=Adaptive)


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One sample to execute: a case's plan, on a model (or none), at a sample index."""

    plan: CasePlan
    model: ModelSpec | None
    index: int

    @property
    def key(self) -> SampleKey:
        """``(case id, model label, sample index)``: the sample's identity in a run."""
        return (self.plan.case.id, None if self.model is None else self.model.label, self.index)


def work_items(
    plan: SuitePlan,
    models: Sequence[ModelSpec] = (),
    *,
    samples: int = 1,
    skip: Collection[SampleKey] = (),
) -> tuple[WorkItem, ...]:
    """Every (case, model, sample) of ``plan`` not in ``skip``, in definition order."""
    selection: Sequence[ModelSpec | None] = list(models) or [None]
    every = (
        WorkItem(case_plan, model, index)
        for case_plan in plan.cases
        for model in selection
        for index in range(samples)
    )
    return tuple(item for item in every if item.key not in skip)


class Runner:
    """Executes a suite plan against an agent and streams each result to a sink.

    An agent exception, timeout or malformed outcome becomes an ``error`` sample and the
    others go on. Results come back in definition order (case, model, sample) whatever the
    concurrency.
    """

    def __init__(
        self,
        agent: Callable[..., Any],
        *,
        execution: Execution | None = None,
        sink: ResultSink | None = None,
        progress: Progress | None = None,
        keep_results: bool = True,
    ) -> None:
        self.agent = accepting_context(agent)
        #: Whether results are kept to be returned; without, they only reach the sink.
        self.keep_results = keep_results
        self.execution = execution or Execution()
        self.sink: ResultSink = sink or MemorySink()
        self.progress: Progress = progress or QuietProgress()
        #: The run's adaptive concurrency; its ``adjustments`` once executed.
        self.pacing = Pacing(1)

    async def execute(
        self, plan: SuitePlan, models: Sequence[ModelSpec] = (), *, skip: Collection[SampleKey] = ()
    ) -> list[SampleResult]:
        """Run every (case, model, sample) not in ``skip``; return the new results in order."""
        items = work_items(plan, models, samples=self.execution.samples, skip=skip)
        return await self.execute_items(items, models, description=plan.suite)

    async def execute_items(
        self, items: Sequence[WorkItem], models: Sequence[ModelSpec] = (), *, description: str = ""
    ) -> list[SampleResult]:
        """Run ``items`` (of a run on ``models``); return their results in the items' order."""
        self.progress.start(len(items), description)
        # A judge waiting out a rate limit says so on the progress display.
        listening = wait_listener.set(self.progress.note)
        execution = self.execution
        self.pacing = Pacing(
            execution.model_concurrency or execution.concurrency,
            execution.adaptive,
            note=self.progress.note,
        )
        pacer = current_pacer.set(self.pacing)
        try:
            with _frozen_heap(), watched_run(models), agents_at_work():
                return await self._gather(items, models)
        finally:
            current_pacer.reset(pacer)
            wait_listener.reset(listening)
            self.progress.stop()

    async def _gather(
        self, tasks: Sequence[WorkItem], models: Sequence[ModelSpec]
    ) -> list[SampleResult]:
        limit = asyncio.Semaphore(self.execution.concurrency)
        pacing = self.pacing
        results: dict[SampleKey, SampleResult] = {}
        per_item = _item_limits(tasks, self.execution.sample_concurrency)

        async def sample(task: WorkItem) -> SampleResult:
            case, model, index = task.key
            with positioned(sample=index, case=case, model=model):
                if self.execution.wrapper is None:
                    return await concluded(task)
                return await wrapped_sample(task)

        async def wrapped_sample(task: WorkItem) -> SampleResult:
            wrapper = self.execution.wrapper
            assert wrapper is not None
            done = await wrapped(
                wrapper, _context(task), task.key[1], functools.partial(concluded, task)
            )
            if not done.failed:
                return done.result
            # The wrapper's error is diagnosed mechanically: no judge call outside the wrapper.
            roster = self.execution.diagnosing
            return await conclude(
                done.result, task.plan, Diagnosing(roster.roster if roster else Roster()), None
            )

        async def concluded(task: WorkItem) -> SampleResult:
            result = await run_sample(
                self.agent,
                task.plan,
                task.model,
                task.index,
                timeout=self.execution.timeout,
                judging=self.execution.judging,
                capture=self.execution.capture,
                record=self.execution.record,
                record_redact=self.execution.record_redact,
            )
            if result.status in DIAGNOSED:
                # Diagnosed (and refined) before the sink: stored samples never change.
                result = await conclude(
                    result, task.plan, self.execution.diagnosing, self.execution.judging
                )
            return result

        async def attempt(task: WorkItem) -> SampleResult:
            around = self.execution.around_sample
            if around is None:
                return await sample(task)
            return await around(task, functools.partial(sample, task))

        async def one(task: WorkItem) -> None:
            item_limit = per_item.get(task.key[:2]) or contextlib.nullcontext()
            key, label, shown = _paced_as(task.model)
            with pacing.sample(key, label, shown) as account:
                # The item's own limit first, so a waiting sample holds no global slot; a
                # semaphore wakes waiters in order, so with 1 the samples run in index order.
                async with item_limit:
                    while True:
                        async with pacing.attempt(key), limit:
                            started = pacing.now()
                            result = await attempt(task)
                        raised = account.take_raised()
                        if raised is None:
                            pacing.attempt_succeeded(key)
                            break
                        # The agent itself raised a rate limit: run the sample again, later.
                        wait = pacing.retry(account, raised, started)
                        if wait is None:
                            break
                        await pacing.wait(None, wait, raised.reason, shown)
                record = account.record()
            if record is not None:
                result = replace(result, pacing=record)
            if self.keep_results:
                results[task.key] = result
            await self.sink.put(result)
            self.progress.advance(result)

        # Tasks are made as earlier ones end, a window ahead of those running: 100,000 samples
        # made at once would hold 100,000 suspended tasks. Made in the items' order, they
        # wait for their limits in that order, as before.
        window = asyncio.Semaphore(_window(self.execution))

        async def windowed(task: WorkItem) -> None:
            try:
                await one(task)
            finally:
                window.release()

        try:
            async with asyncio.TaskGroup() as group:
                for task in tasks:
                    await window.acquire()
                    group.create_task(windowed(task))
        except BaseExceptionGroup as failures:
            # Agent failures never get here (they are results); this is the harness itself
            # failing (a sink, a progress display): surface the first cause, not a group.
            raise failures.exceptions[0] from None
        finally:
            await asyncio.shield(self.sink.close())
        return [results[task.key] for task in tasks] if self.keep_results else []


#: The fewest tasks made ahead: plenty for any limit, a few megabytes at most.
_SMALLEST_WINDOW = 1024


def _window(execution: Execution) -> int:
    """How many samples' tasks exist at once: enough to keep every limit busy.

    Four times what may run at once, times the samples of an item (with one sample of an
    item at a time, its other samples wait in the window without running).
    """
    ahead = 4 * max(execution.concurrency, execution.model_concurrency or 0)
    return max(_SMALLEST_WINDOW, ahead * max(1, execution.samples))


def _context(task: WorkItem) -> AgentContext:
    case = task.plan.case.copy()  # a copy, as the agent's: nothing can alter the suite
    return AgentContext(case=case, model=task.model, sample=task.index, setup=case.setup)


@contextlib.contextmanager
def _frozen_heap() -> Iterator[None]:
    """Keep the collector from rescanning the run's long-lived objects while samples churn.

    Only when the caller has frozen nothing: unfreezing afterwards must give back exactly the
    collector state the caller had.
    """
    if anything_frozen():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _paced_as(model: ModelSpec | None) -> tuple[PaceKey, str, str]:
    """The key a model's samples are paced by, its label and the name progress shows."""
    if model is None:
        return NO_MODEL, "the agent", "the agent"
    return (model.provider, model.model), model.label, model.model


def _item_limits(
    tasks: Sequence[WorkItem], sample_concurrency: int | None
) -> dict[tuple[str, str | None], asyncio.Semaphore]:
    if sample_concurrency is None:
        return {}
    return {task.key[:2]: asyncio.Semaphore(sample_concurrency) for task in tasks}
