"""``assay-agents --version``: this Assay, its schema, and where the history it would use stands.

The history is found as every command finds it (``ASSAY_DATABASE_URL``, the project
configuration's ``database``, the nearest ``.assay/`` upwards) and only read: a missing
history is named, never created, and an older one is described, never migrated.
"""

from __future__ import annotations

from pathlib import Path

from assay_agents.cli._common import database_url, user_errors
from assay_agents.store import revisions
from assay_agents.store.revisions import SchemaState, SchemaStatus
from assay_agents.text import visible


def print_version() -> None:
    """Print the version and schema revision, then a line on the history database."""
    from assay_agents import __version__

    print(f"assay-agents {__version__} (schema revision {revisions.shipped()[-1].id})", flush=True)
    with user_errors():
        print(history_line())


def history_line() -> str:
    """One line on the history this directory would use, read without changing it."""
    from assay_agents.store import redact

    url, embedded = _history_url()
    if url is None:
        here = visible(str(Path.cwd().resolve()))
        return (
            f"history: none yet (no .assay/ folder in {here} or above; "
            "`assay-agents run` starts one)"
        )
    shown = visible(redact(url))
    found = revisions.database_status(url)
    if found is None:
        creates = (
            "`assay-agents run` creates it" if embedded else "`assay-agents db migrate` creates it"
        )
        return f"history: no database yet at {shown} ({creates})"
    return f"history: {shown}: {_standing(found, embedded)}"


def _history_url() -> tuple[str | None, bool]:
    """The database URL commands would open, and whether it is an embedded SQLite history.

    An embedded history (not named by ``ASSAY_DATABASE_URL``) migrates itself when a command
    opens it; any other database waits for ``assay-agents db migrate``.
    """
    from assay_agents.load.config import find_config
    from assay_agents.load.history import discover

    named = database_url(None)
    if named is not None:
        return named, False
    configured = find_config().database_url()
    if configured is not None:
        return configured, configured.startswith("sqlite")
    found = discover()
    return (None, True) if found is None else (f"sqlite:///{found}", True)


def _standing(found: SchemaStatus, embedded: bool) -> str:
    revision = visible(found.revision or "")
    if found.state is SchemaState.CURRENT:
        return f"schema revision {revision} (current)"
    if found.state is SchemaState.MISSING:
        creates = (
            "the next command that opens it creates it"
            if embedded
            else "`assay-agents db migrate` creates it"
        )
        return f"no Assay schema yet ({creates})"
    if found.state is SchemaState.OUTDATED:
        upgrade = (
            "the next command that opens it upgrades it, backing the file up first, "
            "as `assay-agents db migrate` does"
            if embedded
            else "`assay-agents db migrate` upgrades it"
        )
        return f"schema revision {revision}, older than this Assay's {found.head}; {upgrade}"
    return (
        f"schema revision {revision}, newer than this Assay knows (its newest is "
        f"{found.head}): it was migrated by a newer version of Assay, and is refused by this one"
    )
