"""A history that cannot be used as it is: damaged, read-only, unversioned, or a bad URL.

Each is the user's to fix, so every command says what is wrong with which file and exits 2,
at once, never a traceback and never a minute of retries as if the store were down.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from store_builders import make_single_run, sample
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.errors import ConfigurationError
from assay_agents.results import summarise
from assay_agents.store import Store, redact
from assay_agents.store._tables import VERSION_TABLE

SPEC = Path(__file__).parents[1] / "cli" / "specs" / "fault_agent.py"
COMMANDS = (
    ["history"],
    ["history", "--format", "json"],
    ["report", "latest"],
    ["compare", "latest", "latest"],
    ["db", "migrate"],
)


def _history(folder: Path) -> Path:
    """A project folder whose embedded history holds one completed run."""
    path = folder / ".assay" / "assay.db"
    path.parent.mkdir(parents=True)
    with Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = store.create_run(make_single_run())
        store.save_samples(run.id, [sample()])
        store.complete_run(run.id, summary=summarise([sample()]), finished_at=run.started_at)
    return path


def _invoke(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(folder)
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    return CliRunner().invoke(app, list(args))


def _damage_table(path: Path, table: str) -> None:
    """Overwrite the pages of one table, leaving the header and the schema intact."""
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = [
            row[0]
            for row in connection.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))
        ]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    assert pages and 1 not in pages
    with path.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(b"\xa5" * size)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_history_damaged_past_its_header_exits_2_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    path = _history(tmp_path)
    _damage_table(path, "runs")
    done = _invoke(tmp_path, monkeypatch, *command)
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert str(path) in done.output and "damaged" in done.output
    assert "Traceback" not in done.output


def test_a_run_on_a_damaged_history_exits_2_before_the_agent_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _history(tmp_path)
    _damage_table(path, "runs")
    monkeypatch.setenv("MARKER_DIR", str(tmp_path))
    done = _invoke(tmp_path, monkeypatch, "run", str(SPEC), "--quiet")
    assert done.exit_code == 2, done.output
    assert str(path) in done.output and "damaged" in done.output
    assert not (tmp_path / "calls.log").exists()


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[object]:
    """Make a file or a folder read-only for real, for root too: a read-only bind mount."""
    mounted: list[Path] = []

    def make(path: Path) -> None:
        for step in (
            ["mount", "--bind", str(path), str(path)],
            ["mount", "-o", "remount,ro,bind", str(path)],
        ):
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                if mounted and mounted[-1] == path:
                    break
                path.chmod(0o555 if path.is_dir() else 0o444)  # not root: permissions do
                return
            if step[1] == "--bind":
                mounted.append(path)

    yield make
    for path in reversed(mounted):
        subprocess.run(["umount", str(path)], capture_output=True)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_history_exits_2_at_once_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only, what: str
) -> None:
    path = _history(tmp_path)
    before = path.read_bytes()
    read_only(path if what == "file" else path.parent)
    monkeypatch.setenv("MARKER_DIR", str(tmp_path))
    # A retry as for an outage would take these 30 s; a refusal is immediate.
    done = _invoke(tmp_path, monkeypatch, "run", str(SPEC), "--quiet", "--store-retry", "30")
    assert done.exit_code == 2, done.output
    assert "read-only" in done.output and str(path.parent) in done.output
    assert "store unavailable" not in done.output
    assert path.read_bytes() == before
    listed = _invoke(tmp_path, monkeypatch, "history")
    if what == "file":  # read as it is
        assert listed.exit_code == 0 and "completed" in listed.output, listed.output
    else:  # SQLite cannot even read without its journal files: said as plainly
        assert listed.exit_code == 2 and "read-only" in listed.output, listed.output


def test_a_history_without_its_version_table_is_adopted_by_the_advised_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _history(tmp_path)
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f"DROP TABLE {VERSION_TABLE}"))
    engine.dispose()
    shown = _invoke(tmp_path, monkeypatch, "history", "--db", url)
    assert shown.exit_code == 2 and "assay-agents db migrate" in shown.output, shown.output
    migrated = _invoke(tmp_path, monkeypatch, "db", "migrate", "--db", url)
    assert migrated.exit_code == 0, migrated.output
    listed = _invoke(tmp_path, monkeypatch, "history", "--db", url)
    assert listed.exit_code == 0 and "completed" in listed.output, listed.output


def test_tables_that_are_not_an_assay_history_are_named_not_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, note TEXT)")
    url = f"sqlite:///{path}"
    migrated = _invoke(tmp_path, monkeypatch, "db", "migrate", "--db", url)
    assert migrated.exit_code == 2, migrated.output
    assert "runs" in migrated.output and "already exists" not in migrated.output
    assert "another database" in migrated.output


# Malformed on purpose: an unescaped '@', '?', '#' or '/' in the password moves where a
# parser thinks the host begins, so the driver would quote part of the password.
MALFORMED = [
    "postgresql://ann:p@Zq9x@localhost/db",
    "postgresql://ann:pa?Zq9x@localhost/db",
    "postgresql://ann:pa#Zq9x@localhost/db",
    "postgresql://ann:pa/Zq9x@localhost/db",
    "postgresql://ann:p@s:Zq9x@localhost:5432/db",
    "postgresql://ann:Zq9x@localhost/db?password=Zq9x&host=x@y",
]


@pytest.mark.parametrize("url", MALFORMED)
def test_no_part_of_a_password_is_printed_for_a_malformed_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    assert "Zq9x" not in redact(url)
    done = _invoke(tmp_path, monkeypatch, "history", "--db", url)
    assert done.exit_code == 2, done.output
    assert "Zq9x" not in done.output


def test_an_escaped_password_is_accepted_and_still_hidden(tmp_path: Path) -> None:
    url = "postgresql://ann:p%40Zq9x@127.0.0.1:1/db"
    with pytest.raises(ConfigurationError) as caught:
        Store.open(url)
    assert "cannot reach database" in str(caught.value) and "Zq9x" not in str(caught.value)
