"""The public entry points: :func:`run` and its coroutine twin :func:`run_async`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from assay.agent import ModelSpec
from assay.compare import DEFAULT_DRIFT_TOLERANCE
from assay.results import Run
from assay.runner.progress import Progress, default_progress
from assay.runner.session import execute_suite, resolve_options
from assay.spec import Suite

if TYPE_CHECKING:
    from assay.store import Store


async def run_async(
    suite: Suite,
    *,
    db: str | Store | None = None,
    metadata: Mapping[str, Any] | None = None,
    samples: int | None = None,
    concurrency: int | None = None,
    model_concurrency: int | None = None,
    timeout: float | None = None,
    models: Iterable[str | ModelSpec] | None = None,
    baseline: str | None = None,
    resume: str | None = None,
    tolerance: float = 0.0,
    progress: Progress | bool | None = None,
    run_id: str | None = None,
    judge: Any = None,
    votes: int | None = None,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    sample_concurrency: int | None = None,
) -> Run:
    """Run ``suite`` and return the completed, persisted :class:`~assay.results.Run`.

    ``db`` is a database URL or an open :class:`~assay.store.Store` (default: the embedded
    SQLite file ``.assay/assay.db``). ``models`` runs every case on every model; ``samples``
    runs each case that many times. ``baseline`` names an explicit compatible baseline (by
    default the latest earlier compatible run is used); ``resume`` continues an interrupted
    run. ``judge`` (default: the suite's) grades the judge criteria, each with ``votes``
    fresh calls (default 1). ``run_id`` fixes the new run's id (a uuid4 by default).
    ``progress`` is a :class:`Progress`, ``True``/``False``, or ``None`` for a bar when
    standard error is a terminal. ``tolerance`` excuses a score movement against the
    baseline; a judge score must also move beyond ``drift_tolerance`` (0.025 on the 0–1
    scale) to count.
    ``sample_concurrency`` caps the samples of one case in flight at once (default: the
    suite's, else only ``concurrency``); results are the same whatever it is.
    """
    from assay.store import Store

    options = resolve_options(
        suite, metadata=metadata, samples=samples, concurrency=concurrency,
        model_concurrency=model_concurrency, timeout=timeout, models=models,
        baseline=baseline, resume=resume, tolerance=tolerance, run_id=run_id,
        judge=judge, votes=votes, drift_tolerance=drift_tolerance,
        sample_concurrency=sample_concurrency,
    )
    display = _progress(progress)
    if isinstance(db, Store):
        return await execute_suite(suite, options, db, display)
    store = await asyncio.to_thread(Store.open, db)
    try:
        return await execute_suite(suite, options, store, display)
    finally:
        store.close()


def run(suite: Suite, **options: Any) -> Run:
    """Run ``suite`` synchronously; see :func:`run_async` for the options."""
    return asyncio.run(run_async(suite, **options))


def _progress(progress: Progress | bool | None) -> Progress:
    if progress is None:
        return default_progress()
    if isinstance(progress, bool):
        return default_progress(quiet=not progress)
    return progress
