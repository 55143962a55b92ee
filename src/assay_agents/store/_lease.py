"""Leases and completion: who may take a run over, and the check that a run is complete."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, RowMapping, and_, func, select

from assay_agents.errors import StoreError
from assay_agents.record import RecordError, read_settings
from assay_agents.results import RunStatus, RunSummary
from assay_agents.results.run import Lease, lease_lapsed
from assay_agents.store._tables import run_cases, runs, samples


def lease_from(row: RowMapping) -> Lease | None:
    """The lease recorded on a ``runs`` row (``None`` for runs stored before leases)."""
    if row["owner_token"] is None:
        return None
    return Lease(
        host=row["owner_host"] or "",
        pid=int(row["owner_pid"] or 0),
        token=row["owner_token"],
        heartbeat_at=row["heartbeat_at"],
        started=row["owner_started"],
    )


def owner_values(owner: Lease, now: datetime) -> dict[str, Any]:
    """The ``runs`` columns that record ``owner`` with a fresh heartbeat."""
    return {
        "owner_host": owner.host,
        "owner_pid": owner.pid,
        "owner_token": owner.token,
        "owner_started": owner.started,
        "heartbeat_at": now,
    }


def same_owner(row: RowMapping) -> ColumnElement[bool]:
    """A condition that holds while the run's owner is still the one read in ``row``."""
    token = row["owner_token"]
    return runs.c.owner_token.is_(None) if token is None else runs.c.owner_token == token


def claimable(
    row: RowMapping, now: datetime, timeout: float, owner_alive: Callable[[Lease], bool | None]
) -> bool:
    """Whether an open run may be taken over now.

    Interrupted: always. Running: when its heartbeat (or, for a run from before leases, its
    start) is older than ``timeout`` seconds, or when ``owner_alive`` knows the owner process
    is gone (it answers ``None`` when it cannot tell, e.g. for another host).
    """
    if row["status"] == RunStatus.INTERRUPTED.value:
        return True
    return lease_lapsed(lease_from(row), row["started_at"], now, timeout, owner_alive)


def held_message(
    row: RowMapping, now: datetime, timeout: float, owner_alive: Callable[[Lease], bool | None]
) -> str:
    """Why a run cannot be claimed: who holds it and when it may be taken over."""
    lease = lease_from(row)
    if row["status"] != RunStatus.RUNNING.value:
        return f"run {row['id']} is {row['status']} and another process claimed it first"
    if lease is not None and owner_alive(lease) is True:
        return (
            f"run {row['id']} is still running in process {lease.pid} on this host; "
            "it can be resumed once that process has ended"
        )
    if lease is None:
        return (
            f"run {row['id']} is running; it can be resumed once it has run for "
            f"{timeout:g} s without finishing"
        )
    age = lease.age(now)
    since = "never" if age is None else f"{max(age, 0.0):.0f} s ago"
    return (
        f"run {row['id']} is running on {lease.host} (pid {lease.pid}; last heartbeat "
        f"{since}); it can be resumed when that process is gone or its heartbeat is "
        f"older than {timeout:g} s"
    )


def verify_complete(connection: Connection, row: RowMapping, summary: RunSummary) -> None:
    """Raise :class:`StoreError` unless every planned sample is stored, once, as summarised.

    The plan is the run's own snapshot: its stored cases × its models × its samples. Stored
    samples outside the plan, missing ones, and a summary whose counts differ from the
    stored statuses all refuse completion.
    """
    sequence = row["sequence"]
    try:
        settings = read_settings(row["settings"])
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None
    models = list(settings.models) or [""]
    per_case = settings.samples
    cases = connection.execute(
        select(func.count()).select_from(run_cases).where(run_cases.c.run == sequence)
    ).scalar_one()
    planned = int(cases) * len(models) * per_case
    counts = _stored_statuses(connection, sequence)
    stored = sum(counts.values())
    inside = _stored_in_plan(connection, sequence, models, per_case)
    if stored != planned or inside != planned:
        raise StoreError(
            f"run {row['id']} cannot be completed: {inside} of {planned} planned "
            f"samples are stored ({stored - inside} outside the plan)"
        )
    expected = {
        "passed": summary.passed,
        "failed": summary.failed,
        "error": summary.errors,
        "not_evaluated": summary.not_evaluated,
    }
    found = {status: counts.get(status, 0) for status in expected}
    if found != expected:
        raise StoreError(
            f"run {row['id']} cannot be completed: its summary counts {expected} "
            f"but the store holds {found}"
        )


def _stored_statuses(connection: Connection, sequence: int) -> dict[str, int]:
    query = (
        select(samples.c.status, func.count())
        .where(samples.c.run == sequence)
        .group_by(samples.c.status)
    )
    return {status: int(count) for status, count in connection.execute(query).all()}


def _stored_in_plan(connection: Connection, sequence: int, models: list[str], per_case: int) -> int:
    joined = samples.join(
        run_cases, and_(run_cases.c.run == samples.c.run, run_cases.c.case_id == samples.c.case_id)
    )
    query = (
        select(func.count())
        .select_from(joined)
        .where(
            samples.c.run == sequence,
            samples.c.model.in_(models),
            samples.c.sample >= 0,
            samples.c.sample < per_case,
        )
    )
    return int(connection.execute(query).scalar_one())
