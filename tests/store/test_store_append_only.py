"""The database itself refuses to change a completed run, whoever asks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError
from store_builders import later, make_run, make_single_run, sample

from assay_agents.errors import ReadOnlyRunError
from assay_agents.results import Run, summarise
from assay_agents.store import Store


@pytest.fixture
def completed(store: Store) -> Run:
    run = store.create_run(make_single_run())
    store.save_samples(run.id, [sample()])
    return store.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))


def _sequence(engine: Engine, run: Run) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                text("SELECT sequence FROM runs WHERE id = :id"), {"id": run.id}
            ).scalar_one()
        )


REFUSED = {
    "update run": "UPDATE runs SET status = 'running' WHERE sequence = :seq",
    "update run metadata": "UPDATE runs SET metadata = NULL, suite = 'x' WHERE sequence = :seq",
    "delete run": "DELETE FROM runs WHERE sequence = :seq",
    "update sample": "UPDATE samples SET answer = 'forged' WHERE run = :seq",
    "delete sample": "DELETE FROM samples WHERE run = :seq",
    "insert sample": (
        "INSERT INTO samples (id, run, case_id, model, sample, status, metadata, created_at) "
        "SELECT 'forged', :seq, case_id, model, sample + 1, status, metadata, created_at "
        "FROM samples WHERE run = :seq"
    ),
    "update metric": "UPDATE metrics SET score = 0 WHERE sample IN "
    "(SELECT id FROM samples WHERE run = :seq)",
    "delete metric": "DELETE FROM metrics WHERE sample IN "
    "(SELECT id FROM samples WHERE run = :seq)",
    "insert metric": (
        "INSERT INTO metrics (sample, position, name, kind, category, threshold, passed) "
        "SELECT id, 9, 'forged', 'check', 'x', 0.5, true FROM samples WHERE run = :seq"
    ),
    "update case": "UPDATE run_cases SET name = 'forged' WHERE run = :seq",
    "delete case": "DELETE FROM run_cases WHERE run = :seq",
    "insert case": (
        "INSERT INTO run_cases (run, case_id, name, position, fingerprint, definition) "
        "VALUES (:seq, 'forged', 'forged', 9, 'fp', '{}')"
    ),
}


@pytest.mark.parametrize("statement", REFUSED.values(), ids=REFUSED.keys())
def test_raw_sql_cannot_alter_a_completed_run(
    store: Store, raw_engine: Engine, completed: Run, statement: str
) -> None:
    sequence = _sequence(raw_engine, completed)
    with pytest.raises(DBAPIError, match="read-only"), raw_engine.begin() as connection:
        connection.execute(text(statement), {"seq": sequence})
    assert store.get_run(completed.id) == completed


_RUN_COLUMNS = (
    "sequence, id, suite, agent, fingerprint, status, started_at, settings, metadata, links"
)
_SAMPLE_COLUMNS = "id, run, case_id, model, sample, status, answer, metadata, created_at"
# statement: the backends that have it. Each would replace a completed run's row with one
# written anew (REPLACE deletes the old row without firing delete triggers).
REPLACING = {
    "replace run": (
        f"REPLACE INTO runs ({_RUN_COLUMNS}) SELECT "
        + _RUN_COLUMNS.replace("suite,", "'forged',")
        + " FROM runs WHERE "
        "sequence = :seq",
        {"sqlite"},
    ),
    "insert or replace run": (
        f"INSERT OR REPLACE INTO runs ({_RUN_COLUMNS}) SELECT "
        + _RUN_COLUMNS.replace("status,", "'running',")
        + " FROM runs WHERE sequence = :seq",
        {"sqlite"},
    ),
    "replace sample": (
        f"REPLACE INTO samples ({_SAMPLE_COLUMNS}) SELECT "
        + _SAMPLE_COLUMNS.replace("answer,", "'forged',")
        + " FROM samples WHERE run = :seq",
        {"sqlite"},
    ),
    "replace sample into an open run": (
        f"REPLACE INTO samples ({_SAMPLE_COLUMNS}) SELECT "
        + _SAMPLE_COLUMNS.replace(" run,", " :open,")
        + " FROM samples WHERE run = :seq",
        {"sqlite"},
    ),
    "replace metric": (
        "REPLACE INTO metrics (sample, position, name, kind, category, "
        "threshold, passed) SELECT sample, position, 'forged', kind, category, "
        "threshold, passed FROM metrics WHERE sample IN (SELECT id FROM "
        "samples WHERE run = :seq)",
        {"sqlite"},
    ),
    "replace case": (
        "REPLACE INTO run_cases (run, case_id, name, position, fingerprint, "
        "definition) SELECT run, case_id, 'forged', position, fingerprint, "
        "definition FROM run_cases WHERE run = :seq",
        {"sqlite"},
    ),
    "upsert run": (
        f"INSERT INTO runs ({_RUN_COLUMNS}) SELECT {_RUN_COLUMNS} FROM runs WHERE "
        "sequence = :seq ON CONFLICT (id) DO UPDATE SET suite = 'forged'",
        {"sqlite", "postgresql"},
    ),
    "upsert sample": (
        f"INSERT INTO samples ({_SAMPLE_COLUMNS}) SELECT {_SAMPLE_COLUMNS} FROM "
        "samples WHERE run = :seq ON CONFLICT (id) DO UPDATE SET answer = "
        "'forged'",
        {"sqlite", "postgresql"},
    ),
}


def _replacing_cases() -> list[object]:
    """Each statement on each database that has it (PostgreSQL has no REPLACE)."""
    return [
        pytest.param(
            "postgres" if backend == "postgresql" else backend,
            name,
            id=f"{backend}-{name}",
            marks=[pytest.mark.postgres] if backend == "postgresql" else [],
        )
        for name, (_, backends) in REPLACING.items()
        for backend in sorted(backends)
    ]


@pytest.mark.parametrize(("store_url", "name"), _replacing_cases(), indirect=["store_url"])
def test_no_insert_replaces_a_completed_run(
    store: Store, raw_engine: Engine, completed: Run, name: str
) -> None:
    statement, backends = REPLACING[name]
    assert raw_engine.dialect.name in backends
    open_run = store.create_run(make_run())
    with pytest.raises(DBAPIError, match="read-only"), raw_engine.begin() as connection:
        connection.execute(
            text(statement),
            {"seq": _sequence(raw_engine, completed), "open": _sequence(raw_engine, open_run)},
        )
    assert store.get_run(completed.id) == completed


def test_raw_sql_may_still_change_an_open_run(store: Store, raw_engine: Engine) -> None:
    run = store.create_run(make_run())
    store.save_samples(run.id, [sample()])
    sequence = _sequence(raw_engine, run)
    with raw_engine.begin() as connection:
        connection.execute(
            text("UPDATE samples SET answer = 'edited' WHERE run = :seq"), {"seq": sequence}
        )
        connection.execute(
            text("UPDATE runs SET suite_version = '4' WHERE sequence = :seq"), {"seq": sequence}
        )
    loaded = store.get_run(run.id)
    assert (loaded.samples[0].answer, loaded.suite_version) == ("edited", "4")


def test_a_save_racing_a_completion_waits_and_is_refused(store: Store, raw_engine: Engine) -> None:
    run = store.create_run(make_run())
    with raw_engine.connect() as connection, ThreadPoolExecutor(1) as pool:
        completing = connection.begin()
        connection.execute(
            text("UPDATE runs SET status = 'completed' WHERE id = :id"), {"id": run.id}
        )
        saving = pool.submit(store.save_samples, run.id, [sample()])
        time.sleep(0.3)
        assert not saving.done()  # held back until the completion commits
        completing.commit()
        with pytest.raises(ReadOnlyRunError):
            saving.result(timeout=30)
    assert store.sample_keys(run.id) == set()


# statement: a table it empties
TRUNCATES = {
    "TRUNCATE samples CASCADE": "samples",
    "TRUNCATE metrics": "metrics",
    "TRUNCATE run_cases": "run_cases",
    "TRUNCATE runs CASCADE": "runs",
    "TRUNCATE runs, run_cases, samples, metrics": "runs",
}


@pytest.fixture
def postgres_store(postgres_url: str) -> Iterator[Store]:
    with Store.open(postgres_url, migrate=True) as opened:
        yield opened


@pytest.mark.postgres
@pytest.mark.parametrize("statement", TRUNCATES)
def test_truncate_is_refused_while_a_completed_run_exists(
    postgres_store: Store, statement: str
) -> None:
    done = postgres_store.create_run(make_single_run())
    postgres_store.save_samples(done.id, [sample()])
    completed = postgres_store.complete_run(
        done.id, summary=summarise([sample()]), finished_at=later(1)
    )
    running = postgres_store.create_run(make_run())
    postgres_store.save_samples(running.id, [sample()])
    engine = create_engine(postgres_store.url)
    try:
        with pytest.raises(DBAPIError, match=r"read-only \(TRUNCATE"), engine.begin() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()
    assert postgres_store.get_run(done.id) == completed
    assert [s.key for s in postgres_store.get_run(running.id).samples] == [sample().key]


@pytest.mark.postgres
@pytest.mark.parametrize(("statement", "emptied"), TRUNCATES.items(), ids=TRUNCATES.keys())
def test_truncate_is_allowed_without_a_completed_run(
    postgres_store: Store, statement: str, emptied: str
) -> None:
    running = postgres_store.create_run(make_run())
    postgres_store.save_samples(running.id, [sample()])
    postgres_store.mark_interrupted(postgres_store.create_run(make_run()).id, finished_at=later(1))
    engine = create_engine(postgres_store.url)
    try:
        with engine.begin() as connection:
            connection.execute(text(statement))
            left = connection.execute(text(f"SELECT count(*) FROM {emptied}")).scalar_one()
    finally:
        engine.dispose()
    assert left == 0
