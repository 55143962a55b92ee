"""The runs list's filters in the query: metadata numbers and strings, stale and running runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, update
from store_builders import later, make_run

from assay_agents.evaluation.browsing import list_runs
from assay_agents.results import RunStatus, summarise
from assay_agents.results.run import Lease
from assay_agents.store import Store
from assay_agents.store._tables import runs
from assay_agents.store.browse import RunFilter


def _ids(store: Store, **where: object) -> list[str]:
    page = store.runs_page(RunFilter(**where), limit=50)  # type: ignore[arg-type]
    return [run.metadata["name"] for run in page.runs]  # type: ignore[misc]


def _completed(store: Store, name: str, minute: int, **metadata: object) -> None:
    run = make_run(started_at=later(minute), cases=(), metadata={"name": name, **metadata})
    store.create_run(run)
    store.complete_run(run.id, summary=summarise(()), finished_at=later(minute + 1))


def test_metadata_matches_numbers_as_numbers_and_strings_as_strings(store: Store) -> None:
    _completed(store, "int", 0, build=7)
    _completed(store, "float", 1, build=7.0)
    _completed(store, "text", 2, build="7")
    _completed(store, "padded", 3, build="07")
    _completed(store, "other", 4, build=8, revision="abc")
    _completed(store, "dotted", 5, **{"a.b": "x"})

    assert _ids(store, metadata=("build", "7")) == ["text", "float", "int"]
    assert _ids(store, metadata=("build", "7.0")) == ["float", "int"]
    assert _ids(store, metadata=("build", "07")) == ["padded", "float", "int"]
    assert _ids(store, metadata=("revision", "abc")) == ["other"]
    assert _ids(store, metadata=("revision", "ab")) == []
    assert _ids(store, metadata=("missing", "7")) == []
    # A dot is part of the key's name, not a path.
    assert _ids(store, metadata=("a.b", "x")) == ["dotted"]
    assert _ids(store, metadata=("a", "x")) == []


def test_stale_and_running_are_told_apart_in_the_query(store: Store, raw_engine: Engine) -> None:
    now = datetime.now(UTC)
    # Another host's owner: its heartbeat alone tells whether it lives.
    for index in range(4):
        beat = now - timedelta(hours=1) if index % 2 else now
        lease = Lease(host="elsewhere.invalid", pid=4242, token=f"t{index}", heartbeat_at=beat)
        run = make_run(
            started_at=now - timedelta(hours=2),
            metadata={"name": f"{'stale' if index % 2 else 'live'}-{index}"},
            lease=lease,
        )
        store.create_run(run)
        with raw_engine.begin() as connection:  # the store stamps a first beat: age it
            connection.execute(update(runs).where(runs.c.id == run.id).values(heartbeat_at=beat))
    _completed(store, "done", 0)

    stale = list_runs(store, RunFilter(status="stale"), limit=1)
    # A page holds ``limit`` runs of the state asked for, and says that more follow.
    assert [(item.run.metadata["name"], item.state) for item in stale.runs] == [
        ("stale-3", "stale")
    ]
    assert stale.more
    rest = list_runs(store, RunFilter(status="stale"), offset=1, limit=1)
    assert [item.run.metadata["name"] for item in rest.runs] == ["stale-1"]
    assert not rest.more
    running = list_runs(store, RunFilter(status="running"), limit=5)
    assert [(item.run.metadata["name"], item.state) for item in running.runs] == [
        ("live-2", "running"),
        ("live-0", "running"),
    ]
    assert all(item.run.status is RunStatus.RUNNING for item in running.runs)
    done = list_runs(store, RunFilter(status="completed"), limit=5)
    assert [item.run.metadata["name"] for item in done.runs] == ["done"]
