"""An index of the samples with a fault: a run page reads what to fix through it.

Revision ID: 0010
Revises: 0009
Create Date: 2027-03-22

A run page shows what to fix without loading the run: it reads the run's samples that
have a fault, and only those. A partial index on (run, fault) of the samples with a fault
finds them without visiting the others (most samples have none, so it stays small). Adds
only the index: no row changes. An index already there (a history whose version record was
lost and re-adopted) is left as it is. Frozen like the revisions before it: it names its own
index.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_samples_run_fault"
WHERE = "fault IS NOT NULL"


def _present() -> set[str]:
    return {str(index["name"]) for index in sa.inspect(op.get_bind()).get_indexes("samples")}


def upgrade() -> None:
    if NAME not in _present():
        op.create_index(
            NAME,
            "samples",
            ["run", "fault"],
            sqlite_where=sa.text(WHERE),
            postgresql_where=sa.text(WHERE),
        )


def downgrade() -> None:
    if NAME in _present():
        op.drop_index(NAME, table_name="samples")
