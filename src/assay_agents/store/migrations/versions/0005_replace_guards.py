"""A completed run cannot be replaced: SQLite's REPLACE is refused like an update.

Revision ID: 0005
Revises: 0004
Create Date: 2027-02-01

SQLite's ``REPLACE INTO`` (and ``INSERT OR REPLACE``) deletes the row it conflicts with
without firing delete triggers (recursive triggers are off by default, and a client of its
own need not turn them on), then inserts: the guards of 0001 never saw a completed run
change. Inserts are now guarded too: no insert may conflict with a row of a completed run.
Conflicts within a completed run's children are caught already (their insert guard reads the
new row's run); a sample's id may belong to another run, so samples get their own guard.
PostgreSQL has no REPLACE, and ``ON CONFLICT DO UPDATE`` fires the update guards: nothing
to add there.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READ_ONLY = "assay: run is completed and read-only"
_GUARDS = {
    "runs_append_only_insert": (
        "runs",
        "EXISTS (SELECT 1 FROM runs WHERE (id = NEW.id OR sequence = NEW.sequence) "
        "AND status = 'completed')",
    ),
    "samples_append_only_replace": (
        "samples",
        "EXISTS (SELECT 1 FROM samples s JOIN runs r ON r.sequence = s.run "
        "WHERE s.id = NEW.id AND r.status = 'completed')",
    ),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name, (table, condition) in _GUARDS.items():
        op.execute(
            f"CREATE TRIGGER {name} BEFORE INSERT ON {table} FOR EACH ROW "
            f"WHEN {condition} BEGIN SELECT RAISE(ABORT, '{READ_ONLY}'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in _GUARDS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
