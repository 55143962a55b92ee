"""``assay history``: the runs in the store, newest first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from assay._text import visible
from assay.cli._common import DbOption, open_store

if TYPE_CHECKING:
    from assay.results import Run


def history_command(
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only runs of this agent.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many runs to show.")] = 20,
    db: DbOption = None,
) -> None:
    """List recent runs with their status and pass rate."""
    from rich.table import Table

    from assay.cli._render import make_console, shown
    from assay.report.format import fraction, score

    if _no_history_here(db):
        print("No runs yet: no .assay/ history in this folder or above.")
        return
    with open_store(db) as store:
        runs = store.history(suite=suite, agent=agent, limit=limit)
    if not runs:
        print("No runs yet.")
        return
    table = Table(title="Run history", title_justify="left")
    for column in ("#", "run", "started", "suite", "agent", "status", "passed", "checks",
                   "fingerprint"):
        table.add_column(column, no_wrap=True)
    now = datetime.now(UTC)
    for run in runs:
        summary = run.summary
        table.add_row(
            # An 8-character prefix is enough for `assay report` and `--baseline`.
            str(run.sequence), run.id[:8], run.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            shown(run.suite), shown(run.agent), run_state(run, now),
            "—" if summary is None else fraction(summary.passed, summary.evaluated),
            "—" if summary is None else score(summary.check_score), run.fingerprint[:8],
        )
    console = make_console()
    console.print(table)
    for line in _resumable_lines(runs, now):
        console.print(line, markup=False, highlight=False)


def _no_history_here(db: str | None) -> bool:
    """No database named anywhere and no ``.assay/`` upwards: nothing to list, nothing made."""
    from assay.cli._common import database_url, project_config
    from assay.store._locate import discover

    return (database_url(db) is None and project_config().database is None
            and discover() is None)


def run_state(run: Run, now: datetime) -> str:
    """``running``, ``stale`` (its owner died or stopped beating), or the stored status."""
    from assay.results import RunStatus

    if run.status is not RunStatus.RUNNING:
        return run.status.value
    return "stale" if _stale(run, now) else "running"


def _stale(run: Run, now: datetime) -> bool:
    from assay.evaluation.lease import owner_alive
    from assay.evaluation.options import DEFAULT_LEASE_TIMEOUT

    if run.lease is None:
        return (now - run.started_at).total_seconds() > DEFAULT_LEASE_TIMEOUT
    return run.lease.expired(now, DEFAULT_LEASE_TIMEOUT) or owner_alive(run.lease) is False


def _resumable_lines(runs: list[Run], now: datetime) -> list[str]:
    lines = []
    for run in runs:
        state = run_state(run, now)
        if state in ("stale", "interrupted"):
            why = f" ({visible(run.error)})" if run.error else ""
            owner = "" if state == "interrupted" else " (its owner stopped)"
            lines.append(f"run {run.id[:8]} is {state}{owner}{why}: finish it with "
                         f"assay run SUITE --resume {run.id[:8]}")
    return lines
