"""The executor port: the lifecycle hands its work to an executor and stores what it puts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.evaluation import Executor, LocalExecutor, Work


class Reversed:
    """Runs the work items last to first, on the local engine."""

    name = "reversed"

    def __init__(self) -> None:
        self.local = LocalExecutor()
        self.items = 0

    async def execute(self, work: Work) -> Sequence[assay.SampleResult]:
        self.items += len(work.items)
        return await self.local.execute(dataclasses.replace(work, items=work.items[::-1]))


class Forgetful:
    """Leaves the last item out: a broken executor."""

    name = "forgetful"

    async def execute(self, work: Work) -> Sequence[assay.SampleResult]:
        return await LocalExecutor().execute(dataclasses.replace(work, items=work.items[:-1]))


def recorded_suite(calls: list[str]) -> assay.Suite:
    def agent(text: str, ctx: assay.AgentContext) -> str:
        calls.append(f"{ctx.case.id}#{ctx.sample}")
        return "ok"

    suite = assay.Suite("Executed", agent=agent, checks=[checks.contains("ok")], concurrency=1)
    for name in ("a", "b", "c"):
        suite.case(name, id=name)
    return suite


def test_a_custom_executor_runs_the_suite_and_every_sample_is_stored(store: assay.Store) -> None:
    calls: list[str] = []
    executor = Reversed()
    assert isinstance(executor, Executor)
    run = assay.run(recorded_suite(calls), db=store, samples=2, executor=executor, progress=False)
    assert calls == ["c#1", "c#0", "b#1", "b#0", "a#1", "a#0"] and executor.items == 6
    stored = store.get_run(run.id)
    assert stored.status is assay.RunStatus.COMPLETED and len(stored.samples) == 6
    assert [sample.key for sample in run.samples] == [sample.key for sample in stored.samples]
    assert stored.settings.executor == "reversed"


def test_the_local_executor_is_the_default(store: assay.Store) -> None:
    run = assay.run(recorded_suite([]), db=store, progress=False)
    assert store.get_run(run.id).settings.executor == "local"


def test_an_executor_that_leaves_samples_out_cannot_complete_the_run(store: assay.Store) -> None:
    suite = recorded_suite([])
    with pytest.raises(assay.IncompleteRunError, match="forgetful") as raised:
        assay.run(suite, db=store, executor=Forgetful(), progress=False)
    run_id = raised.value.run_id
    assert store.get_run(run_id).status is assay.RunStatus.INTERRUPTED
    resumed = assay.run(suite, db=store, resume=run_id, progress=False)
    assert resumed.status is assay.RunStatus.COMPLETED and len(resumed.samples) == 3


def test_an_executor_must_execute(store: assay.Store) -> None:
    with pytest.raises(assay.ConfigurationError, match="executor"):
        assay.run(recorded_suite([]), db=store, executor=object(), progress=False)


class KeepsOpen:
    """A sink that is never closed by the executor that holds it."""

    def __init__(self, sink) -> None:
        self.sink = sink

    async def put(self, result: assay.SampleResult) -> None:
        await self.sink.put(result)

    async def close(self) -> None:
        pass


class LostCluster:
    """Executes two items, then fails without closing its sink: a cluster that went away."""

    name = "lost-cluster"

    async def execute(self, work: Work) -> Sequence[assay.SampleResult]:
        landed = dataclasses.replace(work, items=work.items[:2], sink=KeepsOpen(work.sink))
        await LocalExecutor().execute(landed)
        raise RuntimeError("the cluster went away")


def test_what_landed_before_an_executor_failed_is_stored(store: assay.Store) -> None:
    suite = recorded_suite([])
    with pytest.raises(assay.IncompleteRunError, match="cluster went away") as raised:
        assay.run(suite, db=store, executor=LostCluster(), progress=False)
    assert store.sample_keys(raised.value.run_id) == {("a", None, 0), ("b", None, 0)}
