"""Indexes the dashboard's lists read through: runs by agent, by status, by start time.

Revision ID: 0009
Revises: 0008
Create Date: 2027-03-15

The runs list filters by agent, status and a range of start times, newest first; each
filter is served by an index ending in (or being) the order it reads in. Lists by suite,
and by suite and agent, already have theirs (0001). Adds only indexes: no row changes.
An index already there (a history whose version record was lost and re-adopted) is left
as it is. Frozen like the revisions before it: it names its own indexes.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = (
    ("ix_runs_agent_sequence", ("agent", "sequence")),
    ("ix_runs_status_sequence", ("status", "sequence")),
    ("ix_runs_started_at", ("started_at",)),
)


def _present() -> set[str]:
    return {str(index["name"]) for index in sa.inspect(op.get_bind()).get_indexes("runs")}


def upgrade() -> None:
    present = _present()
    for name, columns in INDEXES:
        if name not in present:
            op.create_index(name, "runs", list(columns))


def downgrade() -> None:
    present = _present()
    for name, _ in reversed(INDEXES):
        if name in present:
            op.drop_index(name, table_name="runs")
