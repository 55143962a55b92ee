"""Control runs: the same suite twice against the same code, to measure the noise floor."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Unpack

from assay_agents.evaluation.api import _progress
from assay_agents.evaluation.lifecycle import evaluate_with
from assay_agents.evaluation.options import EvaluationArgs, EvaluationOptions
from assay_agents.results import Run
from assay_agents.runner.progress import Progress
from assay_agents.spec import JSON, Suite

#: The role of a control pair's second run when the pair measured nothing.
UNMEASURED = "unmeasured"

if TYPE_CHECKING:
    from assay_agents.store import Store


async def run_control_async(
    suite: Suite,
    *,
    db: str | Store | None = None,
    progress: Progress | bool | None = None,
    **options: Unpack[EvaluationArgs],
) -> tuple[Run, Run]:
    """Run ``suite`` twice, back to back, and store the two runs as a control pair.

    Nothing changes between the runs, so whatever moves between them is the harness's own
    noise (see :class:`assay.NoiseFloor`). Both runs carry ``links["control"]`` naming the
    pair; later comparisons of the same definition find the latest pair by it, unless the
    first run evaluated no sample: that pair's second run is marked ``unmeasured`` and no
    floor is ever read from it (see :func:`checked`). ``options``
    are those of :func:`assay.evaluate_async` (``baseline``, ``resume`` and ``run_id``
    excepted).
    """
    from assay_agents.store import Store

    for refused in ("baseline", "resume", "run_id"):
        if options.get(refused) is not None:
            raise TypeError(f"a control run does not take {refused}=")
    resolved = EvaluationOptions.build(suite, **options)
    ids = (str(uuid.uuid4()), str(uuid.uuid4()))
    store = db if isinstance(db, Store) else await asyncio.to_thread(Store.open, db)
    try:
        first = await evaluate_with(
            suite,
            replace(resolved, run_id=ids[0], links=_links(ids, "first")),
            store,
            _progress(progress),
        )
        # A first run that evaluated nothing measures nothing: its pair is stored, but not as
        # a control pair later comparisons would read a floor from.
        role = "second" if checked(first.run) else UNMEASURED
        second = await evaluate_with(
            suite,
            replace(resolved, run_id=ids[1], baseline=first.run.id, links=_links(ids, role)),
            store,
            _progress(progress),
        )
    finally:
        if not isinstance(db, Store):
            store.close()
    return first.run, second.run


def checked(run: Run) -> bool:
    """Whether a control run evaluated at least one sample, so that it measured anything."""
    return run.summary is not None and run.summary.evaluated > 0


def _links(ids: tuple[str, str], role: str) -> dict[str, JSON]:
    return {"control": {"pair": list(ids), "role": role}}
