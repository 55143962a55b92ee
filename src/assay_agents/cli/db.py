"""``assay-agents db``: manage the history database."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from assay_agents.cli._common import DbOption, open_store

if TYPE_CHECKING:
    from assay_agents.store.revisions import Upgrade

db_app = typer.Typer(help="Manage the history database.", no_args_is_help=True)


@db_app.command("migrate")
def migrate_command(db: DbOption = None) -> None:
    """Create or upgrade the database schema (needed once for any non-default database).

    An older database is upgraded in one transaction, after saying from which revision to
    which and by what steps; a SQLite file is copied to a backup beside it first. A current
    one is left as it is, and one migrated by a newer Assay is refused (exit 2), unchanged.
    """
    done: list[Upgrade] = []
    with open_store(db, migrate=True, on_upgrade=lambda plan: _announce(plan, done)) as store:
        from assay_agents.store import revisions
        from assay_agents.text import visible

        head = revisions.shipped()[-1].id
        shown = visible(store.display_url)
        if done:
            print(f"database {shown} is at the current schema (revision {head})")
        else:
            print(
                f"database {shown} is up to date: at the current schema (revision {head}); "
                "nothing changed"
            )


def _announce(plan: Upgrade, done: list[Upgrade]) -> None:
    """Say what the upgrade will do, before it is done."""
    from assay_agents.text import visible

    done.append(plan)
    shown = visible(plan.database)
    if plan.start is None:
        print(f"creating the Assay schema (revision {plan.head}) in database {shown}")
    else:
        count = len(plan.steps)
        print(
            f"upgrading database {shown} from schema revision {plan.start} to {plan.head}, "
            f"in {count} step{'' if count == 1 else 's'}:"
        )
        for step in plan.steps:
            print(f"  {step.id}  {step.title}")
        if plan.backup is not None:
            print(
                f"backing the file up first, to {visible(str(plan.backup))} (revision {plan.start})"
            )
        elif plan.database.startswith("postgresql"):
            print(
                "no backup is taken of a PostgreSQL database: to keep a copy of it at revision "
                f"{plan.start}, run pg_dump before migrating"
            )
    sys.stdout.flush()  # said before anything changes
