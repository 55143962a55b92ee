"""The schema revisions this Assay ships, and where a database stands against them.

Read from the migration files' text, never by importing Alembic: ``assay-agents --version`` and the
check every command makes on opening a history cost a file read, not a tenth of a second.
An embedded (SQLite) history is read here with the standard library alone, read-only, so
that asking about it never creates, migrates or even journals it.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

#: Where Alembic records the revision of an Assay history (not Alembic's default name).
VERSION_TABLE = "assay_alembic_version"
MIGRATIONS = Path(__file__).with_name("migrations")


class SchemaState(Enum):
    """How a database's schema relates to the migrations this Assay ships."""

    CURRENT = "current"
    MISSING = "missing"  # never migrated
    OUTDATED = "outdated"  # an older revision of ours
    UNKNOWN = "unknown"  # a revision we do not ship: a newer Assay migrated it


@dataclass(frozen=True)
class Revision:
    """One migration: its id, the revision it follows, and its title (its docstring's line)."""

    id: str
    down: str | None
    title: str


@dataclass(frozen=True)
class SchemaStatus:
    """Where a database stands: its recorded revision(s) and the newest this Assay ships."""

    state: SchemaState
    #: The revision(s) recorded in the database; empty when none is.
    stored: tuple[str, ...]
    head: str

    @property
    def revision(self) -> str | None:
        """The recorded revision, ``None`` when there is none (several are joined)."""
        return ", ".join(self.stored) if self.stored else None


@dataclass(frozen=True)
class Upgrade:
    """What migrating a database does, told before it is done."""

    database: str  # its URL, password masked
    #: The revision it is at, ``None`` for a database created from nothing.
    start: str | None
    head: str
    steps: tuple[Revision, ...]
    #: Where an older SQLite history is copied before anything changes.
    backup: Path | None


def backup_path(file: Path, revision: str) -> Path:
    """A new name beside ``file`` for its copy at ``revision``: ``assay.db.0007.bak``.

    An earlier backup is never overwritten: a second one is ``assay.db.0007.2.bak``.
    """
    candidate = file.with_name(f"{file.name}.{revision}.bak")
    number = 1
    while candidate.exists():
        number += 1
        candidate = file.with_name(f"{file.name}.{revision}.{number}.bak")
    return candidate


def status(stored: frozenset[str] | None) -> SchemaStatus:
    """Classify the revisions recorded in a database (``None``: it has no version table)."""
    revisions = tuple(sorted(stored or ()))
    head = shipped()[-1].id
    known = {revision.id for revision in shipped()}
    if not revisions:
        found = SchemaState.MISSING
    elif revisions == (head,):
        found = SchemaState.CURRENT
    elif len(revisions) == 1 and revisions[0] in known:
        found = SchemaState.OUTDATED
    else:
        found = SchemaState.UNKNOWN
    return SchemaStatus(found, revisions, head)


def steps_after(revision: str | None) -> tuple[Revision, ...]:
    """The shipped revisions after ``revision`` up to the head (all of them after ``None``)."""
    chain = shipped()
    if revision is None:
        return chain
    ids = [step.id for step in chain]
    return chain[ids.index(revision) + 1 :]


_REVISION = re.compile(r"^revision(?:: *str)? *= *[\"']([^\"']+)[\"']", re.M)
_DOWN = re.compile(r"^down_revision(?:: *[^=]+)? *= *(?:[\"']([^\"']+)[\"']|None)", re.M)


@functools.cache
def shipped() -> tuple[Revision, ...]:
    """Every revision in the package, oldest first (one line of history, as Assay keeps it)."""
    found: dict[str | None, Revision] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        ids, downs = _REVISION.findall(source), _DOWN.findall(source)
        if len(ids) != 1 or len(downs) != 1:
            continue  # not a migration (a helper module)
        revision = Revision(ids[0], downs[0] or None, _title(source))
        found[revision.down] = revision
    chain: list[Revision] = []
    follows: str | None = None
    while follows in found:
        chain.append(found[follows])
        follows = chain[-1].id
    return tuple(chain)


def _title(source: str) -> str:
    """The first line of a migration's docstring."""
    match = re.match(r'\s*(?:"""|\'\'\')\s*(.*)', source)
    return match.group(1).strip().rstrip(".") if match else ""


def sqlite_status(path: Path) -> SchemaStatus | None:
    """The status of the SQLite history at ``path``, read-only; ``None`` when no file is there.

    Raises :class:`sqlite3.DatabaseError` for a file SQLite cannot read (damaged, not a
    database).
    """
    if not path.is_file():
        return None
    connection = sqlite3.connect(_read_only_uri(path), uri=True)
    try:
        tables = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (VERSION_TABLE,)
        ).fetchall()
        if not tables:
            return status(None)
        rows = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall()
    finally:
        connection.close()
    return status(frozenset(str(row[0]) for row in rows))


def _read_only_uri(path: Path) -> str:
    """A URI that reads ``path`` without writing the file, its journals or its folder.

    ``mode=ro`` never checkpoints a WAL nor removes its files as it closes, so a write only
    the WAL holds is read and left there. Without a journal beside it the file is complete
    as it stands: ``immutable=1`` then reads it creating no -wal or -shm file either.
    """
    uri = f"{path.resolve().as_uri()}?mode=ro"
    journals = (path.with_name(path.name + suffix) for suffix in ("-wal", "-journal"))
    return uri if any(journal.exists() for journal in journals) else f"{uri}&immutable=1"


def stored_revisions(connection: Connection) -> frozenset[str] | None:
    """The revisions recorded in the database, ``None`` without a version table."""
    from sqlalchemy import inspect, text

    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    found = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
    return frozenset(str(row[0]) for row in found)


_SQLITE_URL = re.compile(r"^sqlite(?:\+pysqlite)?:///([^?#]+)$", re.IGNORECASE)


def database_status(url: str) -> SchemaStatus | None:
    """Where the database at ``url`` stands, read without changing anything.

    ``None`` when it is a SQLite file that does not exist (nothing is created). A SQLite
    file is read with the standard library; any other database through the store's engine.
    Raises :class:`~assay_agents.errors.ConfigurationError` when the database cannot be read.
    """
    simple = _SQLITE_URL.match(url)
    if simple is not None and simple.group(1) != ":memory:":
        from urllib.parse import unquote

        return _file_status(Path(unquote(simple.group(1))))
    return _engine_status(url)


def _file_status(path: Path) -> SchemaStatus | None:
    from assay_agents.errors import ConfigurationError

    if path.is_dir():
        raise ConfigurationError(
            f"cannot use database file {path}: {path} is a folder, not a database file; "
            f"name a file, e.g. sqlite:///{path / 'assay.db'}"
        )
    try:
        return sqlite_status(path)
    except sqlite3.Error as error:
        raise ConfigurationError(f"cannot read database file {path}: {error}") from None


def _engine_status(url: str) -> SchemaStatus | None:
    from sqlalchemy.exc import SQLAlchemyError

    from assay_agents.errors import ConfigurationError
    from assay_agents.store._engine import connect
    from assay_agents.store._urls import normalise, redact, refuse_unusable, scrub, sqlite_path

    target = normalise(url)
    refuse_unusable(target)  # as the store refuses it, before anything connects
    try:
        file = sqlite_path(target)
    except (SQLAlchemyError, ValueError):
        raise ConfigurationError(f"{redact(url)!r} is not a database URL") from None
    if file is not None:
        return _file_status(file)
    engine = connect(target)
    try:
        with engine.connect() as connection:
            return status(stored_revisions(connection))
    except SQLAlchemyError as error:
        reason = scrub(" ".join(str(getattr(error, "orig", error)).split()), target)
        raise ConfigurationError(f"cannot read database {redact(url)}: {reason}") from None
    finally:
        engine.dispose()
