"""Alembic, run programmatically: the migrations ship inside the package, no alembic.ini."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from assay_agents.errors import ConfigurationError
from assay_agents.store import revisions
from assay_agents.store._engine import WRITE
from assay_agents.store.revisions import MIGRATIONS, SchemaStatus, Upgrade
from assay_agents.store.revisions import SchemaState as SchemaState

if TYPE_CHECKING:
    from alembic.config import Config

_MIGRATION_LOCK = 0x41535341_59  # arbitrary, constant: "ASSAY"


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    # ConfigParser interpolates '%'; a path containing one must be escaped.
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def schema_status(engine: Engine) -> SchemaStatus:
    """Where the database stands against the revisions this Assay ships (read only)."""
    with engine.connect() as connection:
        return revisions.status(revisions.stored_revisions(connection))


def state(engine: Engine) -> SchemaState:
    """Compare the database's revision with the head revision shipped with this package."""
    return schema_status(engine).state


def upgrade(
    engine: Engine,
    display_url: str,
    *,
    file: Path | None = None,
    announce: Callable[[Upgrade], None] | None = None,
) -> Upgrade | None:
    """Upgrade to the head revision in one transaction; ``None`` when it was there already.

    What will be done is decided under the migration lock, handed to ``announce`` before
    anything changes, and returned. An older SQLite history (``file``) is copied first to a
    backup beside it. A database migrated by a newer Assay is refused, and left as it is.
    """
    found = schema_status(engine)
    if found.state is SchemaState.CURRENT:
        return None
    if found.state is SchemaState.UNKNOWN:
        raise schema_error(display_url, found)
    file = None if file is None else file.resolve()
    with engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        with connection.begin():
            if connection.dialect.name == "postgresql":
                # Two concurrent `assay-agents db migrate` runs queue here; the second finds the
                # schema already at head. (SQLite's BEGIN IMMEDIATE serialises them already.)
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                )
            return _upgrade_locked(connection, display_url, file, announce)


def _upgrade_locked(
    connection: Connection,
    display_url: str,
    file: Path | None,
    announce: Callable[[Upgrade], None] | None,
) -> Upgrade | None:
    from alembic import command
    from alembic.util import CommandError

    found = revisions.status(revisions.stored_revisions(connection))  # as it is now, under the lock
    if found.state is SchemaState.CURRENT:
        return None
    if found.state is SchemaState.UNKNOWN:
        raise schema_error(display_url, found)
    outdated = found.state is SchemaState.OUTDATED
    start = found.revision if outdated else _adopted(connection, display_url)
    backup = None if file is None or start is None else revisions.backup_path(file, start)
    plan = Upgrade(display_url, start, found.head, revisions.steps_after(start), backup)
    if announce is not None:
        announce(plan)
    if backup is not None:
        assert file is not None
        _back_up(file, backup)
    try:
        if found.state is SchemaState.MISSING and start is not None:
            command.stamp(_config(connection), start)
        command.upgrade(_config(connection), "head")
    except CommandError as error:
        raise ConfigurationError(f"cannot migrate {display_url}: {error}") from None
    return plan


def _back_up(
    file: Path, backup: Path, *, progress: Callable[[int, int, int], object] | None = None
) -> None:
    """Copy the SQLite history at ``file`` to ``backup`` with SQLite's backup API.

    Called while this process holds the write lock: the copy, read through a connection of
    its own (a writing connection cannot be the source), is the last committed history, the
    one the upgrade starts from. Written beside as ``.partial`` and renamed: a backup that
    exists is whole. It has the file's permissions from the moment it exists (SQLite gives
    its journal the same): a history may hold what others must not read. ``progress``
    (SQLite's backup callback) hears each page copied.
    """
    partial = backup.with_name(backup.name + ".partial")
    try:
        partial.unlink(missing_ok=True)  # left by a copy that was stopped: never reused
        mode = stat.S_IMODE(file.stat().st_mode)
        os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))
        partial.chmod(mode)  # the umask narrowed it, maybe: exactly the file's
        source = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy, pages=-1 if progress is None else 1, progress=progress)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            finally:
                copy.close()
        finally:
            source.close()
        partial.replace(backup)
    except (OSError, sqlite3.Error) as error:
        with contextlib.suppress(OSError):  # the reason to report is the first failure
            partial.unlink(missing_ok=True)
        from assay_agents.text import visible  # a path may hold any character but a NUL

        raise ConfigurationError(
            visible(f"cannot back up database file {file} to {backup} ({error}); ")
            + "nothing was changed: free some space or make its folder writable, and migrate again"
        ) from None


#: The tables every revision has; then what each later revision added, in order: ``runs``
#: columns, tables, and triggers (by which a revision that only changed triggers is known).
_TABLES = ("runs", "run_cases", "samples", "metrics")
_ADDED: tuple[tuple[str, set[str], set[str], set[str]], ...] = (
    ("0002", {"owner_host", "owner_pid", "owner_token", "heartbeat_at", "error"}, set(), set()),
    ("0003", {"verdict", "judge_usage"}, set(), set()),
    ("0004", {"outcome", "baseline_choice"}, {"baseline_pins"}, set()),
    ("0005", set(), set(), {"runs_append_only_insert"}),
    ("0006", {"owner_started"}, set(), set()),
    ("0007", {"traces"}, set(), set()),
    ("0008", set(), {"call_cache"}, set()),
    # 0009 and 0010 only add indexes, and create just those missing: adopted at 0008, a
    # history upgrades through them.
)


def _adopted(connection: Connection, display_url: str) -> str | None:
    """The revision of Assay tables whose version table was lost; ``None`` for no tables.

    Recorded before upgrading, or migrating would try to create tables that exist. Tables
    that are not an Assay history (a ``runs`` table of another program) are refused, never
    changed.
    """
    found = inspect(connection)
    present = [name for name in _TABLES if found.has_table(name)]
    if not present:
        return None  # an empty database: created from scratch
    revision = _recognised_revision(connection, present)
    if revision is None:
        raise ConfigurationError(
            f"database {display_url} holds table(s) {', '.join(present)} that are not an "
            "Assay history (no Assay version record, and not Assay's columns); use another "
            "database (--db), or move those tables aside"
        )
    return revision


def _recognised_revision(connection: Connection, present: list[str]) -> str | None:
    if len(present) < len(_TABLES):
        return None
    columns = {column["name"] for column in inspect(connection).get_columns("runs")}
    if not {"sequence", "id", "suite", "agent", "fingerprint", "status", "settings"} <= columns:
        return None
    triggers = _trigger_names(connection)
    if "runs_append_only" not in triggers and "runs_append_only_update" not in triggers:
        return None  # not guarded as Assay guards its history
    found = inspect(connection)
    revision = "0001"
    for candidate, added_columns, added_tables, added_triggers in _ADDED:
        if not (
            added_columns <= columns
            and added_triggers <= triggers
            and all(found.has_table(name) for name in added_tables)
        ):
            break
        revision = candidate
    return revision


def _trigger_names(connection: Connection) -> set[str]:
    if connection.dialect.name == "postgresql":
        query = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
    else:
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    return {str(row[0]) for row in connection.execute(text(query))}


def require_current(engine: Engine, display_url: str) -> None:
    """Raise :class:`ConfigurationError` with the command to run unless the schema is current."""
    found = schema_status(engine)
    if found.state is not SchemaState.CURRENT:
        raise schema_error(display_url, found)


def schema_error(display_url: str, found: SchemaStatus) -> ConfigurationError:
    """Build the error for a database whose schema cannot be used as it is."""
    remedy = f"run `assay-agents db migrate --db {display_url}`"
    if found.state is SchemaState.MISSING:
        return ConfigurationError(
            f"database {display_url} is not migrated (it has no Assay schema); {remedy}"
        )
    if found.state is SchemaState.OUTDATED:
        return ConfigurationError(
            f"database {display_url} has an outdated Assay schema (revision {found.revision}; "
            f"this Assay's is {found.head}); {remedy}"
        )
    return ConfigurationError(
        f"database {display_url} is at schema revision {found.revision}, newer than this "
        f"Assay knows (its newest is {found.head}): it was migrated by a newer version of "
        "Assay; use that version, or upgrade this one. Nothing in it was changed"
    )
