"""The traces a run and its samples were recorded in.

Revision ID: 0007
Revises: 0006
Create Date: 2027-03-01

``samples.traces`` holds a sample's own trace id and the trace ids of the judge calls that
graded it; ``runs.traces`` the run's span's trace id and the judge calls no sample owns (the
verdict), written when the run completes. Only a run traced with OpenTelemetry has them:
rows stored earlier, and untraced runs, keep NULL. Frozen like the revisions before it: it
names its own columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONValue = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


def upgrade() -> None:
    op.add_column("runs", sa.Column("traces", JSONValue))
    op.add_column("samples", sa.Column("traces", JSONValue))


def downgrade() -> None:
    op.drop_column("samples", "traces")
    op.drop_column("runs", "traces")
