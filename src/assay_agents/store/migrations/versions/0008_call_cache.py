"""The cache of judge and model calls.

Revision ID: 0008
Revises: 0007
Create Date: 2027-04-01

``call_cache`` keeps one reply per key: the SHA-256 of everything that determined it (what
answered, its parameters, the messages, the sample and vote index). ``kind`` is ``judge``
or ``model``, ``source`` what answered (a judge's identity, a model's name), ``reply`` the
reply as the record codec writes it. Unlike a completed run, an entry may be deleted
(``assay-agents cache clear``): nothing else refers to it. Frozen like the revisions before it: it
names its own columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONValue = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


def upgrade() -> None:
    op.create_table(
        "call_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("reply", JSONValue, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # Stats and clearing go by what answered.
    op.create_index("ix_call_cache_source", "call_cache", ["kind", "source"])


def downgrade() -> None:
    op.drop_index("ix_call_cache_source", table_name="call_cache")
    op.drop_table("call_cache")
