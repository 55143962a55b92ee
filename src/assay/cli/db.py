"""``assay db``: manage the history database."""

from __future__ import annotations

import typer

from assay.cli._common import DbOption, open_store

db_app = typer.Typer(help="Manage the history database.", no_args_is_help=True)


@db_app.command("migrate")
def migrate_command(db: DbOption = None) -> None:
    """Create or upgrade the database schema (needed once for any non-default database)."""
    with open_store(db, migrate=True) as store:
        print(f"database {store.display_url} is at the current schema")
