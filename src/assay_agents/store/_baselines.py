"""Baseline queries: the latest passing run of a suite and agent, and pinned baselines."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import (
    ColumnElement,
    Connection,
    RowMapping,
    String,
    cast,
    delete,
    insert,
    or_,
    select,
)

from assay_agents.errors import StoreError
from assay_agents.record import RecordError, read_summary
from assay_agents.record import read as read_record
from assay_agents.results import Run, RunStatus
from assay_agents.results.baseline import Pin, RunOutcome, legacy_outcome, metadata_matches
from assay_agents.store._tables import baseline_pins, runs

#: Candidates read per round trip while looking for the latest passing run.
_PAGE = 50


def latest_passing(
    connection: Connection, run: Run, *, same_judge: bool, where: Mapping[str, str]
) -> int | None:
    """The sequence of the automatic baseline of ``run``, or ``None`` when there is none.

    The latest earlier completed full run of the same suite and agent that passed (see
    :class:`~assay_agents.results.baseline.RunOutcome`; a run stored before outcomes were kept
    passes when no sample failed or errored), whose metadata matches ``where``.
    """
    query = (
        select(runs.c.sequence, runs.c.id, runs.c.outcome, runs.c.summary, runs.c.metadata)
        .where(*_candidates(run, same_judge, where))
        .order_by(runs.c.sequence.desc())
        .limit(_PAGE)
    )
    before = run.sequence
    while True:
        page = query if before is None else query.where(runs.c.sequence < before)
        rows = connection.execute(page).mappings().all()
        for row in rows:
            if _passing(row) and metadata_matches(row["metadata"] or {}, where):
                return int(row["sequence"])
        if len(rows) < _PAGE:
            return None
        before = int(rows[-1]["sequence"])


def _candidates(run: Run, same_judge: bool, where: Mapping[str, str]) -> list[ColumnElement[bool]]:
    # A run of a selection (--case, --group) is never an automatic baseline: a later full
    # run would meet the cases it left out as new, and their regressions would pass.
    conditions: list[ColumnElement[bool]] = [
        runs.c.suite == run.suite,
        runs.c.agent == run.agent,
        runs.c.id != run.id,
        runs.c.status == RunStatus.COMPLETED.value,
        runs.c.settings["selection"].as_string().is_(None),
        or_(runs.c.outcome == RunOutcome.PASSED.value, runs.c.outcome.is_(None)),
    ]
    if same_judge:
        judge = run.settings.judge
        graded_by = runs.c.settings["judge"].as_string()
        conditions.append(graded_by.is_(None) if judge is None else graded_by == judge)
    for key, value in where.items():
        # Narrowed here, decided by metadata_matches: backends spell a JSON number as text
        # differently, and a PostgreSQL boolean would read as 'true'.
        conditions.append(cast(runs.c.metadata[key].as_string(), String) == value)
    return conditions


def _passing(row: RowMapping) -> bool:
    try:
        outcome = read_record(RunOutcome | None, row["outcome"], "outcome")
        if outcome is not None:
            return outcome is RunOutcome.PASSED
        summary = row["summary"]
        read = None if summary is None else read_summary(summary)
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None
    return legacy_outcome(read) is RunOutcome.PASSED


def pinned(connection: Connection, suite: str, agent: str) -> RowMapping | None:
    """The ``runs`` row pinned as the baseline of ``suite`` and ``agent``, if any."""
    query = (
        select(runs)
        .join(baseline_pins, baseline_pins.c.run_id == runs.c.id)
        .where(baseline_pins.c.suite == suite, baseline_pins.c.agent == agent)
    )
    return connection.execute(query).mappings().first()


def pin(connection: Connection, row: RowMapping, pinned_at: datetime) -> str | None:
    """Pin the run of ``row`` for its suite and agent; return the run it replaced, if any."""
    before = pinned(connection, row["suite"], row["agent"])
    unpin(connection, row["suite"], row["agent"])
    connection.execute(
        insert(baseline_pins).values(
            suite=row["suite"], agent=row["agent"], run_id=row["id"], pinned_at=pinned_at
        )
    )
    return None if before is None else str(before["id"])


def unpin(connection: Connection, suite: str, agent: str) -> bool:
    """Remove the pin of ``suite`` and ``agent``; whether there was one."""
    query = delete(baseline_pins).where(
        baseline_pins.c.suite == suite, baseline_pins.c.agent == agent
    )
    return bool(connection.execute(query).rowcount)


def all_pins(connection: Connection) -> list[Pin]:
    """Every pin, by suite and agent."""
    query = (
        select(baseline_pins.c.suite, baseline_pins.c.agent, runs.c.id, baseline_pins.c.pinned_at)
        .join(runs, baseline_pins.c.run_id == runs.c.id)
        .order_by(baseline_pins.c.suite, baseline_pins.c.agent)
    )
    return [
        Pin(suite, agent, run_id, pinned_at)
        for suite, agent, run_id, pinned_at in connection.execute(query)
    ]
