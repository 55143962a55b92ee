"""``assay-agents history``: the runs in the store, newest first."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import (
    DbOption,
    agent_identity,
    db_words,
    fail,
    open_store,
    user_errors,
)
from assay_agents.limits import option_range
from assay_agents.text import visible

if TYPE_CHECKING:
    from assay_agents.evaluation.queries import History
    from assay_agents.results import Run


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
    revision: Annotated[
        str | None,
        typer.Option(help="Only runs of this revision (a prefix of the commit, in any case)."),
    ] = None,
    label: Annotated[str | None, typer.Option(help="Only runs of this release label.")] = None,
) -> None:
    """List recent runs with their status, pass rate and revision."""
    import sys

    from rich.table import Table

    from assay_agents.cli._render import make_console, shown
    from assay_agents.report.format import fraction, score

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
    from assay_agents.evaluation.queries import history

    with open_store(db) as store:
        found = history(
            store, suite=suite, agent=agent, limit=limit, revision=revision, label=label
        )
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
        "label",
        "status",
        "passed",
        "checks",
        "fingerprint",
    ):
        table.add_column(column, no_wrap=True)
    for run, state in zip(runs, found.states, strict=True):
        summary = run.summary
        table.add_row(
            # `suite#number` and an 8-character prefix both name the run for `assay-agents report`
            # and `--baseline`.
            "—" if run.number is None else str(run.number),
            run.id[:8],
            run.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            shown(run.suite),
            shown(run.agent),
            shown(_revision_cell(run)),
            shown(_label(run) or "—"),
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


def revision(run: Run) -> str | None:
    """The revision the run measured: its release's, else the one its metadata names."""
    from assay_agents.results.release import run_revision

    return run_revision(run.settings.release, run.metadata)


def _revision_cell(run: Run) -> str:
    found = revision(run)
    if found is None:
        return "—"
    release = run.settings.release
    text = found[:12] if len(found) == 40 and found.isalnum() else found
    dirty = release is not None and release.revision == found and release.dirty
    return f"{text} (dirty)" if dirty else text


def _label(run: Run) -> str | None:
    release = run.settings.release
    return None if release is None else release.label


def _run_json(run: Run, state: str) -> dict[str, object]:
    from assay_agents.record import write

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
        "release": None if run.settings.release is None else write(run.settings.release),
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
    from assay_agents.cli._common import database_url
    from assay_agents.load.project import project_config
    from assay_agents.store import find_history

    return database_url(db) is None and project_config().database is None and find_history() is None


def _resumable_lines(found: History, db: str) -> list[str]:
    lines = []
    for run, state in zip(found.runs, found.states, strict=True):
        if state in ("stale", "interrupted"):
            why = f" ({visible(run.error)})" if run.error else ""
            owner = "" if state == "interrupted" else " (its owner stopped)"
            lines.append(
                f"run {run.id[:8]} is {state}{owner}{why}: finish it with "
                f"assay-agents run SUITE --resume {run.id[:8]}{db}"
            )
    return lines
