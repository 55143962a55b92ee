"""Revision 0009: the indexes the dashboard's run filters read through, added to a history."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect, text
from store_builders import later, make_single_run, sample
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.results import summarise
from assay_agents.store import Store, _migrate
from assay_agents.store.browse import RunFilter

ADDED = {"ix_runs_agent_sequence", "ix_runs_status_sequence", "ix_runs_started_at"}


def _indexes(engine) -> set[str]:
    return {index["name"] for index in inspect(engine).get_indexes("runs")}


def test_upgrading_from_0008_adds_the_indexes_and_keeps_every_run(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "0008")
        assert not ADDED & _indexes(engine)
        old = Store(store_url, engine)
        run = old.create_run(make_single_run())
        old.save_samples(run.id, [sample()])
        done = old.complete_run(run.id, summary=summarise([sample()]), finished_at=later(1))
        migrated = CliRunner().invoke(app, ["db", "migrate", "--db", store_url])
        assert migrated.exit_code == 0, migrated.output
        assert _indexes(engine) >= ADDED
        with Store.open(store_url) as store:
            assert store.get_run(run.id) == done
            page = store.runs_page(RunFilter(agent="bot", status="completed"))
            assert [found.id for found in page.runs] == [run.id]
        with engine.begin() as connection:
            command.downgrade(_migrate._config(connection), "0008")
        assert not ADDED & _indexes(engine)
    finally:
        engine.dispose()


def test_a_filter_by_agent_reads_its_index(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    Store.open(url, migrate=True).close()
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            plan = connection.execute(
                text(
                    "EXPLAIN QUERY PLAN SELECT * FROM runs WHERE agent = 'a' ORDER BY sequence DESC"
                )
            ).all()
        assert "ix_runs_agent_sequence" in " ".join(str(row[-1]) for row in plan)
    finally:
        engine.dispose()
