"""The public entry points: :func:`evaluate` and :func:`run`, each with a coroutine twin.

Each takes a :class:`~assay.Suite` or the path of one, and applies the project's
configuration (judge, concurrency, gate, the automatic baseline's metadata) as
``assay-agents run`` does, through :func:`assay_agents.load.open_suite` and
:func:`assay_agents.load.project.configured`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, Unpack

from assay_agents.agent import ModelSpec
from assay_agents.errors import ConfigurationError, SpecError
from assay_agents.evaluation.lifecycle import Evaluation, evaluate_with
from assay_agents.evaluation.loop import run_sync
from assay_agents.evaluation.options import EvaluationArgs, EvaluationOptions, _judge, _positive
from assay_agents.evaluation.ports import RunStore
from assay_agents.results import Run, SampleResult
from assay_agents.runner.progress import Progress, default_progress
from assay_agents.spec import Case, Suite
from assay_agents.spec.metrics import CheckDefinition

if TYPE_CHECKING:
    from assay_agents.load.config import ProjectConfig
    from assay_agents.load.opening import Selection
    from assay_agents.store import Store

#: A suite, or the path of a file suite or a Python spec that defines one.
SuiteOrPath = Suite | str | PathLike[str]


async def evaluate_async(
    suite: SuiteOrPath,
    *,
    db: str | RunStore | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    **options: Unpack[EvaluationArgs],
) -> Evaluation:
    """Run ``suite``, persist every sample, compare, and decide; return the :class:`Evaluation`.

    ``db`` is a database URL (default: the embedded SQLite file ``.assay/assay.db``), an open
    :class:`~assay_agents.store.Store`, or any other :class:`~assay_agents.evaluation.RunStore`,
    such as a
    :class:`~assay_agents.evaluation.MemoryRunStore` for tests and embedders. ``models`` runs every
    case on every model; ``samples`` runs each case that many times. ``baseline`` names an
    explicit compatible baseline (by default the pinned one, else the latest earlier passing
    run, restricted to runs whose metadata matches ``baseline_where``, e.g.
    ``{"branch": "main"}``); ``resume`` continues
    an interrupted run, or takes over a running one whose owner died (``lease_timeout``
    seconds without a heartbeat, 60 by default, or its process gone). ``judge`` (default:
    the suite's) grades the judge criteria, each with ``votes`` fresh calls (default 1).
    ``run_id`` fixes the new run's id. ``progress`` is a :class:`Progress`, ``True``,
    ``False``, or ``None`` for a bar when standard error is a terminal. ``tolerance``
    excuses a score movement against the baseline; a judge score must also move beyond
    ``drift_tolerance`` (0.025) to count. ``sample_concurrency`` caps the samples of one
    case in flight at once. ``gate`` and ``fail_on_regression`` decide the verdict; a run in
    which no sample was evaluated fails it unless ``allow_unchecked``. A store that fails is
    retried for ``store_retry`` seconds (60) before the run stops as interrupted with
    :class:`~assay_agents.errors.StoreUnavailableError`. ``executor`` executes the samples (an
    :class:`~assay_agents.evaluation.Executor`; by default
    :class:`~assay_agents.evaluation.LocalExecutor`, in this process); ``observers``
    (:class:`~assay_agents.evaluation.RunObserver`) are told what the run does, beside the progress
    display. ``trace`` traces the run with
    :class:`assay_agents.otel.Correlation` (``True``), never (``False``), or, by default, when the
    process already traces: OpenTelemetry is loaded and a tracer provider is set.
    ``cache`` answers judge calls made before from the store's cache and keeps new replies
    there (default: the project configuration's ``cache``, else off); a cached reply costs
    nothing, and each sample counts its cached calls. ``cache_model_calls`` does the same for
    the model calls of the built-in chat agents (``assay_agents.agents.openai_chat``,
    ``litellm_chat``; off by default): a sample answered wholly from the cache costs nothing
    (cost source ``cached``) and counts its cached calls in its metadata.

    ``suite`` may be the path of a suite (any format ``assay-agents run`` takes), opened with
    ``selection`` (an :class:`assay_agents.load.Selection`); the project configuration fills what
    neither the arguments nor the suite set. A history that opening ``db`` upgrades to this
    Assay's schema revision is told with a :class:`UserWarning` naming where the previous
    file is backed up.
    """
    opened, config = open_configured(suite, selection)
    if options.get("baseline") is None and options.get("baseline_where") is None:
        options["baseline_where"] = dict(config.baseline_where) or None
    if options.get("cache") is None:
        options["cache"] = config.cache
    resolved = EvaluationOptions.build(opened, **options)
    display = _progress(progress)
    if db is not None and not isinstance(db, str):
        return await evaluate_with(opened, resolved, db, display)
    store = await asyncio.to_thread(_open_announced, db)
    try:
        return await evaluate_with(opened, resolved, store, display)
    finally:
        store.close()


def _open_announced(db: str | None) -> Store:
    """Open the store at ``db``; a history that opening upgraded is told as a warning."""
    import warnings

    from assay_agents.store import Store
    from assay_agents.store.revisions import Upgrade
    from assay_agents.store.upgrades import HistoryUpgraded, upgraded_note

    heard: list[Upgrade] = []
    store = Store.open(db, on_upgrade=heard.append)
    for plan in heard:
        note = upgraded_note(plan)
        if note is not None:
            warnings.warn(note, HistoryUpgraded, stacklevel=2)
    return store


def open_configured(
    suite: SuiteOrPath, selection: Selection | None = None
) -> tuple[Suite, ProjectConfig]:
    """The suite to run, opened if it is a path, with the project configuration applied."""
    from assay_agents.load.opening import open_suite, require_agent
    from assay_agents.load.project import configured, project_config

    config = project_config()
    if isinstance(suite, Suite):
        if selection is not None:
            raise TypeError("selection= chooses from a suite's path; select() a Suite")
        return configured(suite, config), config
    opened = open_suite(suite, selection, config=config)
    require_agent(opened)
    return opened, config


def evaluate(
    suite: SuiteOrPath,
    *,
    db: str | RunStore | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    **options: Unpack[EvaluationArgs],
) -> Evaluation:
    """Run ``suite`` synchronously; see :func:`evaluate_async` for the options."""
    _refuse_running_loop("evaluate")
    return run_sync(evaluate_async(suite, db=db, progress=progress, selection=selection, **options))


async def run_async(
    suite: SuiteOrPath,
    *,
    db: str | RunStore | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    **options: Unpack[EvaluationArgs],
) -> Run:
    """Run ``suite`` and return the completed, persisted :class:`~assay_agents.results.Run`.

    The options are those of :func:`evaluate_async`, which also returns the comparisons and
    the verdict.
    """
    evaluation = await evaluate_async(
        suite, db=db, progress=progress, selection=selection, **options
    )
    return evaluation.run


def run(
    suite: SuiteOrPath,
    *,
    db: str | RunStore | None = None,
    progress: Progress | bool | None = None,
    selection: Selection | None = None,
    **options: Unpack[EvaluationArgs],
) -> Run:
    """Run ``suite`` synchronously; see :func:`evaluate_async` for the options."""
    _refuse_running_loop("run")
    return run_sync(run_async(suite, db=db, progress=progress, selection=selection, **options))


async def grade_async(
    case: Case,
    outcome: Any,
    *,
    checks: Sequence[CheckDefinition] | None = None,
    criteria: Sequence[Any] | None = None,
    judge: Any = None,
    votes: int | None = None,
    model: str | ModelSpec | None = None,
    sample: int = 0,
) -> SampleResult:
    """Grade an ``outcome`` you already hold on ``case``: no agent call, no run, no database.

    The same checks, judging and diagnosis a run's sample gets: the case's own checks and
    ``checks`` (a suite's defaults, as :class:`~assay.Suite` takes them), and with a
    ``judge`` the case's judge criteria and ``criteria``, each with ``votes`` calls.
    ``outcome`` is what an agent returns (an :class:`~assay.Outcome`, its answer as a string,
    or a dict of its fields). Returns the :class:`~assay_agents.results.SampleResult` a run would
    store for sample ``sample`` on ``model``.
    """
    from assay_agents.runner.held import grade_held

    chosen = _judge(judge, votes)
    if model is not None and not isinstance(model, ModelSpec):
        model = ModelSpec.parse(model)
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise SpecError(f"{sample!r} is not a sample index (0 or more)", field="sample")
    prepare = getattr(chosen, "prepare", None)
    if callable(prepare):
        await asyncio.to_thread(prepare)
    return await grade_held(
        case,
        outcome,
        checks=tuple(checks or ()),
        criteria=tuple(criteria or ()),
        judge=chosen,
        votes=1 if votes is None else _positive(votes, "votes"),
        model=model,
        sample=sample,
    )


def grade(
    case: Case,
    outcome: Any,
    *,
    checks: Sequence[CheckDefinition] | None = None,
    criteria: Sequence[Any] | None = None,
    judge: Any = None,
    votes: int | None = None,
    model: str | ModelSpec | None = None,
    sample: int = 0,
) -> SampleResult:
    """Grade an outcome you already hold, synchronously; see :func:`grade_async`.

    >>> from assay_agents import checks
    >>> suite = Suite("Support", agent=lambda text, ctx: "")
    >>> case = suite.case("Return window?", expected="30 days")
    >>> grade(case, "30 days", checks=[checks.exact_match()]).status.value
    'passed'
    """
    _refuse_running_loop("grade")
    return run_sync(
        grade_async(
            case,
            outcome,
            checks=checks,
            criteria=criteria,
            judge=judge,
            votes=votes,
            model=model,
            sample=sample,
        )
    )


def _refuse_running_loop(name: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise ConfigurationError(
        f"assay.{name}() cannot start inside a running event loop "
        f"(Jupyter, an async app): use `await assay.{name}_async(...)`"
    )


def _progress(progress: Progress | bool | None) -> Progress:
    if progress is None:
        return default_progress()
    if isinstance(progress, bool):
        return default_progress(quiet=not progress)
    return progress
