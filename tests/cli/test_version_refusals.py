"""What ``assay-agents --version`` and ``assay-agents db migrate`` refuse, mask and leave untouched.

Real SQLite files, and real processes wherever all a process writes is checked: a database
URL it cannot use is refused as the store refuses it, no password ever reaches the output,
no escape sequence reaches the terminal, and reading a history changes none of its files.
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assay_agents.store import revisions
from commandline import Cli

HEAD = revisions.shipped()[-1].id
ESCAPES = "\x1b]0;PWN\x07\x1b[2J"


@pytest.mark.parametrize(
    ("url", "secrets"),
    [
        ("postgresql://user:pa@ss3cret@127.0.0.1:1/db", ("ss3cret", "pa@")),
        ("postgresql://user:pa@ss:3cret@127.0.0.1:1/db", ("3cret", "pa@ss")),
    ],
)
def test_version_refuses_a_password_as_migrate_does(
    cli_process: Cli, url: str, secrets: tuple[str, ...]
):
    refusals = []
    for args in (("--version",), ("db", "migrate")):
        done = cli_process(*args, env={"ASSAY_DATABASE_URL": url})
        assert done.returncode == 2, done.output
        assert not any(secret in done.output for secret in secrets), done.output
        refusals.append(done.stderr)
    assert refusals[0] == refusals[1]


def test_version_refuses_a_password_that_must_be_percent_encoded(cli_process: Cli):
    url = "postgresql://user:pa@ss3cret@127.0.0.1:1/db"
    done = cli_process("--version", env={"ASSAY_DATABASE_URL": url})
    assert done.returncode == 2, done.output
    assert "its password holds a character that must be percent-encoded" in done.stderr
    assert "ss3cret" not in done.output


@pytest.mark.parametrize("key", ["sslpassword", "SSLPassword", "password"])
def test_a_password_in_the_query_is_masked_on_every_command(cli_process: Cli, key: str):
    url = f"postgresql://user:s3cret@127.0.0.1:1/db?{key}=KEYPASS9&sslmode=require"
    for args in (("--version",), ("db", "migrate"), ("history",)):
        done = cli_process(*args, env={"ASSAY_DATABASE_URL": url})
        assert done.returncode == 2, done.output
        assert "KEYPASS9" not in done.output and "s3cret" not in done.output, done.output
        assert "sslmode=require" in done.output


def test_version_refuses_an_in_memory_database(cli: Cli):
    for url in ("sqlite:///:memory:", "sqlite://"):
        done = cli("--version", env={"ASSAY_DATABASE_URL": url})
        assert done.returncode == 2, done.output
        assert "an in-memory SQLite database keeps no history" in done.stderr
        assert "creates it" not in done.output


def test_version_refuses_a_folder_as_a_database(cli: Cli, tmp_path: Path):
    folder = tmp_path / "folder"
    folder.mkdir()
    done = cli("--version", env={"ASSAY_DATABASE_URL": f"sqlite:///{folder}"})
    assert done.returncode == 2, done.output
    assert f"{folder} is a folder, not a database file" in done.stderr
    assert "creates it" not in done.output
    assert list(folder.iterdir()) == []


def test_version_shows_an_odd_folder_name_without_its_escapes(tmp_path: Path):
    folder = tmp_path / f"odd{ESCAPES}name"
    folder.mkdir()
    done = Cli(folder, process=True)("--version")
    assert done.returncode == 0, done.output
    assert "\x1b" not in done.output and "\x07" not in done.output
    assert "history: none yet (no .assay/ folder in" in done.stdout


def test_migrate_shows_an_odd_backup_path_without_its_escapes(tmp_path: Path):
    folder = tmp_path / f"odd{ESCAPES}name"
    folder.mkdir()
    path = folder / "history.db"
    url = f"sqlite:///{path}"
    connection = sqlite3.connect(path)
    connection.execute(f"CREATE TABLE {revisions.VERSION_TABLE} (version_num TEXT)")
    connection.execute(f"INSERT INTO {revisions.VERSION_TABLE} VALUES ('0004')")
    connection.commit()
    connection.close()
    (folder / "history.db.0004.bak.partial").mkdir()  # the backup cannot be written
    done = Cli(tmp_path, process=True)("db", "migrate", "--db", url)
    assert done.returncode == 2, done.output
    assert "backing the file up first" in done.stdout
    assert "cannot back up database file" in done.stderr
    assert "\x1b" not in done.output and "\x07" not in done.output


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wal_history(path: Path, *, pending: str) -> None:
    """A WAL history at revision ``0001`` whose last write, to ``pending``, a killed
    process left in the WAL: never checkpointed, its -wal and -shm files still there."""
    code = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1])\n"
        "c.execute('PRAGMA journal_mode=WAL')\n"
        f"c.execute('CREATE TABLE {revisions.VERSION_TABLE} (version_num TEXT)')\n"
        f"c.execute(\"INSERT INTO {revisions.VERSION_TABLE} VALUES ('0001')\")\n"
        "c.commit()\n"
        "c.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
        f"c.execute('UPDATE {revisions.VERSION_TABLE} SET version_num = ?', (sys.argv[2],))\n"
        "c.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path), pending], check=True)


def test_version_reads_a_pending_wal_write_and_changes_no_file(cli_process: Cli, tmp_path: Path):
    path = tmp_path / ".assay" / "assay.db"
    path.parent.mkdir()
    wal_history(path, pending=HEAD)
    wal = path.with_name("assay.db-wal")
    assert wal.stat().st_size > 0
    before = {p.name: digest(p) for p in path.parent.iterdir() if not p.name.endswith("-shm")}
    names = sorted(p.name for p in path.parent.iterdir())
    done = cli_process("--version")
    assert done.returncode == 0, done.output
    assert f"schema revision {HEAD} (current)" in done.stdout  # the write only the WAL holds
    assert sorted(p.name for p in path.parent.iterdir()) == names
    after = {p.name: digest(p) for p in path.parent.iterdir() if not p.name.endswith("-shm")}
    assert after == before


def test_version_leaves_a_clean_wal_history_and_its_folder_alone(cli_process: Cli, tmp_path: Path):
    path = tmp_path / ".assay" / "assay.db"
    path.parent.mkdir()
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(f"CREATE TABLE {revisions.VERSION_TABLE} (version_num TEXT)")
    connection.execute(f"INSERT INTO {revisions.VERSION_TABLE} VALUES (?)", (HEAD,))
    connection.commit()
    connection.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["assay.db"]
    before, folder = digest(path), path.parent.stat().st_mtime_ns
    done = cli_process("--version")
    assert done.returncode == 0, done.output
    assert f"schema revision {HEAD} (current)" in done.stdout
    assert digest(path) == before and path.parent.stat().st_mtime_ns == folder
    assert sorted(p.name for p in path.parent.iterdir()) == ["assay.db"]
