"""One suite's run across a pytest session, through :func:`assay_agents.evaluation.evaluate`.

The run's lifecycle (create with a lease, execute, store every sample durably, compare,
complete once every planned sample is stored, decide) is the application layer's, on a
thread of its own. Its executor is :class:`SessionExecutor`: the samples it is handed wait
until the pytest item of their case and model asks for them (or, on pytest-xdist's
controller, until a worker's report brings them), and the run completes when the session
ends. A session that stops early (``-x``, Ctrl-C) leaves the run interrupted and resumable,
as ``assay-agents run`` would.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay_agents.errors import AssayError
from assay_agents.evaluation import Evaluation, LocalExecutor, RunStore, Work, evaluate
from assay_agents.results import SampleResult
from assay_agents.spec import Suite

Cell = tuple[str, str | None]


class SessionExecutor:
    """Executes a run's samples when the session asks for them, a case and model at a time."""

    name = "pytest"

    def __init__(self) -> None:
        self.ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._work: Work | None = None
        self._done: asyncio.Event | None = None
        self._ran: set[Cell] = set()
        self._landed: set[tuple[str, str | None, int]] = set()

    async def execute(self, work: Work) -> Sequence[SampleResult]:
        """Hold the run open until :meth:`close`; the samples land as items run them."""
        self._loop, self._work, self._done = asyncio.get_running_loop(), work, asyncio.Event()
        self.ready.set()
        await self._done.wait()
        return ()

    @property
    def has_work(self) -> bool:
        """Whether the run was created and handed its samples."""
        return self._work is not None

    def cells(self) -> list[Cell]:
        """The (case, model) pairs the run planned, in its order."""
        work = self._require()
        seen: dict[Cell, None] = {}
        for item in work.items:
            seen.setdefault((item.key[0], item.key[1]), None)
        return list(seen)

    def run_cell(self, cell: Cell) -> list[SampleResult]:
        """Execute one case's samples on one model (blocking); return their results."""
        work = self._require()
        items = tuple(item for item in work.items if (item.key[0], item.key[1]) == cell)
        self._ran.add(cell)
        chosen = replace(work, items=items)
        return list(self._call(LocalExecutor(returns_results=True).execute(chosen)))

    def land(self, results: Iterable[SampleResult]) -> int:
        """Store results executed elsewhere (an xdist worker's), as they would have landed.

        Each planned sample is stored once: a sample already stored (an item run again after
        its worker crashed) or one the run did not plan is left out. Returns how many landed.
        """
        work = self._require()
        planned = {item.key for item in work.items}
        fresh: dict[tuple[str, str | None, int], SampleResult] = {}
        for result in results:
            if result.key in planned and result.key not in self._landed:
                fresh.setdefault(result.key, result)
        self._landed.update(fresh)
        self._ran.update((case, model) for case, model, _ in fresh)

        async def put() -> None:
            for result in fresh.values():
                await work.sink.put(result)

        self._call(put())
        return len(fresh)

    def left(self) -> list[Cell]:
        """Planned cells no item has run."""
        return [cell for cell in self.cells() if cell not in self._ran]

    def close(self) -> None:
        """No more samples: the run completes (or, missing some, stays interrupted)."""
        if self._loop is not None and self._done is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._done.set)

    def _require(self) -> Work:
        if self._work is None:
            raise AssayError("the run has not started")
        return self._work

    def _call(self, step: Any) -> Any:
        loop = self._loop
        if loop is None or loop.is_closed():
            step.close()
            raise AssayError("the run has stopped")
        future = asyncio.run_coroutine_threadsafe(step, loop)
        try:
            return future.result()
        except BaseException:
            # Ctrl-C in the session: the sample in flight is cancelled, never stored half-done;
            # the run, missing it, is kept interrupted and resumable.
            future.cancel()
            raise


@dataclass
class SuiteRun:
    """A suite, the models it runs on, and (once started) its run's lifecycle."""

    suite: Suite
    models: tuple[str, ...]
    db: str | RunStore | None
    options: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    executor: SessionExecutor | None = None
    evaluation: Evaluation | None = None
    error: BaseException | None = None
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    _thread: threading.Thread | None = None

    def cells(self) -> list[Cell]:
        """Every case on every model: the items to collect."""
        models: Sequence[str | None] = self.models or (None,)
        return [(case.id, model) for case in self.suite.cases for model in models]

    @property
    def running(self) -> bool:
        """Whether the run was created and its samples may execute."""
        executor = self.executor
        return executor is not None and executor.has_work and self._alive()

    @property
    def refused(self) -> bool:
        """Whether the run was asked to start and refused before any sample (bad input)."""
        executor = self.executor
        return self.error is not None and executor is not None and not executor.has_work

    @property
    def started(self) -> bool:
        """Whether the run was asked to start."""
        return self._thread is not None

    def start(self, chosen: Iterable[Cell]) -> None:
        """Create the run for the chosen cells: a selection of cases is a selection run."""
        wanted = set(chosen)
        cases = [case.id for case in self.suite.cases if any(c == case.id for c, _ in wanted)]
        models = [m for m in self.models if any(m == model for _, model in wanted)]
        suite = self.suite
        if len(cases) < len(suite.cases):
            from assay_agents.load.selection import select

            suite = select(suite, cases=cases)
        executor = self.executor = SessionExecutor()
        options = {"models": models or None, "run_id": self.run_id, **self.options}

        def main() -> None:
            try:
                self.evaluation = evaluate(
                    suite, db=self.db, progress=False, executor=executor, **options
                )
            except BaseException as error:  # reported on the items and in the summary
                self.error = error
            finally:
                executor.ready.set()

        self._thread = threading.Thread(
            target=main, name=f"assay-agents run {self.run_id}", daemon=True
        )
        self._thread.start()
        executor.ready.wait()

    def execute(self, cell: Cell) -> list[SampleResult]:
        """The samples of one cell, executed now."""
        if self.executor is None or self.error is not None or not self._alive():
            raise AssayError(f"the run could not execute: {self._why()}")
        try:
            return self.executor.run_cell(cell)
        except AssayError:
            raise AssayError(f"the run could not execute: {self._why()}") from None

    def land(self, results: Iterable[SampleResult]) -> int:
        """Store samples an xdist worker executed, each once; how many were stored."""
        if self.executor is not None and self._alive():
            return self.executor.land(results)
        return 0

    def finish(self, *, complete: bool) -> None:
        """End the run: with ``complete``, first run the planned cells no item ran."""
        executor = self.executor
        if executor is None or self._thread is None:
            return
        if complete and self._alive():
            for cell in executor.left():
                executor.run_cell(cell)
        executor.close()
        self._thread.join()

    def _alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _why(self) -> str:
        from assay_agents.text import visible

        error = self.error
        if error is None:
            return "it has stopped"
        return visible(str(error) or type(error).__name__)
