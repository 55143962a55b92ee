"""The lifecycle against a store that fails between committing and answering."""

from __future__ import annotations

import asyncio
from typing import Any

import assay
from assay import checks
from assay.errors import StoreError
from assay.evaluation import EvaluationOptions, evaluate_with
from assay.results import Run, RunStatus
from assay.runner.progress import default_progress
from assay.store import Store


class LostAcknowledgement:
    """A real store whose first ``create_run`` commits, then fails as a dropped link does."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.created = 0

    def create_run(self, run: Run) -> Run:
        stored = self._store.create_run(run)
        self.created += 1
        if self.created == 1:
            raise StoreError("create run: server closed the connection unexpectedly",
                             transient=True)
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
    assert [(run.id, run.status) for run in runs] == [(evaluation.run.id,
                                                       RunStatus.COMPLETED)]
