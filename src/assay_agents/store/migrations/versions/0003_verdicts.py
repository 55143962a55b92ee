"""The judge's verdict on a run's models, and the judge usage no sample owns.

Revision ID: 0003
Revises: 0002
Create Date: 2027-01-15

``runs.verdict`` holds the best model the judge picked, with its rationale, for a run of two
or more models; ``runs.judge_usage`` the judge calls made for the run as a whole (that
verdict), apart from every sample's. Both are written when the run completes. Frozen like
0001 and 0002: it names its own columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONValue = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


def upgrade() -> None:
    op.add_column("runs", sa.Column("verdict", JSONValue))
    op.add_column("runs", sa.Column("judge_usage", JSONValue))


def downgrade() -> None:
    for column in ("judge_usage", "verdict"):
        op.drop_column("runs", column)
