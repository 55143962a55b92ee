"""Completing only a whole run, and leases: who may take an open run over, and when."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, create_engine, text, update
from store_builders import CASES, later, make_run, make_single_run, planned, sample

from assay_agents.errors import LeaseError, ReadOnlyRunError, StoreError
from assay_agents.results import Run, RunSettings, RunStatus, SampleResult, SampleStatus, summarise
from assay_agents.results.run import Lease
from assay_agents.store import Store
from assay_agents.store._tables import runs

FIRST = Lease(host="host-a", pid=1111, token="token-a")
SECOND = Lease(host="host-b", pid=2222, token="token-b")
THIRD = Lease(host="host-c", pid=3333, token="token-c")


def alive(_lease: Lease) -> bool:
    return True


def dead(_lease: Lease) -> bool:
    return False


def _age_heartbeat(engine: Engine, run_id: str, seconds: float) -> None:
    with engine.begin() as connection:
        connection.execute(
            update(runs)
            .where(runs.c.id == run_id)
            .values(heartbeat_at=datetime.now(UTC) - timedelta(seconds=seconds))
        )


def _owner(run: Run) -> tuple[str, int, str] | None:
    return None if run.lease is None else (run.lease.host, run.lease.pid, run.lease.token)


# -- completion checks the plan and the summary against what is stored ---------------------


def _failed(value: SampleResult) -> SampleResult:
    return replace(value, status=SampleStatus.FAILED)


TWO_SAMPLES = RunSettings(samples=2, models=("gpt-4o",))
TWO_MODELS = RunSettings(samples=1, models=("gpt-4o", "claude"))
# name: (settings, cases, samples stored, samples summarised)
REFUSED: dict[str, tuple[RunSettings, int, list[SampleResult], list[SampleResult]]] = {
    "a planned sample missing": (TWO_SAMPLES, 1, [sample(index=0)], [sample(index=0)]),
    "an index past the samples": (
        RunSettings(samples=1, models=("gpt-4o",)),
        1,
        [sample(index=0), sample(index=1)],
        [sample(index=0), sample(index=1)],
    ),
    "an index past the samples in place of a planned one": (
        TWO_SAMPLES,
        1,
        [sample(index=0), sample(index=2)],
        [sample(index=0), sample(index=2)],
    ),
    "a model the run does not have in place of a planned one": (
        TWO_MODELS,
        1,
        [sample(model="gpt-4o"), sample(model="mistral")],
        [sample(model="gpt-4o"), sample(model="mistral")],
    ),
    "no model in a run with a model matrix": (
        TWO_MODELS,
        1,
        [sample(model="gpt-4o"), sample(model=None)],
        [sample(model="gpt-4o"), sample(model=None)],
    ),
    "a case the run does not have in place of a planned one": (
        RunSettings(samples=1, models=("gpt-4o",)),
        2,
        [sample("refund"), sample("deleted")],
        [sample("refund"), sample("deleted")],
    ),
    "a summary with another status": (
        TWO_SAMPLES,
        1,
        [sample(index=0), sample(index=1)],
        [sample(index=0), _failed(sample(index=1))],
    ),
    "a summary of fewer samples": (
        TWO_SAMPLES,
        1,
        [sample(index=0), sample(index=1)],
        [sample(index=0)],
    ),
    "a summary of more samples": (
        TWO_SAMPLES,
        1,
        [sample(index=0), sample(index=1)],
        [sample(index=0), sample(index=1), sample(index=2)],
    ),
}


@pytest.mark.parametrize(
    ("settings", "cases", "stored", "summarised"), REFUSED.values(), ids=REFUSED.keys()
)
def test_completion_refuses_a_run_that_is_not_stored_whole(
    store: Store,
    settings: RunSettings,
    cases: int,
    stored: list[SampleResult],
    summarised: list[SampleResult],
) -> None:
    run = store.create_run(make_run(settings=settings, cases=CASES[:cases]))
    store.save_samples(run.id, stored)
    _assert_completion_refused(store, run.id, summarised, RunStatus.RUNNING)


def test_an_interrupted_run_missing_a_sample_stays_interrupted(store: Store) -> None:
    run = store.create_run(make_run(settings=TWO_SAMPLES, cases=CASES[:1]))
    store.save_samples(run.id, [sample(index=1)])
    store.mark_interrupted(run.id, finished_at=later(1), error="stopped")
    _assert_completion_refused(store, run.id, [sample(index=1)], RunStatus.INTERRUPTED)
    assert store.get_run(run.id).error == "stopped"


def _assert_completion_refused(
    store: Store, run_id: str, summarised: list[SampleResult], status: RunStatus
) -> None:
    before = store.get_run(run_id)
    with pytest.raises(StoreError, match="cannot be completed") as raised:
        store.complete_run(
            run_id,
            summary=summarise(summarised),
            finished_at=later(2),
            comparison={"changes": []},
            baseline_id="b-1",
        )
    assert not isinstance(raised.value, (ReadOnlyRunError, LeaseError))
    assert not raised.value.transient
    after = store.get_run(run_id)
    assert after == before
    assert after.status is status
    assert (after.summary, after.comparison, after.baseline_id) == (None, None, None)


def test_completion_names_what_is_missing_then_accepts_the_whole_run(store: Store) -> None:
    run = store.create_run(make_run())  # 2 cases × 2 models × 2 samples
    whole = planned(run)
    store.save_samples(run.id, whole[:5])
    with pytest.raises(StoreError, match="5 of 8 planned samples are stored"):
        store.complete_run(run.id, summary=summarise(whole), finished_at=later(1))
    store.save_samples(run.id, whole[5:])
    done = store.complete_run(run.id, summary=summarise(whole), finished_at=later(1))
    assert done is not None and done.status is RunStatus.COMPLETED
    assert [value.key for value in done.samples] == [value.key for value in whole]


def test_completion_counts_every_status(store: Store) -> None:
    run = store.create_run(make_single_run(settings=RunSettings(samples=4, models=("gpt-4o",))))
    stored = [
        sample(index=0),
        sample(index=1, status=SampleStatus.FAILED),
        sample(index=2, status=SampleStatus.ERROR, error="boom"),
        sample(index=3, status=SampleStatus.NOT_EVALUATED, metrics=()),
    ]
    store.save_samples(run.id, stored)
    # Same total, statuses swapped between two samples: refused.
    swapped = [
        sample(index=0, status=SampleStatus.NOT_EVALUATED, metrics=()),
        sample(index=1, status=SampleStatus.FAILED),
        sample(index=2, status=SampleStatus.ERROR, error="boom"),
        sample(index=3, status=SampleStatus.ERROR, error="boom"),
    ]
    with pytest.raises(StoreError, match="summary counts"):
        store.complete_run(run.id, summary=summarise(swapped), finished_at=later(1))
    done = store.complete_run(run.id, summary=summarise(stored), finished_at=later(1))
    assert done is not None and done.summary == summarise(stored)


def test_a_run_without_a_model_matrix_plans_one_sample_per_index(store: Store) -> None:
    run = store.create_run(make_run(settings=RunSettings(samples=1)))
    store.save_samples(run.id, [sample("refund", None), sample("cancel", None)])
    done = store.complete_run(run.id, summary=summarise([sample(), sample()]), finished_at=later(1))
    assert done is not None and done.status is RunStatus.COMPLETED


# -- claims ---------------------------------------------------------------------------------


def test_an_interrupted_run_can_always_be_claimed(store: Store) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    store.save_samples(run.id, [sample()], token=FIRST.token)
    store.mark_interrupted(
        run.id, finished_at=later(1), error="stopped by SIGTERM", token=FIRST.token
    )

    claimed = store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=alive)
    assert (claimed.status, claimed.finished_at) == (RunStatus.RUNNING, None)
    assert _owner(claimed) == ("host-b", 2222, "token-b")
    assert claimed.lease is not None and claimed.lease.heartbeat_at is not None
    assert [value.key for value in claimed.samples] == [sample().key]
    assert store.get_run(run.id) == claimed


def test_a_running_run_with_a_live_owner_and_a_fresh_heartbeat_is_refused(store: Store) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    before = store.get_run(run.id)
    seen: list[Lease] = []

    def owner_alive(lease: Lease) -> bool:
        seen.append(lease)
        return True

    with pytest.raises(LeaseError, match=r"still running in process 1111 on this host"):
        store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=owner_alive)
    assert {(lease.host, lease.pid, lease.token) for lease in seen} == {("host-a", 1111, "token-a")}
    assert store.get_run(run.id) == before


def test_an_owner_of_unknown_liveness_keeps_its_run_while_it_beats(store: Store) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    with pytest.raises(LeaseError, match="host-a"):
        store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=lambda lease: None)
    assert _owner(store.get_run(run.id)) == ("host-a", 1111, "token-a")


def test_a_running_run_whose_heartbeat_expired_can_be_claimed(
    store: Store, raw_engine: Engine
) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    _age_heartbeat(raw_engine, run.id, 600)
    elsewhere = lambda lease: None  # noqa: E731  (another host: only the heartbeat tells)
    with pytest.raises(LeaseError, match="host-a"):
        store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=elsewhere)  # not that old

    claimed = store.claim(run.id, SECOND, lease_timeout=60, owner_alive=elsewhere)
    assert claimed.status is RunStatus.RUNNING
    assert _owner(claimed) == ("host-b", 2222, "token-b")
    assert claimed.lease is not None and claimed.lease.heartbeat_at is not None
    assert claimed.lease.age(datetime.now(UTC)) < 60  # the claim is a fresh heartbeat


def test_a_heartbeat_keeps_a_run_from_expiring(store: Store, raw_engine: Engine) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    _age_heartbeat(raw_engine, run.id, 600)
    assert store.heartbeat(run.id, FIRST.token) is True
    lease = store.get_run(run.id).lease
    assert lease is not None and lease.heartbeat_at is not None
    assert lease.age(datetime.now(UTC)) < 60
    with pytest.raises(LeaseError):
        store.claim(run.id, SECOND, lease_timeout=60, owner_alive=alive)


@pytest.mark.postgres
@pytest.mark.parametrize("skew", [90.0, -90.0])
def test_hosts_whose_clocks_disagree_never_take_a_live_run(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, skew: float
) -> None:
    """Two hosts share PostgreSQL; the resuming host's clock is ``skew`` s off the owner's."""
    from assay_agents.store import store as store_module

    owner, resumer = Store.open(postgres_url, migrate=True), Store.open(postgres_url)
    try:
        run = owner.create_run(make_single_run(lease=FIRST))
        assert owner.heartbeat(run.id, FIRST.token)
        monkeypatch.setattr(
            store_module, "_now", lambda: datetime.now(UTC) + timedelta(seconds=skew)
        )
        with pytest.raises(LeaseError, match="running on host-a"):
            resumer.claim(run.id, SECOND, lease_timeout=60, owner_alive=lambda lease: None)
        assert _owner(resumer.get_run(run.id)) == ("host-a", 1111, "token-a")
        assert owner.heartbeat(run.id, FIRST.token)  # stamped on the resumer's host: alike
        lease = resumer.get_run(run.id).lease
        assert lease is not None and abs(lease.age(resumer.clock()) or 0) < 60
    finally:
        owner.close()
        resumer.close()


def test_a_running_run_whose_owner_is_gone_can_be_claimed(store: Store) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    claimed = store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=dead)
    assert claimed.status is RunStatus.RUNNING
    assert _owner(claimed) == ("host-b", 2222, "token-b")


def test_claim_of_an_unknown_run_is_a_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="no run"):
        store.claim("missing-run", SECOND, lease_timeout=60, owner_alive=dead)


@pytest.mark.parametrize("state", ["interrupted", "running with a dead owner"])
def test_of_two_concurrent_claimers_exactly_one_wins(
    store: Store, store_url: str, state: str
) -> None:
    # Only the first owner is gone: a claimer must not take the run from the winner.
    def owner_alive(lease: Lease) -> bool:
        return lease.token != FIRST.token

    stores = [Store.open(store_url), Store.open(store_url)]
    try:
        for _round in range(3):
            run = store.create_run(make_single_run(lease=FIRST))
            if state == "interrupted":
                store.mark_interrupted(run.id, finished_at=later(1))
            barrier = threading.Barrier(2)
            outcomes: dict[str, object] = {}

            def claim(
                own: Store,
                owner: Lease,
                run_id: str = run.id,
                barrier: threading.Barrier = barrier,
                outcomes: dict[str, object] = outcomes,
            ) -> None:
                barrier.wait(timeout=10)
                try:
                    outcomes[owner.token] = own.claim(
                        run_id, owner, lease_timeout=3600, owner_alive=owner_alive
                    )
                except LeaseError as error:
                    outcomes[owner.token] = error

            threads = [
                threading.Thread(target=claim, args=(own, owner))
                for own, owner in zip(stores, (SECOND, THIRD), strict=True)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
            assert not any(thread.is_alive() for thread in threads)

            winners = [token for token, outcome in outcomes.items() if isinstance(outcome, Run)]
            losers = [outcome for outcome in outcomes.values() if isinstance(outcome, LeaseError)]
            assert len(winners) == 1 and len(losers) == 1, outcomes
            stored = store.get_run(run.id)
            assert stored.status is RunStatus.RUNNING
            assert stored.lease is not None and stored.lease.token == winners[0]
    finally:
        for own in stores:
            own.close()


# -- an owner that lost its lease ------------------------------------------------------------


def test_an_owner_that_lost_its_run_is_told_and_can_no_longer_write(store: Store) -> None:
    run = store.create_run(
        make_single_run(settings=RunSettings(samples=2, models=("gpt-4o",)), lease=FIRST)
    )
    store.save_samples(run.id, [sample(index=0)], token=FIRST.token)
    assert store.heartbeat(run.id, FIRST.token) is True
    store.claim(run.id, SECOND, lease_timeout=3600, owner_alive=dead)

    assert store.heartbeat(run.id, FIRST.token) is False
    assert store.heartbeat(run.id, SECOND.token) is True
    taken = store.get_run(run.id)
    with pytest.raises(LeaseError, match=r"taken over by another process \(host-b, pid 2222\)"):
        store.save_samples(run.id, [sample(index=1)], token=FIRST.token)
    store.save_samples(run.id, [sample(index=1)], token=SECOND.token)
    whole = store.get_run(run.id)
    summary = summarise([sample(index=0), sample(index=1)])
    with pytest.raises(LeaseError, match="host-b"):
        store.complete_run(run.id, summary=summary, finished_at=later(1), token=FIRST.token)
    with pytest.raises(LeaseError, match="host-b"):
        store.mark_interrupted(run.id, finished_at=later(1), token=FIRST.token)
    assert store.get_run(run.id) == whole
    assert [value.key for value in whole.samples] == [sample(index=0).key, sample(index=1).key]
    assert _owner(whole) == _owner(taken) == ("host-b", 2222, "token-b")

    done = store.complete_run(run.id, summary=summary, finished_at=later(1), token=SECOND.token)
    assert done is not None and done.status is RunStatus.COMPLETED
    assert store.heartbeat(run.id, SECOND.token) is False  # nothing left to hold


def test_a_heartbeat_of_an_interrupted_run_is_not_a_claim(store: Store) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    store.mark_interrupted(run.id, finished_at=later(1), token=FIRST.token)
    assert store.heartbeat(run.id, FIRST.token) is False
    assert store.get_run(run.id).status is RunStatus.INTERRUPTED


# -- retried batches --------------------------------------------------------------------------


def test_skip_stored_leaves_out_samples_already_stored_exactly_once(store: Store) -> None:
    run = store.create_run(
        make_single_run(settings=RunSettings(samples=3, models=("gpt-4o",)), lease=FIRST)
    )
    first = sample(index=0, answer="first answer")
    store.save_samples(run.id, [first], token=FIRST.token)
    retried = [sample(index=0, answer="a retried copy"), sample(index=1)]
    with pytest.raises(StoreError, match="save samples"):
        store.save_samples(run.id, retried, token=FIRST.token)
    assert store.sample_keys(run.id) == {("refund", "gpt-4o", 0)}

    store.save_samples(run.id, retried, token=FIRST.token, skip_stored=True)
    store.save_samples(run.id, retried, token=FIRST.token, skip_stored=True)  # all stored
    store.save_samples(run.id, [*retried, sample(index=2)], token=FIRST.token, skip_stored=True)

    stored = store.get_run(run.id).samples
    assert list(stored) == [first, sample(index=1), sample(index=2)]
    done = store.complete_run(
        run.id, summary=summarise(list(stored)), finished_at=later(1), token=FIRST.token
    )
    assert done is not None and len(done.samples) == 3


def test_skip_stored_still_refuses_a_completed_run(store: Store) -> None:
    run = store.create_run(make_single_run())
    store.save_samples(run.id, [sample()])
    store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))
    with pytest.raises(ReadOnlyRunError):
        store.save_samples(run.id, [sample()], skip_stored=True)


@pytest.mark.postgres
def test_a_sample_insert_in_flight_while_completing_is_counted(postgres_url: str) -> None:
    with Store.open(postgres_url, migrate=True) as store:
        run = store.create_run(make_single_run())
        store.save_samples(run.id, [sample()])
        engine = create_engine(store.url)
        try:
            with engine.connect() as writer:
                pending = writer.begin()
                writer.execute(
                    text(
                        "INSERT INTO samples (id, run, case_id, model, sample, status, metadata, "
                        "created_at) SELECT 'in-flight', sequence, 'refund', 'gpt-4o', 7, "
                        "'failed', '{}', now() FROM runs WHERE id = :id"
                    ),
                    {"id": run.id},
                )
                outcome: list[object] = []

                def complete() -> None:
                    try:
                        outcome.append(
                            store.complete_run(
                                run.id, summary=summarise([sample()]), finished_at=later(1)
                            )
                        )
                    except StoreError as error:
                        outcome.append(error)

                completing = threading.Thread(target=complete)
                completing.start()
                _wait_until_blocked(engine)
                pending.commit()
                completing.join(timeout=30)
        finally:
            engine.dispose()
        assert len(outcome) == 1
        assert isinstance(outcome[0], StoreError), "completed with a sample outside its plan"
        assert store.get_run(run.id).status is RunStatus.RUNNING


def _wait_until_blocked(engine: Engine) -> None:
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    )
    deadline = datetime.now(UTC) + timedelta(seconds=10)
    while datetime.now(UTC) < deadline:
        with engine.connect() as connection:
            if connection.execute(query).scalar_one():
                return
        threading.Event().wait(0.02)
    raise RuntimeError("the completion never waited for the in-flight insert")


def test_a_live_owner_keeps_its_run_however_old_its_heartbeat(
    store: Store, raw_engine: Engine
) -> None:
    run = store.create_run(make_single_run(lease=FIRST))
    _age_heartbeat(raw_engine, run.id, 600)
    with pytest.raises(LeaseError, match=r"still running in process 1111 on this host"):
        store.claim(run.id, SECOND, lease_timeout=60, owner_alive=lambda lease: True)
    assert _owner(store.get_run(run.id)) == ("host-a", 1111, "token-a")
