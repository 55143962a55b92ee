"""Revision 0010: the index of samples with a fault (what to fix reads), added to a history."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, create_engine, inspect, text
from store_builders import later, make_single_run, sample
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.results import SampleStatus, summarise
from assay_agents.store import Store, _migrate

ADDED = "ix_samples_run_fault"


def _indexes(engine: Engine) -> set[str]:
    return {str(index["name"]) for index in inspect(engine).get_indexes("samples")}


def test_upgrading_from_0009_adds_the_index_and_keeps_every_run(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "0009")
        assert ADDED not in _indexes(engine)
        old = Store(store_url, engine)
        run = old.create_run(make_single_run())
        failed = sample(
            status=SampleStatus.FAILED, fault="missing_content", recommendation="Say it."
        )
        old.save_samples(run.id, [failed])
        done = old.complete_run(run.id, summary=summarise([failed]), finished_at=later(1))
        migrated = CliRunner().invoke(app, ["db", "migrate", "--db", store_url])
        assert migrated.exit_code == 0, migrated.output
        assert ADDED in _indexes(engine)
        with Store.open(store_url) as store:
            assert store.get_run(run.id) == done
            assert [s.key for s in store.run_overview(run.id).faulted] == [failed.key]
        with engine.begin() as connection:
            command.downgrade(_migrate._config(connection), "0009")
        assert ADDED not in _indexes(engine)
    finally:
        engine.dispose()


def test_a_run_s_faulted_samples_are_read_through_the_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'history.db'}"
    Store.open(url, migrate=True).close()
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            plan = connection.execute(
                text("EXPLAIN QUERY PLAN SELECT * FROM samples WHERE run = 1 AND fault IS NOT NULL")
            ).all()
        assert ADDED in " ".join(str(row[-1]) for row in plan)
    finally:
        engine.dispose()
