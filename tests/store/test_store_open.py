"""Opening a store: the default file, explicit migration, and errors that say what to do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from store_builders import make_run, sample

from assay_agents.errors import ConfigurationError
from assay_agents.store import DEFAULT_URL, Store, _migrate, redact, revisions
from assay_agents.store._tables import VERSION_TABLE, metadata


def test_default_url_creates_and_migrates_the_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Store.open() as store:
        assert store.url == f"sqlite:///{tmp_path.resolve()}/.assay/assay.db"
        run = store.create_run(make_run())
    assert (tmp_path / ".assay" / "assay.db").is_file()
    with Store.open(DEFAULT_URL) as again:
        assert again.get_run(run.id).id == run.id
    # Deeper in the project, the same history is found upwards; nothing new is created.
    deeper = tmp_path / "examples" / "nested"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    with Store.open(create=False) as found:
        assert found.get_run(run.id).id == run.id
    assert not (deeper / ".assay").exists()


def test_a_reading_command_never_creates_a_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError, match=r"no \.assay/ folder"):
        Store.open(create=False)
    assert not (tmp_path / ".assay").exists()


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/wal.db"
    Store.open(url, migrate=True).close()
    connection = sqlite3.connect(tmp_path / "wal.db")
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        connection.close()


def test_unmigrated_database_names_the_command_to_run(store_url: str) -> None:
    if store_url.startswith("sqlite"):
        # An existing file that is not an Assay database.
        engine = create_engine(store_url)
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE unrelated (x INTEGER)"))
        engine.dispose()
    with pytest.raises(ConfigurationError) as raised:
        Store.open(store_url)
    message = str(raised.value)
    assert "not migrated" in message
    assert f"assay-agents db migrate --db {redact(store_url)}" in message


def test_missing_sqlite_file_is_not_created_without_migrate(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    with pytest.raises(ConfigurationError, match="assay-agents db migrate"):
        Store.open(f"sqlite:///{path}")
    assert not path.exists()


def test_migrate_creates_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "history.db"
    Store.open(f"sqlite:///{path}", migrate=True).close()
    assert path.is_file()


def test_database_migrated_by_a_newer_assay_is_refused(store_url: str) -> None:
    with Store.open(store_url, migrate=True) as store:
        engine = create_engine(store.url)
    with engine.begin() as connection:
        connection.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(ConfigurationError, match="newer version of Assay"):
        Store.open(store_url)
    with pytest.raises(ConfigurationError, match="newer version of Assay"):
        Store.open(store_url, migrate=True)  # never downgraded or overwritten


def test_migrate_twice_is_idempotent_and_keeps_data(store_url: str) -> None:
    with Store.open(store_url, migrate=True) as store:
        run = store.create_run(make_run())
        store.save_samples(run.id, [sample()])
    with Store.open(store_url, migrate=True) as store:
        store.migrate()
        assert [s.key for s in store.get_run(run.id).samples] == [sample().key]
    with Store.open(store_url) as store:
        assert store.latest_run() is not None


def test_migrations_create_exactly_the_declared_tables(store: Store) -> None:
    engine = create_engine(store.url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"version_table": VERSION_TABLE, "compare_type": True}
            )
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "url", ["postgresql://u:secret@127.0.0.1:1/x", "postgres://u:secret@127.0.0.1:1/x"]
)
def test_unreachable_postgres_hides_the_password(url: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        Store.open(url, migrate=True)
    message = str(raised.value)
    assert "secret" not in message
    assert "postgresql+psycopg://u:***@127.0.0.1:1/x" in message
    assert "cannot reach" in message


def test_unknown_driver_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="cannot use database"):
        Store.open("nosuchdb://u:secret@host/x")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+psycopg://ann:s3cr%40t@db:5432/assay",
            "postgresql+psycopg://ann:***@db:5432/assay",
        ),
        ("postgresql://ann@db/assay?password=s3cret", "postgresql://ann@db/assay?password=***"),
        ("sqlite:///.assay/assay.db", "sqlite:///.assay/assay.db"),
        ("not a url://ann:s3cret@db", "not a url://ann:***@db"),
    ],
)
def test_redact_hides_passwords(url: str, shown: str) -> None:
    assert redact(url) == shown


def test_store_is_a_context_manager(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path}/cm.db", migrate=True) as store:
        assert store.display_url == store.url
        assert "cm.db" in repr(store)


def test_outdated_schema_is_told_apart_from_a_missing_one() -> None:
    outdated = str(_migrate.schema_error("sqlite:///h.db", revisions.status(frozenset({"0001"}))))
    missing = str(_migrate.schema_error("sqlite:///h.db", revisions.status(None)))
    assert "outdated" in outdated and "not migrated" in missing
    assert f"revision 0001; this Assay's is {revisions.shipped()[-1].id}" in outdated
    assert all("assay-agents db migrate --db sqlite:///h.db" in m for m in (outdated, missing))


def test_migrations_downgrade_cleanly_and_upgrade_again(store: Store) -> None:
    engine = create_engine(store.url)
    try:
        with engine.begin() as connection:
            command.downgrade(_migrate._config(connection), "base")
        assert _migrate.state(engine) is _migrate.SchemaState.MISSING
        with engine.begin() as connection:
            assert set(inspect(connection).get_table_names()) == {VERSION_TABLE}
    finally:
        engine.dispose()
    store.migrate()
    assert store.create_run(make_run()).sequence is not None
