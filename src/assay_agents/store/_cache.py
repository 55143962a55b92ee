"""The cache of judge and model calls in the history database (``call_cache``, 0008)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select

from assay_agents.results.cache import CacheStats
from assay_agents.store._tables import call_cache


def get(connection: Connection, key: str) -> Any:
    """The stored reply under ``key`` (a JSON document), or ``None``."""
    query = select(call_cache.c.reply).where(call_cache.c.key == key)
    return connection.execute(query).scalar()


def entries(connection: Connection, kind: str, source: str, limit: int) -> dict[str, Any] | None:
    """Every reply kept for ``kind`` and ``source`` by key; ``None`` past ``limit`` of them."""
    where = (call_cache.c.kind == kind, call_cache.c.source == source)
    count = connection.execute(select(func.count()).where(*where)).scalar_one()
    if count > limit:
        return None
    query = select(call_cache.c.key, call_cache.c.reply).where(*where)
    return {key: reply for key, reply in connection.execute(query)}


def put(
    connection: Connection, key: str, kind: str, source: str, reply: Any, now: datetime
) -> None:
    """Keep ``reply`` under ``key``; a key already kept keeps its first reply."""
    values = {"key": key, "kind": kind, "source": source, "reply": reply, "created_at": now}
    dialect = connection.dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        connection.execute(pg_insert(call_cache).values(**values).on_conflict_do_nothing())
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        connection.execute(sqlite_insert(call_cache).values(**values).on_conflict_do_nothing())
    elif get(connection, key) is None:  # the store opens SQLite and PostgreSQL only
        connection.execute(insert(call_cache).values(**values))


def stats(connection: Connection) -> list[CacheStats]:
    """Entries per kind and source, with the first and last kept."""
    query = (
        select(
            call_cache.c.kind,
            call_cache.c.source,
            func.count(),
            func.min(call_cache.c.created_at),
            func.max(call_cache.c.created_at),
        )
        .group_by(call_cache.c.kind, call_cache.c.source)
        .order_by(call_cache.c.kind, call_cache.c.source)
    )
    return [
        CacheStats(kind, source, int(entries), first, last)
        for kind, source, entries, first, last in connection.execute(query)
    ]


def clear(connection: Connection, *, kind: str | None = None, source: str | None = None) -> int:
    """Delete the entries of ``kind`` and ``source`` (every entry without them); how many."""
    statement = delete(call_cache)
    if kind is not None:
        statement = statement.where(call_cache.c.kind == kind)
    if source is not None:
        statement = statement.where(call_cache.c.source == source)
    return int(connection.execute(statement).rowcount or 0)
