"""``assay.run``: plan, persist, execute, summarise and compare one run of a suite."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.agent import ModelSpec, parse_models
from assay.compare import (
    DEFAULT_DRIFT_TOLERANCE,
    ComparisonPolicy,
    ModelComparison,
    NoiseFloor,
    compare,
    stored_form,
)
from assay.errors import BaselineError, ConfigurationError, SpecError
from assay.judging import Judge
from assay.results import CaseSnapshot, Run, RunStatus, RunSummary, summarise
from assay.runner.engine import DEFAULT_CONCURRENCY, Execution, Runner
from assay.runner.grading import Judging
from assay.runner.progress import Progress
from assay.runner.sink import BatchingSink
from assay.spec import JSON, Suite, SuitePlan, portable

if TYPE_CHECKING:
    from assay.store import Store


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Everything one run is asked to do beyond the suite itself, resolved once."""

    metadata: dict[str, JSON] = field(default_factory=dict)
    samples: int = 1
    samples_given: bool = False
    concurrency: int = DEFAULT_CONCURRENCY
    model_concurrency: int | None = None
    sample_concurrency: int | None = None
    timeout: float | None = None
    models: tuple[ModelSpec, ...] = ()
    baseline: str | None = None
    resume: str | None = None
    tolerance: float = 0.0
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE
    run_id: str | None = None
    judge: Judge | None = None
    votes: int = 1
    links: dict[str, JSON] = field(default_factory=dict)


def resolve_options(
    suite: Suite,
    *,
    metadata: Mapping[str, Any] | None = None,
    samples: int | None = None,
    concurrency: int | None = None,
    model_concurrency: int | None = None,
    timeout: float | None = None,
    models: Iterable[str | ModelSpec] | None = None,
    baseline: str | None = None,
    resume: str | None = None,
    tolerance: float = 0.0,
    run_id: str | None = None,
    judge: Any = None,
    votes: int | None = None,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    sample_concurrency: int | None = None,
) -> RunOptions:
    """Apply the precedence (explicit argument, then suite setting, then default) and validate."""
    converted = portable(dict(metadata or {}), "metadata")
    assert isinstance(converted, dict)
    return RunOptions(
        metadata=converted,
        samples=_positive(samples if samples is not None else suite.samples, "samples"),
        samples_given=samples is not None,
        concurrency=_positive(concurrency or suite.concurrency or DEFAULT_CONCURRENCY,
                              "concurrency"),
        model_concurrency=None if model_concurrency is None else _positive(
            model_concurrency, "model_concurrency"),
        timeout=_timeout(timeout),
        models=parse_models(models),
        baseline=baseline,
        resume=resume,
        tolerance=_tolerance(tolerance),
        drift_tolerance=_tolerance(drift_tolerance, "drift_tolerance"),
        run_id=run_id,
        judge=_judge(judge if judge is not None else suite.judge, votes),
        votes=_positive(votes if votes is not None else suite.votes or 1, "votes"),
        sample_concurrency=_optional_positive(
            sample_concurrency if sample_concurrency is not None else suite.sample_concurrency,
            "sample_concurrency"),
    )


async def execute_suite(suite: Suite, options: RunOptions, store: Store,
                        progress: Progress | None = None) -> Run:
    """Run ``suite`` and persist it in ``store``; return the completed run.

    An explicit baseline is checked before any agent runs. Each sample is persisted as it
    lands; on Ctrl-C or a crash the run is marked ``interrupted`` (resumable) and the error
    propagates.
    """
    plan = suite.plan(judged=options.judge is not None)
    explicit = _explicit_baseline(store, options.baseline, suite, plan)
    run, skip, models = _begin(store, suite, plan, options)
    judging = None if options.judge is None else Judging(options.judge, options.votes)
    execution = Execution(samples=int(run.settings["samples"]),  # type: ignore[arg-type]
                          concurrency=options.concurrency,
                          model_concurrency=options.model_concurrency, timeout=options.timeout,
                          sample_concurrency=options.sample_concurrency,
                          judging=judging)
    runner = Runner(suite.agent, execution=execution, sink=BatchingSink(store, run.id),
                    progress=progress)
    try:
        results = await runner.execute(plan, models, skip=skip)
    except BaseException:
        await asyncio.to_thread(store.mark_interrupted, run.id, finished_at=_now())
        raise
    # A resumed run's earlier samples are in the store; a fresh run's are all in hand, so it
    # is completed without being read back (one copy of a large run in memory, no re-read).
    fresh = None if skip else run.with_samples(tuple(results))
    del results
    conclusion = await asyncio.to_thread(_conclude, store, run.id, fresh, explicit, options)
    return await asyncio.to_thread(_complete, store, run.id, conclusion, fresh)


def _begin(store: Store, suite: Suite, plan: SuitePlan,
           options: RunOptions) -> tuple[Run, set[tuple[str, str | None, int]],
                                         tuple[ModelSpec, ...]]:
    if options.resume is not None:
        run = _resumable(store, options.resume, suite, plan, options)
        models = parse_models(run.settings.get("models") or ())  # type: ignore[arg-type]
        return store.reopen(run.id), store.sample_keys(run.id), models
    run = store.create_run(_new_run(suite, plan, options))
    return run, set(), options.models


def _new_run(suite: Suite, plan: SuitePlan, options: RunOptions) -> Run:
    settings: dict[str, JSON] = {
        "samples": options.samples,
        "concurrency": options.concurrency,
        "model_concurrency": options.model_concurrency,
        "sample_concurrency": options.sample_concurrency,
        "timeout": options.timeout,
        "models": [spec.label for spec in options.models],
        "judge": None if options.judge is None else options.judge.label,
        "votes": options.votes,
        "executor": "local",
    }
    cases = tuple(
        CaseSnapshot(p.case.id, p.case.name, p.position, p.fingerprint, p.snapshot())
        for p in plan.cases
    )
    return Run(id=options.run_id or str(uuid.uuid4()), suite=suite.name,
               suite_version=suite.version, agent=suite.agent_name,
               fingerprint=plan.fingerprint, status=RunStatus.RUNNING, started_at=_now(),
               settings=settings, metadata=options.metadata, cases=cases, links=options.links)


def _explicit_baseline(store: Store, ref: str | None, suite: Suite,
                       plan: SuitePlan) -> Run | None:
    if ref is None:
        return None
    try:
        baseline = store.get_run(ref)
    except Exception as error:
        raise BaselineError(f"baseline {ref!r}: {error}") from None
    if baseline.status is not RunStatus.COMPLETED:
        raise BaselineError(f"baseline {baseline.id} is {baseline.status.value}, not completed")
    _require_compatible(baseline, suite, plan, "baseline")
    return baseline


def _resumable(store: Store, ref: str, suite: Suite, plan: SuitePlan,
               options: RunOptions) -> Run:
    run = store.get_run(ref)
    if run.status is RunStatus.COMPLETED:
        raise ConfigurationError(f"run {run.id} is completed and read-only; nothing to resume")
    if run.status is RunStatus.RUNNING:
        raise ConfigurationError(f"run {run.id} is still running (another process holds it); "
                                 "only an interrupted run can be resumed")
    _require_compatible(run, suite, plan, "run to resume")
    _require_same_matrix(run, options)
    return run


def _require_same_matrix(run: Run, options: RunOptions) -> None:
    # A resumed run keeps its own models and samples: asking for others is a contradiction.
    asked = [spec.label for spec in options.models]
    if asked and asked != run.settings.get("models"):
        raise ConfigurationError(f"run {run.id} runs models {run.settings.get('models')}; "
                                 f"a resume cannot change them to {asked}")
    if options.samples_given and options.samples != run.settings.get("samples"):
        raise ConfigurationError(f"run {run.id} runs {run.settings.get('samples')} sample(s) "
                                 f"per case; a resume cannot change that to {options.samples}")


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
        raise BaselineError(f"{role} {run.id} is not compatible with this suite: "
                            + "; ".join(mismatches))


@dataclass(frozen=True, slots=True)
class _Conclusion:
    summary: RunSummary
    comparison: dict[str, Any] | None
    baseline_id: str | None


def _conclude(store: Store, run_id: str, fresh: Run | None, explicit: Run | None,
              options: RunOptions) -> _Conclusion:
    """Summarise, and work out what is stored with the completed run.

    The comparison with the baseline is labelled against the latest control run's noise
    floor; with two or more models their intervals are computed here, once.
    """
    current = fresh or store.get_run(run_id)
    baseline = explicit or store.find_baseline(current)
    comparison = None
    if baseline is not None:
        policy = ComparisonPolicy(tolerance=options.tolerance,
                                  drift_tolerance=options.drift_tolerance,
                                  noise_floor=_noise_floor(store, current))
        comparison = compare(baseline, current, policy)
    models = None
    if len({sample.model for sample in current.samples if sample.model is not None}) >= 2:
        models = ModelComparison.of(current)
    return _Conclusion(summarise(current.samples), stored_form(comparison, models),
                       None if baseline is None else baseline.id)


def _noise_floor(store: Store, run: Run) -> NoiseFloor | None:
    pair = store.find_control_pair(run)
    return None if pair is None else NoiseFloor.measure(*pair)


def _complete(store: Store, run_id: str, conclusion: _Conclusion, fresh: Run | None) -> Run:
    finished = _now()
    stored = store.complete_run(run_id, summary=conclusion.summary, finished_at=finished,
                                comparison=conclusion.comparison,
                                baseline_id=conclusion.baseline_id, reload=fresh is None)
    if stored is not None:
        return stored
    assert fresh is not None
    return dataclasses.replace(fresh, status=RunStatus.COMPLETED, finished_at=finished,
                               summary=conclusion.summary, comparison=conclusion.comparison,
                               baseline_id=conclusion.baseline_id)


def _now() -> datetime:
    return datetime.now(UTC)


#: A bound on samples per case: a plan that large is a typo, not an evaluation.
MAX_SAMPLES = 10_000


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(f"{value!r} is not a positive whole number", field=name)
    if name == "samples" and value > MAX_SAMPLES:
        raise SpecError(f"{value} is more than {MAX_SAMPLES:,} samples per case", field=name)
    return value


def _optional_positive(value: Any, name: str) -> int | None:
    return None if value is None else _positive(value, name)


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            0 < value < float("inf")):
        raise SpecError(f"{value!r} is not a positive, finite number of seconds",
                        field="timeout")
    return float(value)


def _judge(value: Any, votes: int | None = None) -> Judge | None:
    if value is None:
        if votes is not None:
            raise ConfigurationError("votes were asked for but there is no judge: give the "
                                     "suite a judge= or run with --judge")
        return None
    label = getattr(value, "label", None)
    if not isinstance(label, str) or not label or not callable(getattr(value, "complete", None)):
        raise ConfigurationError(f"{value!r} is not a judge: a judge has a label and "
                                 "complete(instructions, prompt); see assay.judges")
    return value  # type: ignore[no-any-return]


def _tolerance(value: Any, name: str = "tolerance") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise SpecError(f"{value!r} is not a tolerance in [0, 1]", field=name)
    return float(value)
