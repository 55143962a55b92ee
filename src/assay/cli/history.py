"""``assay history``: the runs in the store, newest first."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli._common import DbOption, open_store


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

    with open_store(db) as store:
        runs = store.history(suite=suite, agent=agent, limit=limit)
    if not runs:
        print("No runs yet.")
        return
    table = Table(title="Run history", title_justify="left")
    for column in ("#", "run", "started", "suite", "agent", "status", "passed", "checks",
                   "fingerprint"):
        table.add_column(column, no_wrap=True)
    for run in runs:
        summary = run.summary
        table.add_row(
            # An 8-character prefix is enough for `assay report` and `--baseline`.
            str(run.sequence), run.id[:8], run.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            shown(run.suite), shown(run.agent), run.status.value,
            "—" if summary is None else fraction(summary.passed, summary.evaluated),
            "—" if summary is None else score(summary.check_score), run.fingerprint[:8],
        )
    make_console().print(table)
