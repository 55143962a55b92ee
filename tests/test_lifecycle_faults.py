"""The lifecycle against a store that fails between committing and answering."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import StoreError
from assay_agents.evaluation import EvaluationOptions, evaluate_with
from assay_agents.results import Run, RunStatus
from assay_agents.runner.progress import default_progress
from assay_agents.store import Store


class LostAcknowledgement:
    """A real store whose first ``create_run`` commits, then fails as a dropped link does."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.created = 0

    def create_run(self, run: Run) -> Run:
        stored = self._store.create_run(run)
        self.created += 1
        if self.created == 1:
            raise StoreError(
                "create run: server closed the connection unexpectedly", transient=True
            )
        return stored

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_retried_run_creation_leaves_one_run_and_no_orphan(store: Store) -> None:
    suite = assay.Suite("Once", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q", id="q")
    flaky = LostAcknowledgement(store)
    options = EvaluationOptions.build(suite)  # no run id given: the lifecycle picks one
    evaluation = asyncio.run(evaluate_with(suite, options, flaky, default_progress(quiet=True)))
    assert flaky.created == 2
    runs = store.history()
    assert [(run.id, run.status) for run in runs] == [(evaluation.run.id, RunStatus.COMPLETED)]


def test_run_async_in_a_host_loop_leaves_the_hosts_sigterm_handler(tmp_path) -> None:
    suite = assay.Suite("Hosted", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q", id="q")
    received: list[str] = []
    Store.open(f"sqlite:///{tmp_path}/h.db", migrate=True).close()

    async def host() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, received.append, "host")
        try:
            await assay.run_async(suite, db=f"sqlite:///{tmp_path}/h.db", progress=False)
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(500):  # the handler runs on a later turn of the loop
                if received:
                    break
                await asyncio.sleep(0.01)
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    asyncio.run(host())
    assert received == ["host"]
