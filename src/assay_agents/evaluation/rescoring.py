"""Re-scoring a stored run: its checks and its judge again, over the behaviour it recorded.

:func:`rescore` reads a completed run, builds its cases again from the snapshots it stored
(never today's suite), and runs them through the usual lifecycle with, instead of the
agent, the outcomes the run recorded: each sample's answer, actions, observation, usage,
duration, error and metadata. No agent is called. The new run is linked to the original
(``links["rescored_from"]``) and compared with it by the usual rules: the behaviour is the
same by construction, so what moves is the checks' or the judge's doing (a new judge, a
changed rubric, other votes): pure judge drift.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from assay_agents.agent import AgentContext, Outcome, parse_models
from assay_agents.compare import DEFAULT_DRIFT_TOLERANCE
from assay_agents.errors import ConfigurationError, StoreError
from assay_agents.evaluation.executor import LocalExecutor
from assay_agents.evaluation.lifecycle import Evaluation, evaluate_with
from assay_agents.evaluation.loop import run_sync
from assay_agents.evaluation.options import EvaluationOptions
from assay_agents.evaluation.ports import RunStore, Work
from assay_agents.judging import Judge, JudgeReply, resolve
from assay_agents.judging.cache import call_position
from assay_agents.judging.prompt import instructions
from assay_agents.results import Run, RunStatus, SampleResult
from assay_agents.results.run import RESCORED_FROM
from assay_agents.runner.progress import Progress, default_progress
from assay_agents.spec import JSON, CasePlan, Suite, SuitePlan
from assay_agents.spec.json_data import digest

SampleKey = tuple[str, str | None, int]


class Recorded:
    """An agent that answers each sample with what the stored run recorded for it.

    It calls nothing: a sample the stored run did not record is an error of the rescore.
    """

    def __init__(self, run: Run) -> None:
        self.samples: dict[SampleKey, SampleResult] = {sample.key: sample for sample in run.samples}
        self.__name__ = run.agent

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """The recorded outcome of the sample ``ctx`` names."""
        model = None if ctx.model is None else ctx.model.label
        sample = self.samples.get((ctx.case.id, model, ctx.sample))
        if sample is None:
            raise LookupError(f"the stored run recorded no sample #{ctx.sample} of {ctx.case.id}")
        return Outcome(
            answer=sample.answer,
            actions=sample.actions,
            observation=sample.observation,
            usage=sample.usage,
            duration_ms=sample.duration_ms,
            error=sample.error,
            metadata=dict(sample.metadata),
        )


def ungraded(sample: SampleResult) -> bool:
    """Whether the run stored ``sample`` as an error it never graded.

    The runner grades nothing of a sample whose agent raised, timed out, returned what does
    not read or answered on another model: no check and no judge saw it. Graded again, its
    recorded outcome would be checked as if the agent had answered.
    """
    return sample.error is not None and not sample.metrics


class RescoringExecutor:
    """Executes a rescore locally, keeping each errored sample the run never graded as stored.

    Everything else is graded again by the engine (its agent answers with what was recorded),
    so the rescored run's deterministic figures are the original's.
    """

    name = "local"

    def __init__(self, run: Run) -> None:
        self.kept = {sample.key: sample for sample in run.samples if ungraded(sample)}

    async def execute(self, work: Work) -> Sequence[SampleResult]:
        """Put the kept samples into the sink, then run the rest on the engine."""
        kept = [self.kept[item.key] for item in work.items if item.key in self.kept]
        for sample in kept:
            await work.sink.put(sample)
        rest = tuple(item for item in work.items if item.key not in self.kept)
        graded = await LocalExecutor().execute(replace(work, items=rest))
        return [*kept, *graded]


def stored_run(store: RunStore, ref: str) -> Run:
    """The completed run ``ref`` names; a missing or unfinished one is a configuration error."""
    try:
        run = store.get_run(ref)
    except StoreError as error:
        if error.transient:
            raise
        raise ConfigurationError(f"run to rescore {ref!r}: {error}") from None
    if run.status is not RunStatus.COMPLETED:
        raise ConfigurationError(
            f"run {run.id} is {run.status.value}, not completed: resume it before rescoring it"
        )
    return run


class RestoredSuite(Suite):
    """A suite built again from a run's snapshots, planned in the order the run stored.

    A suite's default checks were planned after a case's implied ones (expected actions,
    observation channels); built again they are the case's own, planned before. Put back in
    the stored order (and to the stored metrics), each case has the fingerprint the run
    stored, so the two runs pair.
    """

    def __init__(self, run: Run) -> None:
        super().__init__(
            run.suite,
            agent=Recorded(run),
            version=run.suite_version,
            agent_name=run.agent,
            samples=run.settings.samples,
        )
        self.stored_order = {
            snapshot.case_id: _metric_names(snapshot.definition) for snapshot in run.cases
        }

    def plan(self, *, judged: bool | None = None) -> SuitePlan:
        """The plan, each case's metrics in the order the run stored them."""
        planned = super().plan(judged=judged)
        cases = tuple(
            _reordered(case, self.stored_order.get(case.case.id, [])) for case in planned.cases
        )
        items = sorted((case.case.id, case.fingerprint) for case in cases)
        identity: JSON = {
            "suite": planned.suite,
            "version": planned.version,
            "items": [[case_id, fingerprint] for case_id, fingerprint in items],
        }
        return replace(planned, cases=cases, fingerprint=digest(identity))


def _metric_names(definition: Mapping[str, JSON]) -> list[str]:
    metrics = definition.get("metrics")
    if not isinstance(metrics, list):
        return []
    return [str(metric.get("name")) for metric in metrics if isinstance(metric, dict)]


def _reordered(case: CasePlan, order: list[str]) -> CasePlan:
    """The case's metrics as the run planned them: in its order, and only those.

    Built again, a case with a suite's default criteria as its own would also be given
    the criteria a case without defaults gets: the run never calculated those.
    """
    rank = {name: index for index, name in enumerate(order)}
    kept = [metric for metric in case.metrics if metric.name in rank]
    metrics = tuple(sorted(kept, key=lambda metric: rank[metric.name]))
    if metrics == case.metrics:
        return case
    definition = case.case.definition()
    definition["metrics"] = [metric.definition() for metric in metrics]
    return replace(case, metrics=metrics, fingerprint=digest(definition))


def rescored_suite(run: Run) -> Suite:
    """The suite ``run`` ran, from its case snapshots, answered by what it recorded."""
    from assay_agents.record import rebuilt_cases

    suite = RestoredSuite(run)
    for case in rebuilt_cases(run):
        suite.add(case)
    return suite


class StoredVerdicts:
    """A judge that calls no model: each vote is the one the stored run recorded.

    ``--checks-only`` grades with it, so the judge criteria keep their stored grades (and
    each case its fingerprint: the runs pair) while only the checks run again. Its replies
    cost nothing and say so (cached). A vote the stored run did not record (a criterion it
    did not grade) is an error of that vote, never a pass.
    """

    def __init__(self, run: Run, plan: SuitePlan) -> None:
        self.label = run.settings.judge or "stored verdicts"
        self._identity = run.settings.judge or self.label
        self.samples = {sample.key: sample for sample in run.samples}
        self.criteria: dict[str, str] = {}
        for case in plan.cases:
            for metric in case.metrics:
                if metric.kind == "judge":
                    criterion = resolve(metric.name, metric.check, metric.threshold)
                    self.criteria[instructions(criterion)] = metric.name

    def identity(self) -> str:
        """The identity of the judge that recorded the votes: the runs compare as one."""
        return self._identity

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        """The stored vote at this call's position, as the reply that gave it."""
        where = call_position()
        sample = self.samples.get((where.case or "", where.model, where.sample or 0))
        name = self.criteria.get(instructions)
        metric = None if sample is None or name is None else sample.metric(name)
        votes = () if metric is None else metric.votes or ()
        if where.vote >= len(votes):
            raise LookupError("the stored run recorded no such vote")
        vote = votes[where.vote]
        if vote.raw is not None:
            text = json.dumps({"score": vote.raw, "reason": vote.reason or ""})
        elif vote.reply is not None:
            text = vote.reply
        else:
            raise StoredVoteError(vote.error or "the stored vote has no verdict")
        return JudgeReply(text, cost_usd=0.0, cached=True)


class StoredVoteError(Exception):
    """A vote that failed in the stored run fails again, with its stored reason."""


def rescore_judge(
    run: Run, suite: Suite, judge: Judge | None, *, checks_only: bool, votes: int | None
) -> Judge | None:
    """The judge to grade with: ``judge``, else the run's own built again; none for checks."""
    if checks_only:
        if judge is not None or votes is not None:
            raise ConfigurationError(
                "--checks-only runs the checks alone: drop --judge and --votes"
            )
        if run.settings.judge is None:
            return None
        return StoredVerdicts(run, suite.plan(judged=True))
    if judge is not None or run.settings.judge is None:
        return judge
    from assay_agents.record import rebuilt_judge

    try:
        return rebuilt_judge(run)
    except ConfigurationError as error:
        raise ConfigurationError(f"{error}: give the rescore a judge (--judge MODEL)") from None


def rescore_options(
    run: Run,
    suite: Suite,
    judge: Judge | None,
    *,
    votes: int | None,
    cache: bool,
    metadata: Mapping[str, Any] | None,
    run_id: str | None,
    concurrency: int | None,
    fail_on_regression: bool,
) -> EvaluationOptions:
    """The options of the new run: the original's matrix and gate, compared with it."""
    settings = run.settings
    gate = settings.gate
    given_votes = votes if votes is not None else (settings.votes if judge is not None else None)
    options = EvaluationOptions.build(
        suite,
        metadata={**run.metadata, **dict(metadata or {})},
        samples=settings.samples,
        concurrency=concurrency or settings.concurrency,
        model_concurrency=settings.model_concurrency,
        models=settings.model_specs or parse_models(settings.models),
        baseline=run.id,
        run_id=run_id,
        judge=judge,
        votes=given_votes,
        gate=None if gate is None else gate.thresholds,
        fail_on_regression=fail_on_regression or (gate is not None and gate.fail_on_regression),
        allow_unchecked=gate is not None and gate.allow_unchecked,
        tolerance=0.0 if gate is None else gate.tolerance,
        drift_tolerance=DEFAULT_DRIFT_TOLERANCE if gate is None else gate.drift_tolerance,
        cache=cache,
        executor=RescoringExecutor(run),
        # The same outcomes, so the same release: never the revision of where it is rescored.
        release=settings.release or {"revision": None},
    )
    return replace(options, links={RESCORED_FROM: run.id})


async def rescore_with(
    ref: str,
    store: RunStore,
    progress: Progress,
    *,
    judge: Judge | None = None,
    votes: int | None = None,
    checks_only: bool = False,
    cache: bool = False,
    metadata: Mapping[str, Any] | None = None,
    run_id: str | None = None,
    concurrency: int | None = None,
    fail_on_regression: bool = False,
) -> Evaluation:
    """Rescore the run ``ref`` in ``store``; see :func:`rescore_async`."""
    run = await asyncio.to_thread(stored_run, store, ref)
    suite = rescored_suite(run)
    chosen = rescore_judge(run, suite, judge, checks_only=checks_only, votes=votes)
    options = rescore_options(
        run,
        suite,
        chosen,
        votes=votes,
        # The stored votes are at hand already: a cache would only copy them.
        cache=cache and not checks_only,
        metadata=metadata,
        run_id=run_id,
        concurrency=concurrency,
        fail_on_regression=fail_on_regression,
    )
    return await evaluate_with(suite, options, store, progress)


async def rescore_async(
    run: str,
    *,
    db: str | RunStore | None = None,
    judge: Judge | None = None,
    votes: int | None = None,
    checks_only: bool = False,
    cache: bool | None = None,
    metadata: Mapping[str, Any] | None = None,
    run_id: str | None = None,
    concurrency: int | None = None,
    fail_on_regression: bool = False,
    progress: Progress | bool | None = None,
) -> Evaluation:
    """Run the checks and the judge again over a stored run's outcomes, calling no agent.

    ``run`` is a completed run's id, unique prefix or handle (``suite#3``). Its cases are
    built again from the snapshots it stored, so a custom check (code the run does not
    keep) cannot be run again and is refused. ``judge`` grades with another judge (default:
    the run's own, built again from its settings); ``votes`` asks that many votes per
    criterion (default: the run's); ``checks_only`` runs the deterministic checks alone.
    ``cache`` answers judge calls from the cache (default: the project configuration's).
    The new run keeps the original's samples, models, concurrency and gate, is linked to it
    (``links["rescored_from"]``) and compared with it: the returned :class:`Evaluation` has
    the verdict a CLI maps to its exit code. A missing or unfinished run is a
    :class:`~assay_agents.errors.ConfigurationError` (exit 2).
    """
    from assay_agents.load.project import project_config
    from assay_agents.store import Store

    if cache is None:
        cache = bool(project_config().cache)
    display = _progress(progress)
    arguments: dict[str, Any] = {
        "judge": judge,
        "votes": votes,
        "checks_only": checks_only,
        "cache": cache,
        "metadata": metadata,
        "run_id": run_id,
        "concurrency": concurrency,
        "fail_on_regression": fail_on_regression,
    }
    if db is not None and not isinstance(db, str):
        return await rescore_with(run, db, display, **arguments)
    store = await asyncio.to_thread(Store.open, db, create=False)
    try:
        return await rescore_with(run, store, display, **arguments)
    finally:
        store.close()


def rescore(run: str, **options: Any) -> Evaluation:
    """Rescore ``run`` synchronously; see :func:`rescore_async` for the options."""
    from assay_agents.evaluation.api import _refuse_running_loop

    _refuse_running_loop("rescore")
    return run_sync(rescore_async(run, **options))


def _progress(progress: Progress | bool | None) -> Progress:
    if progress is None:
        return default_progress()
    if isinstance(progress, bool):
        return default_progress(quiet=not progress)
    return progress
