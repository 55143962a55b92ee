"""Writing and reading runs: round trips, ordering, sequence, lifecycle and refusals."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from store_builders import (
    CASES,
    T0,
    later,
    make_run,
    make_single_run,
    metric,
    planned,
    sample,
    varied_samples,
)

from assay_agents.compare import StoredComparison, compare_models, compare_runs
from assay_agents.errors import ReadOnlyRunError, StoreError
from assay_agents.record import snapshot
from assay_agents.results import RunSettings, RunStatus, SampleStatus, summarise
from assay_agents.results.run import Lease
from assay_agents.store import Store


def test_round_trip_returns_exactly_what_was_saved(store: Store) -> None:
    run = store.create_run(make_run())
    samples = planned(run, varied_samples())  # the whole plan, in report order
    varied = {value.key for value in varied_samples()}
    store.save_samples(run.id, samples[3:])  # out of order, in three batches
    store.save_samples(run.id, [value for value in samples[:3] if value.key in varied])
    store.save_samples(run.id, [value for value in samples[:3] if value.key not in varied])
    # Every part of a stored comparison: pairings, headline, changes, models.
    whole = replace(run, samples=tuple(samples))
    comparison = StoredComparison(compare_runs(whole, whole), compare_models(whole))
    done = store.complete_run(
        run.id,
        summary=summarise(samples),
        finished_at=later(5),
        comparison=comparison,
        baseline_id="b-1",
    )

    expected = replace(
        run,
        status=RunStatus.COMPLETED,
        finished_at=later(5),
        summary=summarise(samples),
        samples=tuple(samples),
        comparison=comparison,
        baseline_id="b-1",
    )
    assert all(value in samples for value in varied_samples())
    loaded = store.get_run(run.id)
    assert snapshot(loaded) == snapshot(expected)
    assert loaded == expected
    assert done == expected


def test_actions_none_and_empty_stay_apart(store: Store) -> None:
    run = store.create_run(make_run())
    store.save_samples(run.id, [sample(index=0, actions=None), sample(index=1, actions=())])
    first, second = store.get_run(run.id).samples
    assert first.actions is None
    assert second.actions == ()


def test_timestamps_come_back_as_aware_utc(store: Store) -> None:
    local = datetime(2024, 5, 1, 14, 0, 0, 500, tzinfo=timezone(timedelta(hours=2)))
    run = store.create_run(make_run(started_at=local))
    loaded = store.get_run(run.id)
    assert loaded.started_at == local
    assert loaded.started_at.tzinfo == UTC
    assert loaded.finished_at is None


def test_samples_come_back_in_report_order(store: Store) -> None:
    run = store.create_run(make_run(settings=RunSettings(models=("zeta", "alpha"))))
    keys = [
        ("cancel", "alpha", 0),
        ("refund", "alpha", 1),
        ("refund", "zeta", 0),
        ("cancel", None, 0),
        ("refund", "alpha", 0),
        ("refund", None, 0),
    ]
    store.save_samples(run.id, [sample(c, m, i) for c, m, i in keys])

    loaded = [s.key for s in store.get_run(run.id).samples]
    # Case position (refund before cancel), then the run's model order with None first.
    assert loaded == [
        ("refund", None, 0),
        ("refund", "zeta", 0),
        ("refund", "alpha", 0),
        ("refund", "alpha", 1),
        ("cancel", None, 0),
        ("cancel", "alpha", 0),
    ]


def test_metrics_keep_their_positions(store: Store) -> None:
    names = ["zz", "aa", "mm", "bb"]
    run = store.create_run(make_run())
    store.save_samples(run.id, [sample(metrics=tuple(metric(name) for name in names))])
    assert [m.name for m in store.get_run(run.id).samples[0].metrics] == names


def test_sequence_is_assigned_and_monotonic_even_when_times_tie(store: Store) -> None:
    runs = [store.create_run(make_run(started_at=T0)) for _ in range(4)]
    sequences = [run.sequence for run in runs if run.sequence is not None]
    assert len(sequences) == 4
    assert sequences == sorted(sequences)
    assert len(set(sequences)) == 4
    assert store.get_run(runs[2].id).sequence == sequences[2]


def test_duplicate_sample_key_raises_and_stores_nothing_of_the_batch(store: Store) -> None:
    run = store.create_run(make_run())
    store.save_samples(run.id, [sample(index=0)])
    with pytest.raises(StoreError) as raised:
        store.save_samples(run.id, [sample(index=1), sample(index=0)])
    assert not isinstance(raised.value, ReadOnlyRunError)
    assert store.sample_keys(run.id) == {("refund", "gpt-4o", 0)}


def test_duplicate_run_id_raises_store_error(store: Store) -> None:
    run = store.create_run(make_run())
    with pytest.raises(StoreError):
        store.create_run(make_run(id=run.id))


OWNER = Lease(host="worker-1", pid=4242, token="token-of-worker-1")


def test_creating_a_run_again_after_a_lost_acknowledgement_finds_the_row_written(
    store: Store,
) -> None:
    run = make_run(lease=OWNER)
    first = store.create_run(run)
    again = store.create_run(run)  # the retry of a commit whose answer never arrived
    assert again.sequence == first.sequence
    assert [stored.id for stored in store.history()] == [run.id]
    with pytest.raises(StoreError, match="already exists"):  # another owner's id: refused
        store.create_run(make_run(id=run.id, lease=Lease("worker-2", 1, "token-2")))


def test_completed_run_refuses_every_change(store: Store) -> None:
    run = store.create_run(make_single_run())
    store.save_samples(run.id, [sample()])
    store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))

    with pytest.raises(ReadOnlyRunError):
        store.save_samples(run.id, [sample(index=1)])
    with pytest.raises(ReadOnlyRunError):
        store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(2))
    with pytest.raises(ReadOnlyRunError):
        store.mark_interrupted(run.id, finished_at=later(2))
    with pytest.raises(ReadOnlyRunError):
        store.claim(run.id, OWNER, lease_timeout=0, owner_alive=lambda lease: False)
    assert store.get_run(run.id).finished_at == later(1)
    assert store.sample_keys(run.id) == {("refund", "gpt-4o", 0)}


def test_completing_a_completed_run_again_is_read_only_whatever_the_summary(store: Store) -> None:
    run = store.create_run(make_single_run())
    store.save_samples(run.id, [sample()])
    store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))
    with pytest.raises(ReadOnlyRunError):
        store.complete_run(run.id, summary=summarise([]), finished_at=later(2))


def test_interrupted_run_is_claimed_and_completes(store: Store) -> None:
    run = store.create_run(make_single_run(settings=RunSettings(samples=2, models=("gpt-4o",))))
    store.save_samples(run.id, [sample(index=0)])
    store.mark_interrupted(run.id, finished_at=later(1), error="store unavailable")
    interrupted = store.get_run(run.id)
    assert (interrupted.status, interrupted.finished_at) == (RunStatus.INTERRUPTED, later(1))
    assert interrupted.error == "store unavailable"

    claimed = store.claim(run.id, OWNER, lease_timeout=60, owner_alive=lambda lease: True)
    assert (claimed.status, claimed.finished_at) == (RunStatus.RUNNING, None)
    assert claimed.lease is not None
    assert (claimed.lease.host, claimed.lease.pid, claimed.lease.token) == (
        "worker-1",
        4242,
        "token-of-worker-1",
    )
    assert [s.key for s in claimed.samples] == [sample(index=0).key]
    store.save_samples(run.id, [sample(index=1)], token=OWNER.token)
    done = store.complete_run(
        run.id,
        summary=summarise([sample(index=0), sample(index=1)]),
        finished_at=later(9),
        token=OWNER.token,
    )
    assert done is not None and done.status is RunStatus.COMPLETED
    assert [s.sample for s in done.samples] == [0, 1]
    assert done.error is None


def test_interrupted_run_can_complete_directly(store: Store) -> None:
    run = store.create_run(make_single_run())
    store.save_samples(run.id, [sample()])
    store.mark_interrupted(run.id, finished_at=later(1))
    done = store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(2))
    assert done is not None and done.status is RunStatus.COMPLETED


def test_sample_keys_list_what_is_stored(store: Store) -> None:
    run = store.create_run(make_run())
    other = store.create_run(make_run())
    assert store.sample_keys(run.id) == set()
    store.save_samples(run.id, [sample("refund", None, 0), sample("cancel", "claude", 2)])
    store.save_samples(other.id, [sample("refund", "gpt-4o", 5)])
    assert store.sample_keys(run.id) == {("refund", None, 0), ("cancel", "claude", 2)}


def test_unknown_run_is_a_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="no run"):
        store.save_samples("missing", [sample()])
    with pytest.raises(StoreError, match="no run"):
        store.sample_keys("missing")
    with pytest.raises(StoreError, match="no run"):
        store.mark_interrupted("missing", finished_at=T0)


def test_create_run_with_samples_and_completed_status(store: Store) -> None:
    samples = planned(make_run(), varied_samples())
    given = make_run(
        status=RunStatus.COMPLETED,
        samples=tuple(samples),
        finished_at=later(3),
        summary=summarise(samples),
    )
    created = store.create_run(given)
    assert store.get_run(given.id) == created
    with pytest.raises(ReadOnlyRunError):
        store.save_samples(given.id, [sample(index=7)])


def test_a_run_given_as_completed_must_hold_its_whole_plan(store: Store) -> None:
    samples = varied_samples()  # five of the eight planned samples
    given = make_run(
        status=RunStatus.COMPLETED,
        samples=tuple(samples),
        finished_at=later(3),
        summary=summarise(samples),
    )
    with pytest.raises(StoreError, match="5 of 8 planned samples"):
        store.create_run(given)
    with pytest.raises(StoreError, match="no run"):
        store.get_run(given.id)  # nothing of it was stored


def test_a_batch_of_many_samples_is_stored_with_its_metrics(store: Store) -> None:
    run = store.create_run(make_run(cases=CASES))
    batch = [
        sample(
            case_id,
            model,
            index,
            metrics=(metric("a"), metric("b", score=0.0, passed=False), metric("c")),
            status=SampleStatus.FAILED,
        )
        for case_id in ("refund", "cancel")
        for model in ("gpt-4o", "claude")
        for index in range(150)
    ]
    for start in range(0, len(batch), 200):
        store.save_samples(run.id, batch[start : start + 200])
    loaded = store.get_run(run.id)
    assert len(loaded.samples) == 600
    assert sum(len(s.metrics) for s in loaded.samples) == 1800
    assert summarise(loaded.samples) == summarise(batch)
