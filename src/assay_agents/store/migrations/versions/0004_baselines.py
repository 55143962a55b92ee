"""Baselines: each run's outcome and baseline choice, and pinned baselines.

Revision ID: 0004
Revises: 0003
Create Date: 2027-02-01

``runs.outcome`` (passed, failed, regressed, errored) is decided when a run completes: only a
passing run is an automatic baseline. ``runs.baseline_choice`` says which baseline the run
was compared with and why. ``baseline_pins`` holds at most one pinned baseline per suite and
agent; unlike runs, a pin may change. Runs stored earlier keep NULL in both columns. Frozen
like the revisions before it: it names its own columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONValue = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


def upgrade() -> None:
    op.add_column("runs", sa.Column("outcome", sa.String(16)))
    op.add_column("runs", sa.Column("baseline_choice", JSONValue))
    # The automatic baseline is looked up by suite and agent, newest first.
    op.create_index("ix_runs_suite_agent_sequence", "runs", ["suite", "agent", "sequence"])
    op.create_table(
        "baseline_pins",
        sa.Column("suite", sa.String(), primary_key=True),
        sa.Column("agent", sa.String(), primary_key=True),
        # The run's id, not a foreign key: a pinned run is completed, so it is never
        # deleted, and a key would make PostgreSQL refuse TRUNCATE runs before the
        # append-only guard could say why.
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("baseline_pins")
    op.drop_index("ix_runs_suite_agent_sequence", table_name="runs")
    for column in ("baseline_choice", "outcome"):
        op.drop_column("runs", column)
