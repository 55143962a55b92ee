"""Alembic, run programmatically: the migrations ship inside the package, no alembic.ini."""

from __future__ import annotations

import functools
import re
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from assay.errors import ConfigurationError
from assay.store._engine import WRITE
from assay.store._tables import VERSION_TABLE

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_LOCK = 0x41535341_59  # arbitrary, constant: "ASSAY"


class SchemaState(Enum):
    """How a database's schema relates to the migrations this Assay ships."""

    CURRENT = "current"
    MISSING = "missing"  # never migrated
    OUTDATED = "outdated"  # an older revision of ours
    UNKNOWN = "unknown"  # a revision we do not ship: a newer Assay migrated it


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    # ConfigParser interpolates '%'; a path containing one must be escaped.
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def state(engine: Engine) -> SchemaState:
    """Compare the database's revision with the head revision shipped with this package.

    The common case, a current database, is read without Alembic: importing it costs every
    command a tenth of a second. Anything else is Alembic's to judge.
    """
    if _stored_revisions(engine) == _shipped_heads():
        return SchemaState.CURRENT
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(_config())
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        current = context.get_current_revision()
    if current is None:
        return SchemaState.MISSING
    if current == scripts.get_current_head():
        return SchemaState.CURRENT
    known = {script.revision for script in scripts.walk_revisions()}
    return SchemaState.OUTDATED if current in known else SchemaState.UNKNOWN


def upgrade(engine: Engine, display_url: str) -> None:
    """Upgrade to the head revision in one transaction (idempotent)."""
    found = state(engine)
    if found is SchemaState.CURRENT:
        return
    if found is SchemaState.UNKNOWN:
        raise schema_error(display_url, found)
    from alembic import command
    from alembic.util import CommandError

    with engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        with connection.begin():
            if connection.dialect.name == "postgresql":
                # Two concurrent `assay db migrate` runs queue here; the second finds the
                # schema already at head. (SQLite's BEGIN IMMEDIATE serialises them already.)
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                )
            try:
                if found is SchemaState.MISSING:
                    _adopt(connection, display_url)
                command.upgrade(_config(connection), "head")
            except CommandError as error:
                raise ConfigurationError(f"cannot migrate {display_url}: {error}") from None


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
    # 0009 only adds indexes, and creates just those missing: adopted at 0008, it upgrades.
)


def _adopt(connection: Connection, display_url: str) -> None:
    """Record the revision of Assay tables whose version table was lost, so upgrades work.

    Without it, migrating would try to create tables that exist. Tables that are not an
    Assay history (a ``runs`` table of another program) are refused, never changed.
    """
    from alembic import command

    found = inspect(connection)
    present = [name for name in _TABLES if found.has_table(name)]
    if not present:
        return  # an empty database: created from scratch
    revision = _recognised_revision(connection, present)
    if revision is None:
        raise ConfigurationError(
            f"database {display_url} holds table(s) {', '.join(present)} that are not an "
            "Assay history (no Assay version record, and not Assay's columns); use another "
            "database (--db), or move those tables aside"
        )
    command.stamp(_config(connection), revision)


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


_REVISION = re.compile(r"^revision(?:: *str)? *= *[\"']([^\"']+)[\"']", re.M)
_DOWN = re.compile(r"^down_revision(?:: *[^=]+)? *= *[\"']([^\"']+)[\"']", re.M)


@functools.cache
def _shipped_heads() -> frozenset[str]:
    """The head revisions of the migrations in the package (read, not imported)."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        revisions.update(_REVISION.findall(source))
        downs.update(_DOWN.findall(source))
    return frozenset(revisions - downs)


def _stored_revisions(engine: Engine) -> frozenset[str] | None:
    """The revisions recorded in the database, ``None`` without a version table."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        found = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
        return frozenset(str(row[0]) for row in found)


def require_current(engine: Engine, display_url: str) -> None:
    """Raise :class:`ConfigurationError` with the command to run unless the schema is current."""
    found = state(engine)
    if found is not SchemaState.CURRENT:
        raise schema_error(display_url, found)


def schema_error(display_url: str, found: SchemaState) -> ConfigurationError:
    """Build the error for a database whose schema cannot be used as it is."""
    remedy = f"run `assay db migrate --db {display_url}`"
    if found is SchemaState.MISSING:
        return ConfigurationError(
            f"database {display_url} is not migrated (it has no Assay schema); {remedy}"
        )
    if found is SchemaState.OUTDATED:
        return ConfigurationError(f"database {display_url} has an outdated Assay schema; {remedy}")
    return ConfigurationError(
        f"database {display_url} was migrated by a newer version of Assay; upgrade Assay to use it"
    )
