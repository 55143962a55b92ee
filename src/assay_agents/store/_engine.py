"""Engines: one per store, with SQLite tuned for a single writer and many readers."""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from assay_agents.errors import ConfigurationError
from assay_agents.store._urls import redact, scrub, sqlite_path

#: Execution option that asks for a write transaction (``BEGIN IMMEDIATE`` on SQLite).
WRITE = "assay_write"
#: How long SQLite waits for another process's lock before a write fails (and is retried by
#: the run's writer); ``ASSAY_SQLITE_BUSY_TIMEOUT_MS`` overrides it.
BUSY_TIMEOUT_MS = 30_000

# Strict JSON on every backend: PostgreSQL would refuse NaN, so SQLite must refuse it too.
_dumps = functools.partial(json.dumps, allow_nan=False, ensure_ascii=False)


def connect(url: str, *, wal: bool = True) -> Engine:
    """Return an engine that has proved it can connect, or raise ConfigurationError.

    A SQLite file is switched to WAL unless ``wal`` is false (an upgrade that must leave a
    file it refuses, or cannot back up, as it was).
    """
    # A PostgreSQL server that restarted leaves dead pooled connections: test before use.
    options: dict[str, Any] = {} if url.startswith("sqlite") else {"pool_pre_ping": True}
    _require_supported(url)
    try:
        engine = create_engine(url, json_serializer=_dumps, **options)
    except (ArgumentError, NoSuchModuleError, ImportError) as error:
        raise ConfigurationError(f"cannot use database {redact(url)}: {error}") from None
    if engine.dialect.name == "sqlite":
        _tune_sqlite(engine, wal=wal)
    try:
        with engine.connect():
            pass
    except DBAPIError as error:
        engine.dispose()
        refused = unusable_file(url, error)
        if refused is not None:
            raise refused from None
        # Driver messages span lines (libpq adds hints); one line reads better in a CLI error.
        reason = scrub(" ".join(str(error.orig).split()), url)
        raise ConfigurationError(f"cannot reach database {redact(url)}: {reason}") from None
    return engine


# SQLite's primary result codes for a file that is not usable as it is (not an outage).
_READONLY, _CANTOPEN, _CORRUPT, _NOTADB = 8, 14, 11, 26


def unusable_file(url: str, error: BaseException) -> ConfigurationError | None:
    """The user's to fix, not worth retrying: a damaged or read-only SQLite file, or folder.

    ``None`` when ``error`` is anything else (a lock, a full disk: those pass).
    """
    path = sqlite_path(url)
    code = getattr(getattr(error, "orig", None), "sqlite_errorcode", None)
    if path is None or not isinstance(code, int):
        return None
    reason = " ".join(str(getattr(error, "orig", error)).split())
    if code & 0xFF in (_CORRUPT, _NOTADB):
        return ConfigurationError(
            f"database file {path} is damaged ({reason}); restore it "
            "from a backup, or move it aside to start a new history"
        )
    if code & 0xFF not in (_READONLY, _CANTOPEN):
        return None
    folder = path.parent
    if not os.access(folder, os.W_OK):
        # WAL keeps two files beside the database (-wal, -shm) that SQLite must create.
        return ConfigurationError(
            f"the folder {folder} of database file {path} is read-only; "
            "SQLite writes its journal beside the file: make the "
            "folder writable, or give --db another database"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return ConfigurationError(
            f"database file {path} is read-only; make it writable, or give --db another database"
        )
    return None


#: The backends Assay stores history in, by URL scheme, with the driver each needs.
SUPPORTED_SCHEMES = {
    "sqlite": None,
    "sqlite+pysqlite": None,
    "postgresql": "psycopg",
    "postgresql+psycopg": "psycopg",
}


def _require_supported(url: str) -> None:
    """Refuse a scheme Assay does not store in, and name the extra a missing driver is in."""
    scheme = url.partition("://")[0].lower() if "://" in url else url.partition(":")[0].lower()
    if scheme not in SUPPORTED_SCHEMES:
        raise ConfigurationError(
            f"cannot use database {redact(url)}: unsupported URL scheme {scheme!r}; Assay "
            "stores history in SQLite (sqlite:///path/to/assay.db) or PostgreSQL "
            "(postgresql://user@host/db, postgres:// and postgresql+psycopg:// too)"
        )
    driver = SUPPORTED_SCHEMES[scheme]
    if driver is None:
        return
    import importlib.util

    if importlib.util.find_spec(driver) is None:
        raise ConfigurationError(
            f"cannot use database {redact(url)}: PostgreSQL needs its "
            f"driver ({driver}): pip install 'assay-agents[postgres]'"
        )


def _tune_sqlite(engine: Engine, *, wal: bool) -> None:
    event.listen(engine, "connect", _on_sqlite_connect if wal else _on_sqlite_connect_as_is)
    event.listen(engine, "begin", _on_sqlite_begin)


def _on_sqlite_connect(dbapi_connection: Any, record: Any) -> None:
    _on_sqlite_connect_as_is(dbapi_connection, record)
    # WAL lets the dashboard read while a run writes.
    dbapi_connection.execute("PRAGMA journal_mode=WAL").close()


def _on_sqlite_connect_as_is(dbapi_connection: Any, _record: Any) -> None:
    """Tune a connection without touching the file's journal mode."""
    # Take transactions out of the driver's hands (it would BEGIN lazily, only before DML),
    # so a read-then-write unit really is one transaction; _on_sqlite_begin issues BEGIN.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        # Foreign keys are off by default.
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={_busy_timeout_ms()}")
    finally:
        cursor.close()


def _busy_timeout_ms() -> int:
    configured = os.environ.get("ASSAY_SQLITE_BUSY_TIMEOUT_MS", "")
    return int(configured) if configured.isdigit() else BUSY_TIMEOUT_MS


def _on_sqlite_begin(connection: Connection) -> None:
    # A deferred transaction that later writes can fail at once with SQLITE_BUSY under WAL
    # (the busy timeout does not apply to lock upgrades); writers take the lock up front.
    write = connection.get_execution_options().get(WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
