"""Leases and recorded failures on runs; TRUNCATE refused while completed runs exist.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

A running run records its owner (host, process id, a random token) and a heartbeat, so a
run whose owner died can be taken over, and the error that stopped an interrupted run.
Frozen like 0001: it names its own columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Timestamp = sa.DateTime(timezone=True)
READ_ONLY = "assay: run is completed and read-only"
_GUARDED = ("runs", "run_cases", "samples", "metrics")

# Row-level triggers do not fire on TRUNCATE: a statement-level guard refuses it while any
# completed run exists. (SQLite has no TRUNCATE; its DELETE fires the row triggers.)
_PG_TRUNCATE_GUARD = """
    CREATE FUNCTION assay_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM runs WHERE status = 'completed') THEN
            RAISE EXCEPTION USING ERRCODE = 'restrict_violation',
                MESSAGE = 'READ_ONLY (TRUNCATE ' || TG_TABLE_NAME || ')';
        END IF;
        RETURN NULL;
    END
    $$
"""


def upgrade() -> None:
    op.add_column("runs", sa.Column("owner_host", sa.String()))
    op.add_column("runs", sa.Column("owner_pid", sa.Integer()))
    op.add_column("runs", sa.Column("owner_token", sa.String(64)))
    op.add_column("runs", sa.Column("heartbeat_at", Timestamp))
    op.add_column("runs", sa.Column("error", sa.Text()))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_TRUNCATE_GUARD.replace("READ_ONLY", READ_ONLY))
        for table in _GUARDED:
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION assay_refuse_truncate()"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in _GUARDED:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION IF EXISTS assay_refuse_truncate()")
    for column in ("error", "heartbeat_at", "owner_token", "owner_pid", "owner_host"):
        op.drop_column("runs", column)
