"""Control runs: the same suite twice against the same code, to measure the noise floor."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from assay.results import Run
from assay.runner.api import _progress
from assay.runner.progress import Progress
from assay.runner.session import execute_suite, resolve_options
from assay.spec import JSON, Suite

if TYPE_CHECKING:
    from assay.store import Store


async def run_control_async(suite: Suite, *, db: str | Store | None = None,
                            progress: Progress | bool | None = None,
                            **options: Any) -> tuple[Run, Run]:
    """Run ``suite`` twice, back to back, and store the two runs as a control pair.

    Nothing changes between the runs, so whatever moves between them is the harness's own
    noise (see :class:`assay.NoiseFloor`). Both runs carry ``links["control"]`` naming the
    pair; later comparisons of the same definition find the latest pair by it. ``options``
    are those of :func:`assay.run_async` (``baseline``, ``resume`` and ``run_id`` excepted).
    """
    from assay.store import Store

    for refused in ("baseline", "resume", "run_id"):
        if options.get(refused) is not None:
            raise TypeError(f"a control run does not take {refused}=")
    resolved = resolve_options(suite, **options)
    ids = (str(uuid.uuid4()), str(uuid.uuid4()))
    store = db if isinstance(db, Store) else await asyncio.to_thread(Store.open, db)
    try:
        first = await execute_suite(suite, replace(resolved, run_id=ids[0],
                                                   links=_links(ids, "first")),
                                    store, _progress(progress))
        second = await execute_suite(suite, replace(resolved, run_id=ids[1], baseline=first.id,
                                                    links=_links(ids, "second")),
                                     store, _progress(progress))
    finally:
        if not isinstance(db, Store):
            store.close()
    return first, second


def _links(ids: tuple[str, str], role: str) -> dict[str, JSON]:
    return {"control": {"pair": list(ids), "role": role}}
