"""The history schema as SQLAlchemy Core tables (migrations create it; queries use these).

Rows never leave ``assay_agents.store``: :mod:`assay_agents.store._rows` maps them to domain
objects.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator, TypeEngine

# Alembic's bookkeeping table, named so it never clashes with an application's own.
from assay_agents.store.revisions import VERSION_TABLE as VERSION_TABLE

RUN_STATUSES = ("running", "completed", "interrupted")
SAMPLE_STATUSES = ("passed", "failed", "error", "not_evaluated")
METRIC_KINDS = ("check", "judge")


class JSONDocument(TypeDecorator[Any]):
    """A JSON document: ``jsonb`` on PostgreSQL, JSON text elsewhere.

    ``None`` is stored as SQL NULL so that "not instrumented" (NULL) and "none" ([]) stay
    apart. The PostgreSQL type is looked up only when a PostgreSQL database is used: importing
    that dialect costs every SQLite user about 80 ms of start-up.
    """

    impl = JSON(none_as_null=True)
    cache_ok = True

    def __init__(self, column: str = "") -> None:
        """``column`` (``table.column``) is named when a stored value is not JSON."""
        super().__init__()
        self.column = column

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        """Decode as the JSON type does; a value that is not JSON names its column."""
        decode = super().result_processor(dialect, coltype)
        if decode is None:
            return None
        column = self.column

        def process(value: object) -> object:
            if value is None:  # SQL NULL: most optional columns of most rows
                return None
            try:
                return decode(value)
            except ValueError as error:
                raise MalformedJSON(column, str(error)) from error

        return process

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        """``jsonb`` on PostgreSQL, the plain JSON type elsewhere."""
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB

            return dialect.type_descriptor(JSONB(none_as_null=True))
        return super().load_dialect_impl(dialect)


JSONValue: TypeEngine[Any] = JSONDocument()


class MalformedJSON(ValueError):
    """A stored JSON column whose text is not JSON (the history was edited or damaged)."""

    def __init__(self, column: str, detail: str) -> None:
        super().__init__(f"{column}: {detail}")
        self.table, _, self.column = column.rpartition(".")
        self.detail = detail


class StoredBoolean(TypeDecorator[bool]):
    """A boolean read as it is stored, so that a value edited by hand is refused, not coerced.

    SQLite keeps booleans as the integers 0 and 1. SQLAlchemy's own reader takes any value
    for one (``'yes'`` reads as true); this one gives back 0 and 1 as booleans and anything
    else as it is, for the record reader to refuse naming the field.
    """

    impl = Boolean
    cache_ok = True

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        """Booleans as they are, 0 and 1 as booleans, anything else untouched."""

        def process(value: object) -> object:
            if type(value) is int and value in (0, 1):
                return bool(value)
            return value

        return process


# SQLite only aliases the rowid (and AUTOINCREMENT only applies) for a plain INTEGER key.
SequenceKey: TypeEngine[int] = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC in Python.

    PostgreSQL stores ``timestamptz``; SQLite has no time zones, so it stores naive UTC and
    the zone is restored on the way out. Naive input is taken to be UTC already.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert to UTC; drop the zone for SQLite, which would otherwise lose it silently."""
        if value is None:
            return None
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Give back aware UTC whatever the backend returned."""
        return None if value is None else as_utc(value)


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as aware UTC; a naive value is taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("sequence", SequenceKey, Identity(), primary_key=True),
    Column("id", String(), nullable=False, unique=True),
    Column("suite", String(), nullable=False),
    Column("suite_version", String()),
    Column("agent", String(), nullable=False),
    Column("fingerprint", String(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("finished_at", UTCDateTime()),
    Column("settings", JSONDocument("runs.settings"), nullable=False),
    Column("metadata", JSONDocument("runs.metadata"), nullable=False),
    Column("summary", JSONDocument("runs.summary")),
    Column("comparison", JSONDocument("runs.comparison")),
    Column("baseline_id", String()),
    Column("links", JSONDocument("runs.links"), nullable=False),
    # The lease of a running run: who executes it and when it last said it is alive.
    Column("owner_host", String()),
    Column("owner_pid", Integer),
    Column("owner_token", String(64)),
    Column("heartbeat_at", UTCDateTime()),
    # When the owner process started, so a recycled pid is not taken for it (0006).
    Column("owner_started", String(80)),
    # Why an interrupted run stopped, when Assay saw it stop.
    Column("error", Text),
    # The judge's pick of the best model, and the judge usage no sample owns (0003).
    Column("verdict", JSONDocument("runs.verdict")),
    Column("judge_usage", JSONDocument("runs.judge_usage")),
    # What the run came to, and which baseline it used and why (0004).
    Column("outcome", String(16)),
    Column("baseline_choice", JSONDocument("runs.baseline_choice")),
    # The run's trace and the judge calls no sample owns, when a tracer recorded them (0007).
    Column("traces", JSONDocument("runs.traces")),
    CheckConstraint(_one_of("status", RUN_STATUSES), name="ck_runs_status"),
    Index("ix_runs_identity", "suite", "agent", "fingerprint", "sequence"),
    Index("ix_runs_suite_sequence", "suite", "sequence"),
    Index("ix_runs_suite_agent_sequence", "suite", "agent", "sequence"),
    # The dashboard's filters by agent, status and start time (0009).
    Index("ix_runs_agent_sequence", "agent", "sequence"),
    Index("ix_runs_status_sequence", "status", "sequence"),
    Index("ix_runs_started_at", "started_at"),
    sqlite_autoincrement=True,
)

run_cases = Table(
    "run_cases",
    metadata,
    Column("run", SequenceKey, ForeignKey("runs.sequence", ondelete="CASCADE"), primary_key=True),
    Column("case_id", String(), primary_key=True),
    Column("name", Text, nullable=False),
    Column("position", Integer, nullable=False),
    Column("fingerprint", String(), nullable=False),
    Column("definition", JSONDocument("run_cases.definition"), nullable=False),
)

samples = Table(
    "samples",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("run", SequenceKey, ForeignKey("runs.sequence", ondelete="CASCADE"), nullable=False),
    Column("case_id", String(), nullable=False),
    # '' when the run has no model matrix: NULLs never collide in a unique constraint.
    Column("model", String(), nullable=False),
    Column("sample", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("answer", Text),
    Column("actions", JSONDocument("samples.actions")),
    Column("observation", JSONDocument("samples.observation")),
    Column("input_tokens", BigInteger),
    Column("output_tokens", BigInteger),
    Column("cost_usd", Float),
    Column("cost_source", String(16)),
    Column("duration_ms", Float),
    Column("error", Text),
    Column("metadata", JSONDocument("samples.metadata"), nullable=False),
    Column("fault", String()),
    Column("recommendation", Text),
    Column("judge_usage", JSONDocument("samples.judge_usage")),
    # The sample's trace and its judge calls' traces (0007).
    Column("traces", JSONDocument("samples.traces")),
    Column("created_at", UTCDateTime(), nullable=False),
    # Its index also serves lookups by (run, case_id, model), a prefix of it.
    UniqueConstraint("run", "case_id", "model", "sample", name="uq_samples_key"),
    CheckConstraint(_one_of("status", SAMPLE_STATUSES), name="ck_samples_status"),
    # The samples with a fault, what to fix reads (0010). A partial index (``WHERE fault IS
    # NOT NULL``): its migration says so; saying it here would need each dialect's options,
    # and importing PostgreSQL's costs every SQLite user.
    Index("ix_samples_run_fault", "run", "fault"),
)

metrics = Table(
    "metrics",
    metadata,
    Column("sample", String(32), ForeignKey("samples.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("name", String(), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("category", String(), nullable=False),
    Column("threshold", Float, nullable=False),
    Column("score", Float),
    Column("passed", StoredBoolean(), nullable=False),
    Column("reason", Text),
    Column("error", Text),
    Column("votes", JSONDocument("metrics.votes")),
    CheckConstraint(_one_of("kind", METRIC_KINDS), name="ck_metrics_kind"),
)

#: A suite and agent's pinned baseline (0004): it wins over the automatic one. A pin may
#: change; the run it names never does.
baseline_pins = Table(
    "baseline_pins",
    metadata,
    Column("suite", String(), primary_key=True),
    Column("agent", String(), primary_key=True),
    # The run's id, not a foreign key: a pinned run is completed, never deleted (0004).
    Column("run_id", String(), nullable=False),
    Column("pinned_at", UTCDateTime(), nullable=False),
)

#: Replies of judge and model calls by the key of what determined them (0008). An entry may
#: be deleted (``assay-agents cache clear``); nothing refers to it.
call_cache = Table(
    "call_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("source", String(), nullable=False),
    Column("reply", JSONDocument("call_cache.reply"), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index("ix_call_cache_source", "kind", "source"),
)
