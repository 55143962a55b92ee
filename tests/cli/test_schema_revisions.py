"""Schema revisions as the command line shows them.

``assay-agents --version``, ``assay-agents db migrate``, and a history migrated by a newer
Assay, refused by every command that opens it.

Real SQLite files and the throwaway PostgreSQL server; histories at an older revision are
written by today's store and taken back with the migrations' own downgrades.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from assay_agents.results import CaseSnapshot, Run, RunStatus, SampleResult, SampleStatus, summarise
from assay_agents.store import Store, _migrate, revisions
from assay_agents.store.revisions import VERSION_TABLE
from commandline import Cli

HEAD = revisions.shipped()[-1].id
NEWER = "9999_from_the_future"
T0 = datetime(2026, 5, 1, 12, tzinfo=UTC)
SAMPLE = SampleResult("refund", None, 0, SampleStatus.PASSED, answer="Refunded.", actions=())


def history_at(url: str, revision: str) -> str:
    """A history at ``revision`` holding one completed run; its id."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "head")
        store = Store(url, engine)
        run = store.create_run(
            Run(
                id=str(uuid.uuid4()),
                suite="support",
                agent="bot",
                fingerprint="fp",
                status=RunStatus.RUNNING,
                started_at=T0,
                cases=(CaseSnapshot("refund", "Refund", 0, "fp-refund", {"input": "refund"}),),
            )
        )
        store.save_samples(run.id, [SAMPLE])
        store.complete_run(run.id, summary=summarise([SAMPLE]), finished_at=T0)
        with engine.begin() as connection:
            if revision == NEWER:
                connection.execute(
                    text(f"UPDATE {VERSION_TABLE} SET version_num = :v"), {"v": NEWER}
                )
            elif revision != HEAD:
                command.downgrade(_migrate._config(connection), revision)
        return run.id
    finally:
        engine.dispose()
        if url.startswith("sqlite:///"):  # as Assay keeps its histories: in WAL mode
            wal = sqlite3.connect(url.removeprefix("sqlite:///"))
            wal.execute("PRAGMA journal_mode=WAL")
            wal.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tables(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {
                name: [tuple(row) for row in connection.execute(text(f"SELECT * FROM {name}"))]
                for name in ("runs", "samples", "metrics", VERSION_TABLE)
            }
    finally:
        engine.dispose()


def with_password(url: str) -> str:
    """The URL with a password (the test server trusts every local connection)."""
    return make_url(url).set(password="s3cret-pw").render_as_string(hide_password=False)


# -- assay-agents --version
# -------------------------------------------------------------------------


def test_version_without_a_history_says_none_and_creates_nothing(cli: Cli, tmp_path: Path):
    done = cli("--version")
    assert done.returncode == 0, done.output
    first, second = done.stdout.splitlines()
    assert first.startswith("assay-agents ") and first.endswith(f"(schema revision {HEAD})")
    assert (
        "history: none yet (no .assay/ folder in" in second
        and "`assay-agents run` starts one" in second
    )
    (tmp_path / ".assay").mkdir()
    done = cli("--version")
    assert done.returncode == 0, done.output
    assert f"no database yet at sqlite:///{tmp_path}/.assay/assay.db" in done.stdout
    assert list((tmp_path / ".assay").iterdir()) == []  # nothing created, not even a journal
    (tmp_path / ".assay" / "assay.db").touch()
    done = cli("--version")
    assert "no Assay schema yet (the next command that opens it creates it)" in done.stdout
    assert [p.name for p in (tmp_path / ".assay").iterdir()] == ["assay.db"]
    assert (tmp_path / ".assay" / "assay.db").stat().st_size == 0


def test_version_names_the_embedded_history_found_upwards(cli: Cli, tmp_path: Path):
    history_at(f"sqlite:///{tmp_path}/.assay/assay.db", HEAD)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    done = Cli(tmp_path / "deep" / "er")("--version")
    assert done.returncode == 0, done.output
    assert f"{tmp_path}/.assay/assay.db: schema revision {HEAD} (current)" in done.stdout


def test_version_describes_an_older_history_and_leaves_it_as_it_is(cli: Cli, tmp_path: Path):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", "0007")
    before = digest(embedded)
    done = cli("--version")
    assert done.returncode == 0, done.output
    assert f"schema revision 0007, older than this Assay's {HEAD}" in done.stdout
    assert "the next command that opens it upgrades it, backing the file up first" in done.stdout
    assert digest(embedded) == before
    assert sorted(path.name for path in embedded.parent.iterdir()) == ["assay.db"]

    other = tmp_path / "shared.db"
    history_at(f"sqlite:///{other}", "0004")
    done = cli("--version", env={"ASSAY_DATABASE_URL": f"sqlite:///{other}"})
    assert "schema revision 0004, older than this Assay's" in done.stdout
    assert "`assay-agents db migrate` upgrades it" in done.stdout


def test_version_describes_a_newer_history(cli: Cli, tmp_path: Path):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", NEWER)
    before = digest(embedded)
    done = cli("--version")
    assert done.returncode == 0, done.output
    assert f"schema revision {NEWER}, newer than this Assay knows (its newest is {HEAD})" in (
        done.stdout
    )
    assert digest(embedded) == before


def test_version_reads_the_configured_database(cli: Cli, tmp_path: Path):
    (tmp_path / "assay.toml").write_text('database = "sqlite:///history/runs.db"\n')
    done = cli("--version")
    assert f"no database yet at sqlite:///{tmp_path}/history/runs.db" in done.stdout
    assert not (tmp_path / "history").exists()


def test_version_on_postgresql_never_prints_the_password(cli: Cli, postgres_url: str):
    url = with_password(postgres_url)
    done = cli("--version", env={"ASSAY_DATABASE_URL": url})
    assert done.returncode == 0, done.output
    assert "no Assay schema yet (`assay-agents db migrate` creates it)" in done.stdout
    assert "s3cret-pw" not in done.output and ":***@" in done.stdout
    history_at(postgres_url, "0006")
    done = cli("--version", env={"ASSAY_DATABASE_URL": url})
    assert "schema revision 0006, older than this Assay's" in done.stdout
    assert "s3cret-pw" not in done.output
    assert tables(postgres_url)[VERSION_TABLE] == [("0006",)]  # never migrated


def test_version_on_an_unreachable_database_exits_2_after_the_version(cli: Cli):
    url = "postgresql://ann:s3cret-pw@127.0.0.1:9/nothing"
    done = cli("--version", env={"ASSAY_DATABASE_URL": url})
    assert done.returncode == 2, done.output
    assert done.stdout.startswith("assay-agents ") and "cannot reach database" in done.stderr
    assert "s3cret-pw" not in done.output


@pytest.mark.process  # what a fresh interpreter imports
def test_version_reads_a_sqlite_history_without_sqlalchemy(tmp_path: Path):
    history_at(f"sqlite:///{tmp_path}/.assay/assay.db", HEAD)
    code = (
        "import sys\nsys.argv = ['assay-agents', '--version']\n"
        "from assay_agents.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', *sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    shown, loaded = done.stdout.split("LOADED", 1)
    assert f"schema revision {HEAD} (current)" in shown
    assert not {"sqlalchemy", "alembic", "assay_agents.store.store", "pydantic"} & set(
        loaded.split()
    )


# -- assay-agents db migrate
# ----------------------------------------------------------------------------


def test_migrate_says_what_it_will_do_backs_the_file_up_and_upgrades(cli: Cli, tmp_path: Path):
    path = tmp_path / "history.db"
    url = f"sqlite:///{path}"
    run_id = history_at(url, "0006")
    stored = tables(url)
    path.chmod(0o600)
    done = cli("db", "migrate", "--db", url)
    assert done.returncode == 0, done.output
    backup = tmp_path / "history.db.0006.bak"
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"upgrading database {url} from schema revision 0006 to {HEAD}, "
        f"in {len(revisions.steps_after('0006'))} steps:"
    )
    steps = [step for step in revisions.shipped() if step.id > "0006"]
    assert lines[1 : 1 + len(steps)] == [f"  {step.id}  {step.title}" for step in steps]
    assert lines[1 + len(steps)] == f"backing the file up first, to {backup} (revision 0006)"
    assert lines[-1] == f"database {url} is at the current schema (revision {HEAD})"

    # The backup is a whole SQLite history at the old revision, as private as the file.
    assert revisions.sqlite_status(backup) == revisions.status(frozenset({"0006"}))
    assert tables(f"sqlite:///{backup}") == stored
    assert backup.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.db", "history.db.0006.bak"]
    with Store.open(url) as store:
        assert store.get_run(run_id).status.value == "completed"

    again = cli("db", "migrate", "--db", url)
    assert again.returncode == 0, again.output
    assert again.stdout == (
        f"database {url} is up to date: at the current schema (revision {HEAD}); nothing changed\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.db", "history.db.0006.bak"]


def test_a_backup_that_cannot_be_written_stops_the_upgrade_before_it_starts(
    cli: Cli, tmp_path: Path
):
    path = tmp_path / "history.db"
    url = f"sqlite:///{path}"
    history_at(url, "0006")
    stored = tables(url)
    (tmp_path / "history.db.0006.bak.partial").mkdir()  # where the copy would be written
    done = cli("db", "migrate", "--db", url)
    assert done.returncode == 2, done.output
    assert "from schema revision 0006 to" in done.stdout  # said first
    assert f"cannot back up database file {path}" in done.stderr
    assert "nothing was changed" in done.stderr
    assert tables(url) == stored and not (tmp_path / "history.db.0006.bak").exists()


def test_a_second_backup_at_one_revision_keeps_the_first(cli: Cli, tmp_path: Path):
    path = tmp_path / "history.db"
    history_at(f"sqlite:///{path}", "0008")
    (tmp_path / "history.db.0008.bak").write_text("an earlier backup")
    done = cli("db", "migrate", "--db", f"sqlite:///{path}")
    assert done.returncode == 0, done.output
    assert f"to {tmp_path / 'history.db.0008.2.bak'} (revision 0008)" in done.stdout
    assert (tmp_path / "history.db.0008.bak").read_text() == "an earlier backup"


def test_the_embedded_history_upgrading_itself_is_backed_up_too(cli: Cli, tmp_path: Path):
    embedded = tmp_path / ".assay" / "assay.db"
    run_id = history_at(f"sqlite:///{embedded}", "0007")
    done = cli("history")
    assert done.returncode == 0, done.output
    assert run_id[:8] in done.stdout
    backup = embedded.with_name("assay.db.0007.bak")
    assert revisions.sqlite_status(backup) == revisions.status(frozenset({"0007"}))
    assert revisions.sqlite_status(embedded) == revisions.status(frozenset({HEAD}))


def test_migrate_on_postgresql_says_no_backup_is_taken(cli: Cli, postgres_url: str):
    history_at(postgres_url, "0005")
    done = cli("db", "migrate", "--db", with_password(postgres_url))
    assert done.returncode == 0, done.output
    assert "from schema revision 0005 to" in done.stdout
    assert "no backup is taken of a PostgreSQL database" in done.stdout and "pg_dump" in done.stdout
    assert "s3cret-pw" not in done.output
    assert tables(postgres_url)[VERSION_TABLE] == [(HEAD,)]


def test_migrate_creates_a_new_database_without_a_backup(cli: Cli, tmp_path: Path):
    done = cli("db", "migrate", "--db", f"sqlite:///{tmp_path}/new.db")
    assert done.returncode == 0, done.output
    assert done.stdout.startswith(f"creating the Assay schema (revision {HEAD}) in database")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]


# -- a history migrated by a newer Assay -------------------------------------------------------

COMMANDS = [
    ["history"],
    ["report"],
    ["compare", "a", "b"],
    ["baseline", "show", "--suite", "support", "--agent", "bot"],
    ["cache", "stats"],
    ["db", "migrate"],
    ["dashboard", "--port", "8765"],  # refused before it binds
    ["run", "SPEC"],
]


@pytest.mark.parametrize("words", COMMANDS, ids=lambda words: " ".join(words[:2]))
def test_a_newer_history_is_refused_by_every_command_and_left_unchanged(
    cli: Cli, tmp_path: Path, words: list[str], support_spec: Path
):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", NEWER)
    before = digest(embedded)
    done = cli(*[str(support_spec) if word == "SPEC" else word for word in words])
    assert done.returncode == 2, done.output
    assert f"is at schema revision {NEWER}, newer than this Assay knows" in done.stderr
    assert f"(its newest is {HEAD})" in done.stderr and "Nothing in it was changed" in done.stderr
    assert digest(embedded) == before
    assert sorted(p.name for p in embedded.parent.iterdir()) == ["assay.db"]


@pytest.mark.parametrize("words", [["history"], ["db", "migrate"], ["run", "SPEC"]])
def test_a_newer_database_named_by_url_is_refused(
    cli: Cli, store_url: str, words: list[str], support_spec: Path
):
    history_at(store_url, NEWER)
    before = tables(store_url)
    args = [str(support_spec) if word == "SPEC" else word for word in words]
    done = cli(*args, "--db", store_url)
    assert done.returncode == 2, done.output
    assert f"schema revision {NEWER}, newer than this Assay knows (its newest is {HEAD})" in (
        done.stderr
    )
    assert tables(store_url) == before


def test_sqlite_status_reads_without_leaving_files(tmp_path: Path):
    path = tmp_path / "h.db"
    history_at(f"sqlite:///{path}", HEAD)
    connection = sqlite3.connect(path)
    connection.close()
    assert revisions.sqlite_status(path) == revisions.status(frozenset({HEAD}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.db"]
    assert revisions.sqlite_status(tmp_path / "absent.db") is None
    assert not (tmp_path / "absent.db").exists()


# -- a refused or upgraded history: nothing written unasked, nothing upgraded without a word ---


def rollback_journal(path: Path) -> None:
    """Take a history out of WAL mode, as a copy made by other tools may be."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=DELETE")
    connection.close()


def journal_mode(path: Path) -> str:
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return str(connection.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        connection.close()


@pytest.mark.parametrize("words", [["history"], ["report"], ["db", "migrate"]])
def test_a_newer_history_out_of_wal_mode_is_left_byte_for_byte(
    cli: Cli, tmp_path: Path, words: list[str]
):
    path = tmp_path / "new.db"
    history_at(f"sqlite:///{path}", NEWER)
    rollback_journal(path)
    before = digest(path)
    done = cli(*words, "--db", f"sqlite:///{path}")
    assert done.returncode == 2, done.output
    assert "Nothing in it was changed" in done.stderr
    assert digest(path) == before and journal_mode(path) == "delete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]


def test_a_backup_that_fails_leaves_the_file_byte_for_byte(cli: Cli, tmp_path: Path):
    path = tmp_path / "history.db"
    history_at(f"sqlite:///{path}", "0006")
    rollback_journal(path)
    before = digest(path)
    (tmp_path / "history.db.0006.bak.partial").mkdir()  # where the copy would be written
    done = cli("db", "migrate", "--db", f"sqlite:///{path}")
    assert done.returncode == 2, done.output
    assert f"cannot back up database file {path}" in done.stderr
    assert "nothing was changed" in done.stderr
    assert digest(path) == before and journal_mode(path) == "delete"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "history.db",
        "history.db.0006.bak.partial",
    ]


def test_a_backup_is_never_wider_than_its_private_history(tmp_path: Path):
    path = tmp_path / "h.db"
    history_at(f"sqlite:///{path}", "0007")
    path.chmod(0o600)
    backup = tmp_path / "h.db.0007.bak"
    seen: dict[str, int] = {}

    def look(_status: int, _remaining: int, _total: int) -> None:
        for found in tmp_path.iterdir():  # the partial copy and its journal, mid-copy
            seen[found.name] = found.stat().st_mode & 0o777

    previous = os.umask(0o022)  # the usual umask: files 0644 unless told
    try:
        _migrate._back_up(path, backup, progress=look)
    finally:
        os.umask(previous)
    assert "h.db.0007.bak.partial" in seen
    assert {name: mode for name, mode in seen.items() if mode & 0o077} == {}
    assert backup.stat().st_mode & 0o777 == 0o600


def test_an_embedded_history_upgrading_itself_says_so(cli: Cli, tmp_path: Path):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", "0007")
    done = cli("history")
    assert done.returncode == 0, done.output
    backup = embedded.with_name("assay.db.0007.bak")
    assert done.stderr.splitlines() == [
        f"upgraded the history at sqlite:///{embedded} from schema revision 0007 to {HEAD}; "
        f"the previous file is backed up at {backup}"
    ]
    assert revisions.sqlite_status(backup) == revisions.status(frozenset({"0007"}))
    again = cli("history")
    assert again.returncode == 0 and again.stderr == "", again.output


def test_a_run_upgrading_the_embedded_history_says_so_in_one_line(
    cli_process: Cli, tmp_path: Path, support_spec: Path
):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", "0007")
    done = cli_process("run", str(support_spec), "--quiet")
    backup = embedded.with_name("assay.db.0007.bak")
    said = (
        f"upgraded the history at sqlite:///{embedded} from schema revision 0007 to {HEAD}; "
        f"the previous file is backed up at {backup}"
    )
    assert said in done.stderr.splitlines(), done.output
    assert "UserWarning" not in done.stderr and "api.py" not in done.stderr


def test_the_python_api_warns_that_it_upgraded_the_history(
    tmp_path: Path, support_spec: Path, monkeypatch: pytest.MonkeyPatch
):
    import assay_agents as assay

    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", "0007")
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match="from schema revision 0007 to") as heard:
        assay.run(str(support_spec), progress=False)
    backup = embedded.with_name("assay.db.0007.bak")
    assert f"backed up at {backup}" in str(heard[0].message) and backup.is_file()


def test_the_dashboard_refuses_an_older_history_and_leaves_it(cli: Cli, tmp_path: Path):
    embedded = tmp_path / ".assay" / "assay.db"
    history_at(f"sqlite:///{embedded}", "0007")
    before = digest(embedded)
    done = cli("dashboard", "--port", "8766")
    assert done.returncode == 2, done.output
    assert "revision 0007" in done.stderr and "assay-agents db migrate" in done.stderr
    assert digest(embedded) == before
    assert sorted(p.name for p in embedded.parent.iterdir()) == ["assay.db"]
