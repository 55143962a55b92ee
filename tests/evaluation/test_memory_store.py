"""The in-memory run store keeps the SQL store's guarantees: both are held to the same tests."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import LeaseError, ReadOnlyRunError, StoreError
from assay_agents.evaluation import MemoryRunStore, RunStore
from assay_agents.results import (
    CaseSnapshot,
    GradedSample,
    Run,
    RunStatus,
    SampleResult,
    SampleStatus,
    summarise,
)
from assay_agents.results.baseline import RunOutcome
from assay_agents.results.run import Lease
from assay_agents.results.settings import RunSettings, Selection

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
CASES = (
    CaseSnapshot("refund", "Refund", 0, "fp-refund", {"input": "refund"}),
    CaseSnapshot("cancel", "Cancel", 1, "fp-cancel", {"input": "cancel"}),
)


@pytest.fixture(params=["sqlite", "memory"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    """The SQL store on a fresh SQLite file, and the in-memory store."""
    if request.param == "memory":
        yield MemoryRunStore()
        return
    opened = assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    try:
        yield opened
    finally:
        opened.close()


def owner(token: str = "me") -> Lease:
    return Lease(host="elsewhere", pid=1, token=token)


def a_run(**changes: object) -> Run:
    run = Run(
        id=str(uuid.uuid4()),
        suite="support",
        agent="bot",
        fingerprint="fp",
        status=RunStatus.RUNNING,
        started_at=T0,
        settings=RunSettings(),
        cases=CASES,
        lease=owner(),
    )
    return replace(run, **changes)  # type: ignore[arg-type]


def passed(case_id: str, index: int = 0) -> SampleResult:
    return SampleResult(case_id, None, index, SampleStatus.PASSED, answer="ok")


def completed(store: RunStore, **changes: object) -> Run:
    run = store.create_run(a_run(**changes))
    samples = [passed("refund"), passed("cancel")]
    store.save_samples(run.id, samples)
    store.complete_run(
        run.id,
        summary=summarise(samples),
        finished_at=T0,
        outcome=RunOutcome.PASSED,
    )
    return store.get_run(run.id)


def test_creation_is_idempotent_for_its_owner_and_refused_to_another(any_store) -> None:
    run = a_run()
    first = any_store.create_run(run)
    again = any_store.create_run(run)
    assert again.sequence == first.sequence and len(any_store.history()) == 1
    with pytest.raises(StoreError, match="already exists"):
        any_store.create_run(replace(run, lease=owner("someone else")))


def test_a_run_completes_only_whole_and_as_summarised(any_store) -> None:
    run = any_store.create_run(a_run())
    refund = passed("refund")
    any_store.save_samples(run.id, [refund])
    with pytest.raises(StoreError, match="1 of 2 planned"):
        any_store.complete_run(run.id, summary=summarise([refund]), finished_at=T0)
    failed = replace(passed("cancel"), status=SampleStatus.FAILED)
    any_store.save_samples(run.id, [failed])
    with pytest.raises(StoreError, match="summary counts"):
        any_store.complete_run(run.id, summary=summarise([refund, refund]), finished_at=T0)
    done = any_store.complete_run(run.id, summary=summarise([refund, failed]), finished_at=T0)
    assert done is not None and done.status is RunStatus.COMPLETED
    assert [sample.case_id for sample in done.samples] == ["refund", "cancel"]


def test_a_completed_run_never_changes(any_store) -> None:
    run = completed(any_store)
    with pytest.raises(ReadOnlyRunError):
        any_store.save_samples(run.id, [passed("refund", 1)])
    with pytest.raises(ReadOnlyRunError):
        any_store.mark_interrupted(run.id, finished_at=T0, error="late")
    with pytest.raises(ReadOnlyRunError):
        any_store.claim(run.id, owner("late"), lease_timeout=60, owner_alive=lambda lease: None)


def test_a_stored_key_is_refused_unless_skipped(any_store) -> None:
    run = any_store.create_run(a_run())
    any_store.save_samples(run.id, [passed("refund")])
    with pytest.raises(StoreError):
        any_store.save_samples(run.id, [passed("cancel"), passed("refund")])
    assert any_store.sample_keys(run.id) == {("refund", None, 0)}  # nothing of the batch
    any_store.save_samples(run.id, [passed("cancel"), passed("refund")], skip_stored=True)
    assert any_store.sample_keys(run.id) == {("refund", None, 0), ("cancel", None, 0)}


def test_leases_decide_who_may_write_and_who_may_take_over(any_store) -> None:
    run = any_store.create_run(a_run())
    alive, gone = (lambda lease: True), (lambda lease: False)
    assert any_store.heartbeat(run.id, "me") and not any_store.heartbeat(run.id, "other")
    with pytest.raises(LeaseError):
        any_store.claim(run.id, owner("other"), lease_timeout=60, owner_alive=alive)
    claimed = any_store.claim(run.id, owner("other"), lease_timeout=60, owner_alive=gone)
    assert claimed.lease is not None and claimed.lease.token == "other"
    assert not any_store.heartbeat(run.id, "me")
    with pytest.raises(LeaseError):
        any_store.save_samples(run.id, [passed("refund")], token="me")
    any_store.mark_interrupted(run.id, finished_at=T0, error="stopped", token="other")
    assert not any_store.heartbeat(run.id, "other")  # an interrupted run is not running
    again = any_store.claim(run.id, owner("third"), lease_timeout=60, owner_alive=alive)
    assert again.status is RunStatus.RUNNING and again.error is None


def test_of_two_concurrent_claimers_exactly_one_wins(any_store) -> None:
    run = any_store.create_run(a_run())
    any_store.mark_interrupted(run.id, finished_at=T0)
    barrier, won, lost = threading.Barrier(2), [], []

    def claim(token: str) -> None:
        barrier.wait()
        try:
            any_store.claim(run.id, owner(token), lease_timeout=60, owner_alive=lambda lease: True)
            won.append(token)
        except LeaseError:
            lost.append(token)

    threads = [threading.Thread(target=claim, args=(token,)) for token in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and len(lost) == 1


def test_the_automatic_baseline_is_the_latest_earlier_passing_whole_run(any_store) -> None:
    older = completed(any_store, metadata={"branch": "main"})
    newer = completed(any_store, metadata={"branch": "dev"})
    completed(any_store, settings=RunSettings(selection=Selection(cases=1, of=2)))
    failing = any_store.create_run(a_run())
    samples = [passed("refund"), replace(passed("cancel"), status=SampleStatus.FAILED)]
    any_store.save_samples(failing.id, samples)
    any_store.complete_run(
        failing.id, summary=summarise(samples), finished_at=T0, outcome=RunOutcome.FAILED
    )
    current = any_store.create_run(a_run())
    found = any_store.find_baseline(current)
    assert found is not None and found.id == newer.id
    on_main = any_store.find_baseline(current, where={"branch": "main"})
    assert on_main is not None and on_main.id == older.id
    assert any_store.find_baseline(replace(current, sequence=older.sequence)) is None


def test_a_pinned_baseline_wins_and_same_judge_narrows(any_store) -> None:
    judged = completed(any_store, settings=RunSettings(judge="j @ host"))
    plain = completed(any_store)
    current = any_store.create_run(a_run(settings=RunSettings(judge="j @ host")))
    latest = any_store.find_baseline(current)
    assert latest is not None and latest.id == plain.id
    same = any_store.find_baseline(current, same_judge=True)
    assert same is not None and same.id == judged.id
    pinned, replaced = any_store.pin_baseline(judged.id)  # type: ignore[attr-defined]
    assert pinned.id == judged.id and replaced is None
    found = any_store.pinned_baseline("support", "bot")
    assert found is not None and found.id == judged.id


def test_a_baseline_read_for_comparing_comes_with_its_cases_and_samples_as_graded(
    any_store,
) -> None:
    run = any_store.create_run(a_run(settings=RunSettings(samples=2)))
    samples = [
        passed("cancel", 1),
        replace(passed("refund"), status=SampleStatus.ERROR, error="boom"),
        passed("refund", 1),
        replace(passed("cancel"), status=SampleStatus.FAILED),
    ]
    any_store.save_samples(run.id, samples)
    any_store.complete_run(
        run.id, summary=summarise(samples), finished_at=T0, outcome=RunOutcome.PASSED
    )
    whole = any_store.get_run(run.id)
    found = any_store.find_baseline(any_store.create_run(a_run()), samples=False)
    assert found is not None and found.id == run.id
    assert found.cases == whole.cases and found.samples == ()
    graded = list(any_store.graded_samples(run.id))
    assert graded == [GradedSample.of(sample) for sample in whole.samples]
    assert [(sample.case_id, sample.sample) for sample in graded] == [
        ("refund", 0),
        ("refund", 1),
        ("cancel", 0),
        ("cancel", 1),
    ]
    any_store.pin_baseline(run.id)  # type: ignore[attr-defined]
    pinned = any_store.pinned_baseline("support", "bot", samples=False)
    assert pinned is not None and pinned.id == run.id and pinned.samples == ()


def test_runs_resolve_by_unique_prefix(any_store) -> None:
    run = completed(any_store)
    assert any_store.get_run(run.id[:8]).id == run.id
    with pytest.raises(StoreError, match="no run"):
        any_store.get_run("zzzzzzzz")
    history = any_store.history(suite="support")
    assert [found.id for found in history] == [run.id] and history[0].samples == ()


def test_an_embedder_runs_and_resumes_against_memory(crash_after) -> None:
    store = MemoryRunStore()
    suite = assay.Suite("Embedded", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    for name in ("a", "b", "c"):
        suite.case(name, id=name)

    async def embedded() -> tuple[Run, Run]:
        with pytest.raises(assay.IncompleteRunError) as raised:
            await assay.run_async(suite, db=store, concurrency=1, progress=crash_after(1))
        resumed = await assay.run_async(suite, db=store, resume=raised.value.run_id, progress=False)
        again = await assay.run_async(suite, db=store, progress=False)
        return resumed, again

    resumed, again = asyncio.run(embedded())
    assert resumed.status is RunStatus.COMPLETED and len(resumed.samples) == 3
    assert store.get_run(resumed.id).samples == resumed.samples
    assert again.baseline_id == resumed.id
    assert [run.id for run in store.history()] == [again.id, resumed.id]


def test_a_created_runs_lease_starts_with_a_fresh_heartbeat(any_store) -> None:
    stale = a_run(lease=replace(owner(), heartbeat_at=T0 - timedelta(days=1)))
    run = any_store.create_run(stale)
    with pytest.raises(LeaseError):
        any_store.claim(run.id, owner("next"), lease_timeout=3600, owner_alive=lambda lease: None)
