"""The initial history schema: runs, run_cases, samples, metrics, and append-only triggers.

Revision ID: 0001
Revises:
Create Date: 2024-11-29

Frozen on purpose: it spells out its own columns rather than importing today's tables, so
running it later still creates exactly this schema.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONValue = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)
SequenceKey = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Timestamp = sa.DateTime(timezone=True)
READ_ONLY = "assay: run is completed and read-only"


def upgrade() -> None:
    _create_runs()
    _create_run_cases()
    _create_samples()
    _create_metrics()
    if op.get_bind().dialect.name == "postgresql":
        _postgresql_guards()
    else:
        _sqlite_guards()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in ("runs", "run_cases", "samples", "metrics"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        for function in _PG_FUNCTION_NAMES:
            op.execute(f"DROP FUNCTION IF EXISTS {function}")
    for table in ("metrics", "samples", "run_cases", "runs"):
        op.drop_table(table)  # SQLite drops a table's triggers with it


def _create_runs() -> None:
    op.create_table(
        "runs",
        sa.Column("sequence", SequenceKey, sa.Identity(), primary_key=True),
        sa.Column("id", sa.String(), nullable=False, unique=True),
        sa.Column("suite", sa.String(), nullable=False),
        sa.Column("suite_version", sa.String()),
        sa.Column("agent", sa.String(), nullable=False),
        sa.Column("fingerprint", sa.String(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", Timestamp, nullable=False),
        sa.Column("finished_at", Timestamp),
        sa.Column("settings", JSONValue, nullable=False),
        sa.Column("metadata", JSONValue, nullable=False),
        sa.Column("summary", JSONValue),
        sa.Column("comparison", JSONValue),
        sa.Column("baseline_id", sa.String()),
        sa.Column("links", JSONValue, nullable=False),
        sa.CheckConstraint(
            "status IN ('running', 'completed', 'interrupted')", name="ck_runs_status"
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_runs_identity", "runs", ["suite", "agent", "fingerprint", "sequence"])
    op.create_index("ix_runs_suite_sequence", "runs", ["suite", "sequence"])


def _create_run_cases() -> None:
    op.create_table(
        "run_cases",
        sa.Column(
            "run", SequenceKey, sa.ForeignKey("runs.sequence", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("case_id", sa.String(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(), nullable=False),
        sa.Column("definition", JSONValue, nullable=False),
    )


def _create_samples() -> None:
    op.create_table(
        "samples",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "run", SequenceKey, sa.ForeignKey("runs.sequence", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("case_id", sa.String(), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("sample", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("answer", sa.Text()),
        sa.Column("actions", JSONValue),
        sa.Column("observation", JSONValue),
        sa.Column("input_tokens", sa.BigInteger()),
        sa.Column("output_tokens", sa.BigInteger()),
        sa.Column("cost_usd", sa.Float()),
        sa.Column("cost_source", sa.String(16)),
        sa.Column("duration_ms", sa.Float()),
        sa.Column("error", sa.Text()),
        sa.Column("metadata", JSONValue, nullable=False),
        sa.Column("fault", sa.String()),
        sa.Column("recommendation", sa.Text()),
        sa.Column("judge_usage", JSONValue),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.UniqueConstraint("run", "case_id", "model", "sample", name="uq_samples_key"),
        sa.CheckConstraint(
            "status IN ('passed', 'failed', 'error', 'not_evaluated')", name="ck_samples_status"
        ),
    )


def _create_metrics() -> None:
    op.create_table(
        "metrics",
        sa.Column(
            "sample",
            sa.String(32),
            sa.ForeignKey("samples.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("score", sa.Float()),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("error", sa.Text()),
        sa.Column("votes", JSONValue),
        sa.CheckConstraint("kind IN ('check', 'judge')", name="ck_metrics_kind"),
    )


# The append-only guarantee lives in the database too, so no client (an old Assay, a script,
# a psql session) can alter a completed run. Children are guarded through their run's status.

_SQLITE_RUN_STATUS = "(SELECT status FROM runs WHERE sequence = {row}.run)"
_SQLITE_SAMPLE_STATUS = (
    "(SELECT r.status FROM samples s JOIN runs r ON r.sequence = s.run WHERE s.id = {row}.sample)"
)


def _sqlite_guards() -> None:
    for event in ("UPDATE", "DELETE"):
        _sqlite_trigger("runs", event, "OLD.status = 'completed'")
    for table, status in (
        ("run_cases", _SQLITE_RUN_STATUS),
        ("samples", _SQLITE_RUN_STATUS),
        ("metrics", _SQLITE_SAMPLE_STATUS),
    ):
        old, new = status.format(row="OLD"), status.format(row="NEW")
        _sqlite_trigger(table, "INSERT", f"{new} = 'completed'")
        _sqlite_trigger(table, "UPDATE", f"{old} = 'completed' OR {new} = 'completed'")
        _sqlite_trigger(table, "DELETE", f"{old} = 'completed'")


def _sqlite_trigger(table: str, event: str, condition: str) -> None:
    op.execute(
        f"CREATE TRIGGER {table}_append_only_{event.lower()} BEFORE {event} ON {table} "
        f"FOR EACH ROW WHEN {condition} "
        f"BEGIN SELECT RAISE(ABORT, '{READ_ONLY}'); END"
    )


# No percent signs and no ":name" tokens below: the text passes through DB-API parameter
# handling. restrict_violation (23001) surfaces as an integrity error, like SQLite's ABORT.
_PG_FUNCTIONS = (
    """
    CREATE FUNCTION assay_refuse_completed(run_sequence bigint) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
        run_status varchar;
    BEGIN
        -- FOR SHARE: a completion racing this write is waited for, then seen as completed.
        SELECT status INTO run_status FROM runs WHERE sequence = run_sequence FOR SHARE;
        IF run_status = 'completed' THEN
            RAISE EXCEPTION USING ERRCODE = 'restrict_violation', MESSAGE = 'READ_ONLY';
        END IF;
    END
    $$
    """,
    """
    CREATE FUNCTION assay_guard_runs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF OLD.status = 'completed' THEN
            RAISE EXCEPTION USING ERRCODE = 'restrict_violation',
                MESSAGE = 'READ_ONLY (run ' || OLD.id || ')';
        END IF;
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE FUNCTION assay_guard_run_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            PERFORM assay_refuse_completed(OLD.run);
        END IF;
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        PERFORM assay_refuse_completed(NEW.run);
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE FUNCTION assay_guard_metric_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            PERFORM assay_refuse_completed((SELECT run FROM samples WHERE id = OLD.sample));
        END IF;
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        PERFORM assay_refuse_completed((SELECT run FROM samples WHERE id = NEW.sample));
        RETURN NEW;
    END
    $$
    """,
)

_PG_GUARDS = (
    ("runs", "UPDATE OR DELETE", "assay_guard_runs"),
    ("run_cases", "INSERT OR UPDATE OR DELETE", "assay_guard_run_rows"),
    ("samples", "INSERT OR UPDATE OR DELETE", "assay_guard_run_rows"),
    ("metrics", "INSERT OR UPDATE OR DELETE", "assay_guard_metric_rows"),
)
_PG_FUNCTION_NAMES = (
    "assay_guard_runs()",
    "assay_guard_run_rows()",
    "assay_guard_metric_rows()",
    "assay_refuse_completed(bigint)",
)


def _postgresql_guards() -> None:
    for function in _PG_FUNCTIONS:
        op.execute(function.replace("READ_ONLY", READ_ONLY))
    for table, events, function in _PG_GUARDS:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE {events} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()"
        )
