"""One run's lifecycle in one guarded scope: plan, create, execute, flush, compare, complete.

Whatever fails once the run row exists leaves the run ``interrupted`` with the error
recorded (resumable), never ``running``; a failure Assay cannot see (SIGKILL, a power cut)
leaves a lease that expires, so a resume can take the run over.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import uuid
from collections.abc import Callable, Collection, Coroutine, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from assay_agents.agent import Agent, ModelSpec, parse_models
from assay_agents.compare import (
    Comparison,
    ComparisonPolicy,
    ModelComparison,
    StoredComparison,
    compare,
    compare_models,
)
from assay_agents.compare.pooling import PooledItem, RunPooling, pool_run
from assay_agents.errors import (
    AssayError,
    BaselineError,
    ConfigurationError,
    IncompleteRunError,
    LeaseError,
    ReadOnlyRunError,
    StoreError,
    StoreUnavailableError,
    Terminated,
)
from assay_agents.evaluation._signals import terminations
from assay_agents.evaluation.baseline import choose_baseline
from assay_agents.evaluation.callbacks import StoredCallback
from assay_agents.evaluation.comparing import noise_floor, on_cases_run, pooled_on_cases_run
from assay_agents.evaluation.diagnosis import diagnosing_for, with_model_verdict
from assay_agents.evaluation.lease import Heartbeat, owner_alive, this_process
from assay_agents.evaluation.loop import CANCEL_GRACE
from assay_agents.evaluation.observers import NotesOnly, ObservedSink, Observers
from assay_agents.evaluation.options import EvaluationOptions
from assay_agents.evaluation.ports import (
    Executor,
    GradedRunStore,
    NamedBaselineStore,
    RunStore,
    SampleTracer,
    Work,
)
from assay_agents.evaluation.release import resolve_release, suite_folder
from assay_agents.evaluation.tracing import traced_observers
from assay_agents.evaluation.verdict import Verdict, decide
from assay_agents.evaluation.writer import DurableSink, with_store_retries
from assay_agents.judging import Judge, judge_chain, judge_identity
from assay_agents.judging.spec import judge_spec
from assay_agents.results import (
    CaseSnapshot,
    Run,
    RunSettings,
    RunStatus,
    RunSummary,
    SampleResult,
    with_run_judge_usage,
)
from assay_agents.results.baseline import BaselineChoice, BaselineReason
from assay_agents.results.changes import Item
from assay_agents.results.gating import RunGate
from assay_agents.results.packed import PackedSamples
from assay_agents.results.release import Release
from assay_agents.results.run import Lease
from assay_agents.results.settings import Adaptation, Selection
from assay_agents.results.summary import RunTally
from assay_agents.runner.engine import Execution, WorkItem, work_items
from assay_agents.runner.grading import Judging
from assay_agents.runner.hooks import Capture, GroupedCapture
from assay_agents.runner.progress import Progress
from assay_agents.spec import Suite, SuitePlan
from assay_agents.spec.plan import SharedDefinitions
from assay_agents.startup import collector_held

SampleKey = tuple[str, str | None, int]
T = TypeVar("T")


@dataclass(frozen=True, slots=True, repr=False)
class Evaluation:
    """What one evaluation produced: the stored run, what it was compared with, the verdict.

    ``run`` is completed and persisted; ``comparison`` is against its baseline (``None``
    without one); ``model_comparison`` compares its models (two or more); ``verdict`` is the
    decision a CLI maps to its exit code.
    """

    run: Run
    comparison: Comparison | None
    model_comparison: ModelComparison | None
    verdict: Verdict
    #: The database the run is stored in, its password masked.
    database: str = ""
    #: Which baseline the run was compared with and why, or why with none.
    baseline: BaselineChoice | None = None

    def __repr__(self) -> str:
        # Short, never the run's cases and samples (100,000 of each, say): Python 3.11's
        # asyncio.run formats the repr of its main task, and so of this result, as it returns.
        run = self.run
        summary = run.summary
        counted = "" if summary is None else f", passed={summary.passed} of {summary.samples}"
        baseline = None if self.comparison is None else self.comparison.baseline_id
        return (
            f"Evaluation(run={run.id!r}, suite={run.suite!r}{counted}, baseline={baseline!r}, "
            f"failed={self.verdict.failed}, regressed={self.verdict.regressed})"
        )

    @property
    def baseline_note(self) -> str | None:
        """Why there is no comparison, when there is none (no earlier passing run...)."""
        choice = self.baseline
        return None if choice is None or choice.run_id is not None else choice.why()


async def evaluate_with(
    suite: Suite, options: EvaluationOptions, store: RunStore, progress: Progress
) -> Evaluation:
    """Run ``suite`` with ``options`` against ``store``; see :func:`assay.evaluate_async`."""
    observers = Observers(progress, traced_observers(suite, options.observers, options.trace))
    plan = suite.plan(judged=options.judge is not None)
    if options.cache:
        from assay_agents.evaluation.caching import cache_store

        cache_store(store)  # a store that keeps no replies is refused before the run exists
    # The new run's cases, built once: a baseline named by the run shares their definitions.
    cases = _case_snapshots(plan) if options.resume is None else ()
    named = await with_store_retries(
        functools.partial(_explicit_baseline, store, options.baseline, suite, cases),
        retry_for=options.store_retry,
        note=progress.note,
        what="read the baseline",
    )
    judged = _judge_scores_compared(options, plan)
    await _prepare(suite, options)
    await _connect(options.executor)
    agent = _agent(suite, options, store)  # after prepare: the copy shares what it set up
    owner = this_process()
    # Chosen once: a retry after a lost acknowledgement finds the row it already wrote.
    fresh = None
    if options.resume is None:
        release = await asyncio.to_thread(
            resolve_release, options.release, suite_folder(suite.origin)
        )
        fresh = _new_run(suite, plan, options, owner, cases, release)
    # Chosen before any agent runs: a baseline that cannot be read stops a new run before it
    # exists, and the one chosen is the one compared with (its gradings held until then).
    chosen = None
    if fresh is not None:
        chosen = await _choose_baseline(store, fresh, named, options, judged, progress.note)
    try:
        run, skip, models = await with_store_retries(
            lambda: _begin(store, suite, plan, options, owner, fresh),
            retry_for=options.store_retry,
            note=progress.note,
            what="start the run",
        )
    except (asyncio.CancelledError, KeyboardInterrupt) as error:
        # Stopped while the new run was being written: written, it must not stay running.
        if fresh is not None:
            await _keep_interrupted_if_written(store, fresh.id, owner, _reason(error))
        raise
    with terminations(asyncio.current_task()) as termination:
        try:
            if chosen is None:  # a resumed run: its baseline is one stored before it
                chosen = await _choose_baseline(store, run, named, options, judged, observers.note)
            return await _guarded(
                suite, plan, options, store, observers, run, skip, models, owner, chosen, agent
            )
        except BaseException as error:
            signalled = termination.received
            reason = f"terminated by {signalled.name}" if signalled else _reason(error)
            await _keep_interrupted(store, run.id, owner, reason, error, progress.note)
            observers.interrupted(run, reason)
            if signalled is not None and isinstance(error, asyncio.CancelledError):
                raise Terminated(int(signalled), signalled.name) from None
            if isinstance(error, BaselineError):
                raise  # bad input: the run stays interrupted, to resume once it is mended
            if isinstance(error, LeaseError | ReadOnlyRunError):
                raise IncompleteRunError(
                    run.id, "another process took it over; it is theirs to finish", resumable=False
                ) from error
            if isinstance(error, Exception):
                raise IncompleteRunError(run.id, reason) from error
            raise


async def _guarded(
    suite: Suite,
    plan: SuitePlan,
    options: EvaluationOptions,
    store: RunStore,
    observers: Observers,
    run: Run,
    skip: set[SampleKey],
    models: tuple[ModelSpec, ...],
    owner: Lease,
    chosen: _Chosen,
    agent: Agent,
) -> Evaluation:
    samples = run.settings.samples
    items = work_items(plan, models, samples=samples, skip=skip)
    observers.started(run, len(items))
    sink = DurableSink(
        store,
        run.id,
        token=owner.token,
        note=observers.note,
        retry_for=options.store_retry,
        interval=options.flush_interval,
        on_stored=None
        if options.on_result is None
        else StoredCallback(options.on_result, observers.note),
    )
    heartbeat = Heartbeat(store, run.id, owner.token, options.heartbeat_interval, observers.note)
    tracer = next((each for each in observers.attached if isinstance(each, SampleTracer)), None)
    judge = _traced(_cached(options, store), tracer)
    execution = Execution(
        samples=samples,
        concurrency=options.concurrency,
        model_concurrency=options.model_concurrency,
        timeout=options.timeout,
        sample_concurrency=options.sample_concurrency,
        judging=None if judge is None else Judging(judge, options.votes),
        diagnosing=diagnosing_for(suite, options),
        around_sample=None if tracer is None else tracer.around_sample,
        wrapper=options.around_sample,
        capture=_capture(suite, tracer),
        record=options.record,
        record_redact=options.record_redact,
        adaptive=options.adaptive,
    )
    observed = ObservedSink(sink, observers, run)
    work = Work(
        plan=plan,
        items=items,
        models=models,
        agent=agent,
        execution=execution,
        sink=observed,
        progress=NotesOnly(observers),
    )
    try:
        await _supervised(options.executor.execute(work), sink, heartbeat)
    finally:
        observers.stopped()
    _require_every_item(executor_name(options.executor), items, observed.landed)
    # What executing needed is let go before the samples are read back: one per sample.
    observed.landed.clear()
    del work, items
    # Counted from what was stored, read back a page at a time: nothing of the run is held
    # whole but its packed samples, which the caller gets.
    read_back = await with_store_retries(
        lambda: _read_back(store, run.id, pooling=chosen.baseline is not None),
        retry_for=options.store_retry,
        note=observers.note,
        what="read the run's samples back",
    )
    summary = read_back.summary
    current = run.with_samples(read_back.samples)
    compared = await with_store_retries(
        _uncollected(lambda: _compare(store, current, chosen, options, summary, read_back.pooled)),
        retry_for=options.store_retry,
        note=observers.note,
        what="find the baseline",
    )
    current = await with_model_verdict(current, summary, judge)
    # Every judge call counts in the run's totals: the verdict's too, which no sample owns.
    summary = with_run_judge_usage(summary, current.judge_usage)
    if tracer is not None:
        current = replace(current, traces=tracer.run_traces())
    # Decided before completing: the outcome is stored with the run, and only a passing
    # run is ever a later run's automatic baseline.
    verdict = decide(
        replace(current, summary=summary),
        compared.comparison,
        gate=options.gate,
        fail_on_regression=options.fail_on_regression,
        allow_unchecked=options.allow_unchecked,
    )
    current = replace(current, outcome=verdict.outcome, baseline_choice=compared.choice)
    completed = await _uninterrupted(
        with_store_retries(
            lambda: _complete(
                store,
                current,
                summary,
                compared.comparison,
                compared.models,
                compared.baseline,
                owner,
            ),
            retry_for=options.store_retry,
            note=observers.note,
            what="complete the run",
        )
    )
    observers.finished(completed, verdict)
    return Evaluation(
        completed,
        compared.comparison,
        compared.models,
        verdict,
        database=store.display_url,
        baseline=compared.choice,
    )


def _capture(suite: Suite, tracer: SampleTracer | None) -> Capture | None:
    if tracer is None or suite.capture != "spans":
        return None
    capture = tracer.capture()
    return GroupedCapture(capture, suite.action_groups) if suite.action_groups else capture


def _cached(options: EvaluationOptions, store: RunStore) -> Judge | None:
    """The run's judge, answering from the store's cache with ``cache``."""
    if options.judge is None or not options.cache:
        return options.judge
    from assay_agents.evaluation.caching import cached

    return cached(options.judge, store)


def _agent(suite: Suite, options: EvaluationOptions, store: RunStore) -> Agent:
    """The suite's agent, with its model calls answered from the cache when asked.

    Only the built-in chat agents (``assay_agents.agents.openai_chat``, ``litellm_chat``) make their
    model calls where a cache can answer them; any other agent, another store or an executor
    that runs samples elsewhere is refused before the run exists.
    """
    if not options.cache_model_calls:
        return suite.agent
    from assay_agents.evaluation.caching import model_calls

    calls = model_calls(store)
    with_cache = getattr(suite.agent, "with_model_cache", None)
    if not callable(with_cache):
        raise ConfigurationError(
            "--cache-model-calls caches the model calls of the built-in chat agents "
            "(assay_agents.agents.openai_chat, assay_agents.agents.litellm_chat); this suite's "
            "agent is "
            f"{type(suite.agent).__name__}: run without --cache-model-calls"
        )
    if executor_name(options.executor) != "local":
        raise ConfigurationError(
            "--cache-model-calls runs samples in this process only: run without --executor "
            f"{executor_name(options.executor)!r} or without --cache-model-calls"
        )
    return cast(Agent, with_cache(calls))


def _traced(judge: Judge | None, tracer: SampleTracer | None) -> Judge | None:
    return judge if judge is None or tracer is None else tracer.traced_judge(judge)


async def _uninterrupted(step: Coroutine[Any, Any, Run]) -> Run:
    """Run the completing step to its end, even when a signal cancels the evaluation meanwhile.

    Cut short, the completing transaction could still commit in its thread while the run
    was reported interrupted. Finished, the run is what the store says: completed (and the
    evaluation returns it), or not (and its error is raised as any other).
    """
    completing = asyncio.ensure_future(step)
    try:
        return await asyncio.shield(completing)
    except asyncio.CancelledError:
        if completing.cancelled():
            raise
        await asyncio.wait({completing})
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # the request to stop came too late to stop anything
        return completing.result()


def executor_name(executor: Executor) -> str:
    """The executor's name, as stored in a run's settings."""
    name = getattr(executor, "name", None)
    return name if isinstance(name, str) and name else type(executor).__name__


def _require_every_item(
    executor: str, items: Sequence[WorkItem], landed: Collection[SampleKey]
) -> None:
    """Every item's result reached the sink (and the store).

    An executor that returned without some of them leaves the run unfinished (resumable),
    rather than its completion refused later for a reason nobody can act on.
    """
    missing = [item.key for item in items if item.key not in landed]
    if missing:
        case, model, index = missing[0]
        first = f"{case}" + (f" on {model}" if model else "") + f" #{index}"
        raise AssayError(
            f"executor {executor!r} returned without {len(missing)} of {len(items)} "
            f"sample(s) (first: {first}); resume the run to execute them"
        )


#: Samples read back at a time: a page's objects are all that is held whole.
READ_BACK_PAGE = 1000


@dataclass(frozen=True, slots=True)
class _ReadBack:
    """A run's samples read back: its summary counted from them, and them packed.

    ``pooled``: its items pooled as they were read, when asked for a comparison and the
    store gave each item's samples together (as report order does); else ``None``.
    """

    summary: RunSummary
    samples: PackedSamples
    pooled: dict[Item, PooledItem] | None


def _read_back(store: RunStore, run_id: str, *, pooling: bool) -> _ReadBack:
    """The run's summary, counted from its stored samples, those samples packed, and pooled."""
    counting = RunTally()
    pooled: RunPooling | None = RunPooling(in_order=True) if pooling else None

    def counted() -> Iterator[list[SampleResult]]:
        nonlocal pooled
        for page in store.sample_pages(run_id, size=READ_BACK_PAGE):
            counting.add_all(page)
            if pooled is not None:
                try:
                    pooled.add_all(page)
                except ValueError:  # an item's samples apart: pooled again, whole, to compare
                    pooled = None
            yield page

    with collector_held():
        packed = PackedSamples(counted())
        return _ReadBack(counting.summary(), packed, None if pooled is None else pooled.pooled())


async def _supervised(
    execution: Coroutine[Any, Any, object], sink: DurableSink, heartbeat: Heartbeat
) -> None:
    """Execute while the lease is held and the store keeps up; stop at once otherwise."""
    work = asyncio.ensure_future(execution)
    beat = asyncio.ensure_future(heartbeat.beat())
    broken = asyncio.ensure_future(sink.failed())
    try:
        done, _ = await asyncio.wait({work, beat, broken}, return_when=asyncio.FIRST_COMPLETED)
        if work in done:
            work.result()
            await sink.close()  # executors close it; closed again, nothing is left behind
            sink.check()  # the writes at the end, after the last sample landed
            return
        if broken in done:
            raise broken.result()
        raise beat.exception() or LeaseError("the heartbeat stopped")
    finally:
        for watcher in (beat, broken):
            watcher.cancel()
        if not work.done():
            work.cancel()
            # The runner closes its sink on the way out: samples that landed are written. An
            # agent that swallows its cancellation is not waited for past the grace period.
            await asyncio.wait({work}, timeout=CANCEL_GRACE)
        if work.done() and not work.cancelled():
            work.exception()  # the supervisor reported the cause: this one is only retrieved
        await asyncio.gather(beat, broken, return_exceptions=True)
        if work.done():
            # An executor may have failed without closing its sink: what landed is written
            # all the same (closed twice, a sink has nothing left to write). One abandoned
            # past the grace period is not waited for here either.
            await asyncio.shield(sink.close())


async def _prepare(suite: Suite, options: EvaluationOptions) -> None:
    """Set-up that must happen before any clock starts, and off the event loop.

    Provider SDK imports, judge clients and the price tables take hundreds of milliseconds
    the first time; done lazily on the loop, they would be charged to whichever agents'
    clocks were running.
    """
    from assay_agents.results.pricing import load_catalogue

    steps: list[Callable[[], object]] = []
    judges = [] if options.judge is None else judge_chain(options.judge)
    for part in (*judges, suite.agent):
        prepare = getattr(part, "prepare", None)
        if callable(prepare):
            steps.append(prepare)
    preflight = getattr(suite.agent, "preflight", None)
    if callable(preflight):
        # What the agent needs for the models asked (a provider's key), checked up front.
        steps.append(lambda: preflight(options.models))
    # Always: an agent may name its model in metadata["model"] with no --model or judge, and
    # a catalogue imported on a worker thread while agents import on theirs can hand one of
    # them a half-initialised module.
    steps.append(load_catalogue)
    if options.models:
        from assay_agents.runner.answering import preload_watch

        # Samples on a model read their responses for the model that answered.
        steps.append(preload_watch)
    if steps:
        await asyncio.to_thread(lambda: [step() for step in steps])


async def _connect(executor: Executor) -> None:
    """Let an executor that works elsewhere (a cluster) connect before the run exists.

    One out of reach is then refused with nothing stored. A SIGTERM or SIGHUP meanwhile
    stops the wait at once, as it stops a run.
    """
    connect = getattr(executor, "connect", None)
    if not callable(connect):
        return
    with terminations(asyncio.current_task()) as termination:
        try:
            await connect()
        except asyncio.CancelledError:
            signalled = termination.received
            if signalled is None:
                raise
            raise Terminated(int(signalled), signalled.name) from None


def _begin(
    store: RunStore,
    suite: Suite,
    plan: SuitePlan,
    options: EvaluationOptions,
    owner: Lease,
    fresh: Run | None,
) -> tuple[Run, set[SampleKey], tuple[ModelSpec, ...]]:
    if fresh is None:
        return _resume(store, suite, plan, options, owner)
    return store.create_run(fresh), set(), options.models


def _resume(
    store: RunStore, suite: Suite, plan: SuitePlan, options: EvaluationOptions, owner: Lease
) -> tuple[Run, set[SampleKey], tuple[ModelSpec, ...]]:
    found = store.get_run(options.resume or "")
    if found.status is RunStatus.COMPLETED:
        raise ConfigurationError(f"run {found.id} is completed and read-only; nothing to resume")
    _require_compatible(found, suite, plan, "run to resume")
    _require_same_matrix(found, options)
    # Claimed atomically: of two resumers exactly one wins; a live owner keeps its run.
    run = store.claim(found.id, owner, lease_timeout=options.lease_timeout, owner_alive=owner_alive)
    models = run.settings.model_specs or parse_models(run.settings.models)
    return run, store.sample_keys(run.id), models


def _new_run(
    suite: Suite,
    plan: SuitePlan,
    options: EvaluationOptions,
    owner: Lease,
    cases: tuple[CaseSnapshot, ...],
    release: Release | None = None,
) -> Run:
    settings = RunSettings(
        samples=options.samples,
        concurrency=options.concurrency,
        model_concurrency=options.model_concurrency,
        sample_concurrency=options.sample_concurrency,
        timeout=options.timeout,
        models=tuple(spec.label for spec in options.models),
        model_specs=tuple(options.models),
        judge=None if options.judge is None else judge_identity(options.judge),
        judge_spec=None if options.judge is None else judge_spec(options.judge),
        votes=options.votes,
        executor=executor_name(options.executor),
        selection=None
        if suite.selected_from is None
        else Selection(cases=len(plan.cases), of=suite.selected_from),
        gate=_run_gate(options),
        adaptive=Adaptation(
            options.adaptive.floor, options.adaptive.ceiling, options.adaptive.retries
        ),
        release=release,
    )
    return Run(
        id=options.run_id or str(uuid.uuid4()),
        suite=suite.name,
        suite_version=suite.version,
        agent=suite.agent_name,
        fingerprint=plan.fingerprint,
        status=RunStatus.RUNNING,
        started_at=_now(),
        settings=settings,
        metadata=options.metadata,
        cases=cases,
        links=options.links,
        lease=owner,
    )


def _run_gate(options: EvaluationOptions) -> RunGate:
    """What the verdict is decided with: a run read back elsewhere is decided again."""
    return RunGate(
        thresholds=options.gate,
        fail_on_regression=options.fail_on_regression,
        allow_unchecked=options.allow_unchecked,
        tolerance=options.tolerance,
        drift_tolerance=options.drift_tolerance,
    )


def _case_snapshots(plan: SuitePlan) -> tuple[CaseSnapshot, ...]:
    """The cases of a run of ``plan``, as a run keeps them."""
    shared = SharedDefinitions()  # a suite's default checks, described once for every case
    return tuple(
        CaseSnapshot(p.case.id, p.case.name, p.position, p.fingerprint, p.snapshot(shared))
        for p in plan.cases
    )


@dataclass(frozen=True, slots=True)
class _Named:
    """A baseline named by the run, checked, and its gradings pooled where they were read."""

    run: Run
    #: Its items pooled from its samples as graded (its run then has its cases only), or
    #: ``None`` when it was read whole (a store without :class:`NamedBaselineStore`).
    pooled: dict[Item, PooledItem] | None


def _explicit_baseline(
    store: RunStore, ref: str | None, suite: Suite, alike: Sequence[CaseSnapshot]
) -> _Named | None:
    """The baseline named by the run, checked and read before anything else happens.

    Read with its cases and its gradings where the store can, whole elsewhere: either way, a
    run it names that does not read is refused by its name before any run is started or
    resumed.
    """
    if ref is None:
        return None
    try:
        if not isinstance(store, NamedBaselineStore):
            return _Named(_checked(store.get_run(ref), suite), None)
        baseline = _checked(store.baseline_run(ref, alike=alike), suite)
        with collector_held():
            return _Named(baseline, _pooled_as_graded(store, baseline.id))
    except StoreError as error:
        if error.transient or isinstance(error, StoreUnavailableError):
            raise  # an outage, retried by the caller: not a wrong baseline
        raise BaselineError(f"baseline {ref!r}: {error}") from None


def _checked(baseline: Run, suite: Suite) -> Run:
    """``baseline``, refused unless it is a completed run of ``suite``."""
    if baseline.status is not RunStatus.COMPLETED:
        raise BaselineError(f"baseline {baseline.id} is {baseline.status.value}, not completed")
    if baseline.suite != suite.name:
        # Any completed run of the suite will do: items pair by their own fingerprints.
        raise BaselineError(
            f"baseline {baseline.id} is a run of suite {baseline.suite!r}, not {suite.name!r}"
        )
    return baseline


def _require_same_matrix(run: Run, options: EvaluationOptions) -> None:
    # A resumed run keeps its own models and samples: asking for others is a contradiction.
    asked = [spec.label for spec in options.models]
    if asked and tuple(asked) != run.settings.models:
        raise ConfigurationError(
            f"run {run.id} runs models {list(run.settings.models)}; "
            f"a resume cannot change them to {asked}"
        )
    if options.samples_given and options.samples != run.settings.samples:
        raise ConfigurationError(
            f"run {run.id} runs {run.settings.samples} sample(s) "
            f"per case; a resume cannot change that to {options.samples}"
        )
    changed = options.release.conflict(run.settings.release)
    if changed is not None:
        raise ConfigurationError(
            f"run {run.id} scores the release it started with; a resume cannot change its "
            f"{changed}: resume without it, or with the same"
        )
    # The stored gate is what an import decides the run with again: it must be the one used.
    stored, asked_gate = run.settings.gate, _run_gate(options)
    if stored is not None and stored != asked_gate:
        raise ConfigurationError(
            f"run {run.id} is decided with the gate it started with; a resume cannot change "
            "the gate (thresholds, regression gate, tolerances): resume with the same options"
        )


def _require_compatible(run: Run, suite: Suite, plan: SuitePlan, role: str) -> None:
    mismatches = [
        f"{label} {theirs!r} ≠ {ours!r}"
        for label, theirs, ours in (
            ("suite", run.suite, suite.name),
            ("agent", run.agent, suite.agent_name),
            ("fingerprint", run.fingerprint[:12], plan.fingerprint[:12]),
        )
        if theirs != ours
    ]
    if mismatches:
        raise BaselineError(
            f"{role} {run.id} is not compatible with this suite: " + "; ".join(mismatches)
        )


def _judge_scores_compared(options: EvaluationOptions, plan: SuitePlan) -> bool:
    """Whether the run grades judge criteria: its baseline must then be graded by the same judge."""
    return options.judge is not None and any(
        metric.kind == "judge" for case in plan.cases for metric in case.metrics
    )


@dataclass(frozen=True, slots=True)
class _Chosen:
    """The baseline a run is compared with, why, and how its samples were graded."""

    baseline: Run | None
    choice: BaselineChoice
    #: The baseline's items, pooled from its samples as graded (its cases come with the
    #: run): held through the run, one small figure per item, never its samples. ``None``
    #: for one read whole, from a store that reads no gradings apart: it holds its samples.
    pooled: dict[Item, PooledItem] | None


async def _choose_baseline(
    store: RunStore,
    current: Run,
    named: _Named | None,
    options: EvaluationOptions,
    judged: bool,
    note: Callable[[str], None],
) -> _Chosen:
    """Choose the baseline (:func:`choose_baseline`) and read it; a damaged history is bad input.

    A pinned or automatic baseline that does not read (edited or damaged by hand), or a run
    that must be read to choose one, is a :class:`BaselineError`, as a wrong explicit one
    is: the run would otherwise execute every sample and then fail to compare them, again
    on every resume.
    """
    explicit = None if named is None else named.run
    with _refused_as_bad_input(_unreadable_history):
        baseline, choice = await with_store_retries(
            _uncollected(
                functools.partial(
                    choose_baseline,
                    store,
                    current,
                    explicit,
                    options.baseline_where,
                    judged,
                    samples=False,
                )
            ),
            retry_for=options.store_retry,
            note=note,
            what="find the baseline",
        )
    if named is not None and baseline is explicit:
        return _Chosen(baseline, choice, named.pooled)  # read and pooled before anything
    if baseline is None or not isinstance(store, GradedRunStore):
        return _Chosen(baseline, choice, None)
    baseline_id = baseline.id
    with _refused_as_bad_input(functools.partial(_unreadable_baseline, choice)):
        # Pooled as read: the samples themselves are let go before any agent runs.
        pooled = await with_store_retries(
            _uncollected(lambda: _pooled_as_graded(store, baseline_id)),
            retry_for=options.store_retry,
            note=note,
            what="read the baseline",
        )
    return _Chosen(baseline, choice, pooled)


def _pooled_as_graded(store: GradedRunStore, run_id: str) -> dict[Item, PooledItem]:
    """A run's items pooled from its samples as graded, read once in report order.

    In report order each item's samples come together, so one item's tally is held at a time.
    A store that gives them apart has them pooled again, whole.
    """
    graded = store.graded_samples(run_id)
    try:
        return pool_run(graded, in_order=True)
    except ValueError:
        pass  # read again below, once this read is closed and its traceback let go
    finally:
        if isinstance(graded, Generator):
            graded.close()  # a read left part-way holds its transaction until closed
    return pool_run(store.graded_samples(run_id))


def _uncollected(work: Callable[[], T]) -> Callable[[], T]:
    """``work`` done with the collector held (:func:`~assay_agents.startup.collector_held`)."""

    def held() -> T:
        with collector_held():
            return work()

    return held


@contextlib.contextmanager
def _refused_as_bad_input(explained: Callable[[StoreError], str]) -> Iterator[None]:
    """A store's refusal to read (not an outage, a lease or a completed run) as bad input."""
    try:
        yield
    except (LeaseError, ReadOnlyRunError, StoreUnavailableError):
        raise
    except StoreError as error:
        if error.transient:
            raise
        raise BaselineError(explained(error)) from None


def _unreadable_history(error: StoreError) -> str:
    return (
        f"the history cannot be read to choose the baseline: {error}; name a baseline with "
        "--baseline RUN, pin one (assay-agents baseline set RUN), or unpin a damaged one "
        "(assay-agents baseline clear SPEC)"
    )


def _unreadable_baseline(choice: BaselineChoice, error: StoreError) -> str:
    """Why the chosen baseline cannot be compared with, and how to choose another."""
    if choice.reason is BaselineReason.PINNED:
        what = "pinned baseline"
        remedy = (
            "pin a run that reads (assay-agents baseline set RUN), unpin it (assay-agents "
            "baseline clear SPEC), or name one with --baseline RUN"
        )
    else:
        what = "automatic baseline (the latest passing run)"
        remedy = (
            "pin a run that reads (assay-agents baseline set RUN), name one with --baseline "
            "RUN, or narrow the automatic choice with --baseline-where KEY=VALUE"
        )
    return f"the {what} cannot be read: {error}; {remedy}"


def _compare(
    store: RunStore,
    current: Run,
    chosen: _Chosen,
    options: EvaluationOptions,
    summary: RunSummary,
    current_pooled: dict[Item, PooledItem] | None,
) -> _Compared:
    """Compare with the baseline, and the models with each other: computed here, once.

    The baseline was chosen before the run (:func:`_choose_baseline`: explicit, pinned,
    latest passing); items pair by their own fingerprints, so a grown or changed suite keeps
    its gate on what is unchanged. The comparison is labelled against the latest control
    run's noise floor; the model comparison (two or more models) carries their intervals.
    ``current_pooled``: the current run's items as pooled when read back, if they were.
    """
    baseline = chosen.baseline
    comparison = None
    if baseline is not None:
        policy = ComparisonPolicy(
            tolerance=options.tolerance,
            drift_tolerance=options.drift_tolerance,
            noise_floor=noise_floor(store, current),
        )
        pooled = chosen.pooled
        if pooled is not None:
            pooled = pooled_on_cases_run(pooled, current)
        comparison = compare(
            on_cases_run(baseline, current),
            current,
            policy,
            baseline_pooled=pooled,
            current_pooled=current_pooled,
        )
    models = None
    if len(summary.by_model) >= 2:  # the models its samples ran on
        models = compare_models(current)
    return _Compared(comparison, models, baseline, chosen.choice)


@dataclass(frozen=True, slots=True)
class _Compared:
    comparison: Comparison | None
    models: ModelComparison | None
    baseline: Run | None
    choice: BaselineChoice


def _complete(
    store: RunStore,
    current: Run,
    summary: RunSummary,
    comparison: Comparison | None,
    models: ModelComparison | None,
    baseline: Run | None,
    owner: Lease,
) -> Run:
    finished = _now()
    stored_comparison = StoredComparison.of(comparison, models)
    baseline_id = None if baseline is None else baseline.id
    # Verified in the completing transaction: every planned sample stored, as summarised.
    store.complete_run(
        current.id,
        summary=summary,
        finished_at=finished,
        comparison=stored_comparison,
        baseline_id=baseline_id,
        token=owner.token,
        reload=False,
        verdict=current.verdict,
        judge_usage=current.judge_usage,
        outcome=current.outcome,
        baseline_choice=current.baseline_choice,
        # Only when there are some: a store written before traces existed still completes.
        **({} if current.traces is None else {"traces": current.traces}),
    )
    return replace(
        current,
        status=RunStatus.COMPLETED,
        finished_at=finished,
        summary=summary,
        comparison=stored_comparison,
        baseline_id=baseline_id,
        error=None,
    )


async def _keep_interrupted(
    store: RunStore,
    run_id: str,
    owner: Lease,
    reason: str,
    error: BaseException,
    note: Callable[[str], None],
) -> None:
    """Mark the run interrupted with ``reason``; shielded, so a second Ctrl-C cannot skip it."""
    if isinstance(error, LeaseError | ReadOnlyRunError):
        return  # another process took the run over (and maybe finished it): theirs now
    marking = asyncio.ensure_future(
        asyncio.to_thread(
            store.mark_interrupted, run_id, finished_at=_now(), error=reason, token=owner.token
        )
    )
    try:
        await asyncio.shield(marking)
    except asyncio.CancelledError:
        await asyncio.wait({marking})
    except Exception:  # read from the future just below
        pass
    if marking.cancelled():
        return
    failure = marking.exception()  # retrieved here: never "exception was never retrieved"
    if isinstance(failure, LeaseError | ReadOnlyRunError):
        return
    if failure is not None:
        # The store is down: the lease expires instead, and this process is about to exit.
        note(
            f"run {run_id} could not be marked interrupted ({failure}); it can be resumed "
            "as soon as this process has exited"
        )


async def _keep_interrupted_if_written(
    store: RunStore, run_id: str, owner: Lease, reason: str
) -> None:
    """Mark the new run interrupted if its row was written; shielded like any marking."""

    def mark() -> None:
        try:
            found = store.get_run(run_id)
        except StoreError:
            return  # never written (or the store is down: the lease expires instead)
        held = found.lease is not None and found.lease.token == owner.token
        if found.id == run_id and held and found.status is RunStatus.RUNNING:
            store.mark_interrupted(run_id, finished_at=_now(), error=reason, token=owner.token)

    marking = asyncio.ensure_future(asyncio.to_thread(mark))
    try:
        await asyncio.shield(marking)
    except asyncio.CancelledError:
        await asyncio.wait({marking})
    except Exception:  # nothing more to do: the lease covers a run left behind
        pass
    if not marking.cancelled():
        marking.exception()  # retrieved here: never "exception was never retrieved"


def _reason(error: BaseException) -> str:
    if isinstance(error, KeyboardInterrupt | asyncio.CancelledError):
        return "interrupted (Ctrl-C or cancelled)"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _now() -> datetime:
    return datetime.now(UTC)
