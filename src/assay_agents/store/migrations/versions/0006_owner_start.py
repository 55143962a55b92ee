"""A lease records when its owner process started, so a recycled pid is not the owner.

Revision ID: 0006
Revises: 0005
Create Date: 2027-02-15

``runs.owner_started`` is the owner's start as the operating system tells it (on Linux the
boot id and the process's start time in clock ticks): a process that holds the owner's pid
but started at another time is not the owner, and a run whose owner died can be resumed
however its pid was reused. Runs stored earlier keep NULL, and their owner is judged by pid
alone, as before. Frozen like the revisions before it: it names its own column.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("owner_started", sa.String(80)))


def downgrade() -> None:
    op.drop_column("runs", "owner_started")
