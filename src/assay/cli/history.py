"""``assay history``: the runs in the store, newest first."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli._common import (
    DbOption,
    agent_identity,
    db_words,
    fail,
    open_store,
    user_errors,
)
from assay.limits import option_range
from assay.text import visible

if TYPE_CHECKING:
    from assay.evaluation.queries import History
    from assay.results import Run


def history_command(
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
    agent: Annotated[
        str | None,
        typer.Option(help="Only runs of this agent (its name, or its entry point however spelt)."),
    ] = None,
    limit: Annotated[
        int, typer.Option(**option_range("limit"), help="How many runs to show.")
    ] = 20,
    format: Annotated[
        str, typer.Option("--format", "-f", help="text (a table) or json (one object per run).")
    ] = "text",
    db: DbOption = None,
) -> None:
    """List recent runs with their status, pass rate and revision."""
    import sys

    from rich.table import Table

    from assay.cli._render import make_console, shown
    from assay.report.format import fraction, score

    if format not in ("text", "json"):
        fail(f"--format {format!r}: use text or json")
    with user_errors():  # a broken project configuration is the user's to fix: exit 2
        nowhere = _no_history_here(db)
    if nowhere:
        print(
            "[]" if format == "json" else "No runs yet: no .assay/ history in this folder or above."
        )
        return
    with user_errors():
        agent = None if agent is None else agent_identity(agent)
    from assay.evaluation.queries import history

    with open_store(db) as store:
        found = history(store, suite=suite, agent=agent, limit=limit)
    runs = found.runs
    if format == "json":
        rows = [_run_json(run, state) for run, state in zip(runs, found.states, strict=True)]
        print(json.dumps(rows, indent=2, ensure_ascii=True))
        return
    if not runs:
        print(visible(found.missing or "No runs yet."))
        return
    table = Table(title="Run history", title_justify="left")
    for column in (
        "#",
        "run",
        "started",
        "suite",
        "agent",
        "revision",
        "status",
        "passed",
        "checks",
        "fingerprint",
    ):
        table.add_column(column, no_wrap=True)
    for run, state in zip(runs, found.states, strict=True):
        summary = run.summary
        table.add_row(
            # `suite#number` and an 8-character prefix both name the run for `assay report`
            # and `--baseline`.
            "—" if run.number is None else str(run.number),
            run.id[:8],
            run.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            shown(run.suite),
            shown(run.agent),
            shown(revision(run) or "—"),
            state,
            "—" if summary is None else fraction(summary.passed, summary.evaluated),
            "—" if summary is None else score(summary.check_score),
            run.fingerprint[:8],
        )
    console = make_console()
    if not sys.stdout.isatty():
        console.width = 1_000  # piped or logged: never cut a column to fit 80 characters
    console.print(table)
    for line in _resumable_lines(found, db_words(db)):
        console.print(line, markup=False, highlight=False)


#: Run metadata keys that name the code a run measured, in order of preference.
REVISION_KEYS = ("revision", "git_sha", "commit", "sha", "version")


def revision(run: Run) -> str | None:
    """The revision the run's metadata names (``--metadata '{"revision": ...}'``), if any."""
    for key in REVISION_KEYS:
        value = run.metadata.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def _run_json(run: Run, state: str) -> dict[str, object]:
    summary = run.summary
    return {
        "id": run.id,
        "sequence": run.sequence,
        "number": run.number,
        "handle": run.handle,
        "suite": run.suite,
        "suite_version": run.suite_version,
        "agent": run.agent,
        "status": state,
        "started_at": run.started_at.isoformat(),
        "finished_at": None if run.finished_at is None else run.finished_at.isoformat(),
        "revision": revision(run),
        "metadata": run.metadata,
        "fingerprint": run.fingerprint,
        "baseline_id": run.baseline_id,
        "outcome": None if run.outcome is None else run.outcome.value,
        "samples": None if summary is None else summary.samples,
        "passed": None if summary is None else summary.passed,
        "pass_rate": None if summary is None else summary.pass_rate,
        "check_score": None if summary is None else summary.check_score,
    }


def _no_history_here(db: str | None) -> bool:
    """No database named anywhere and no ``.assay/`` upwards: nothing to list, nothing made."""
    from assay.cli._common import database_url
    from assay.load.project import project_config
    from assay.store import find_history

    return database_url(db) is None and project_config().database is None and find_history() is None


def _resumable_lines(found: History, db: str) -> list[str]:
    lines = []
    for run, state in zip(found.runs, found.states, strict=True):
        if state in ("stale", "interrupted"):
            why = f" ({visible(run.error)})" if run.error else ""
            owner = "" if state == "interrupted" else " (its owner stopped)"
            lines.append(
                f"run {run.id[:8]} is {state}{owner}{why}: finish it with "
                f"assay run SUITE --resume {run.id[:8]}{db}"
            )
    return lines
