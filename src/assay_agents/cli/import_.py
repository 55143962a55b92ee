"""``assay-agents import``: an archived JSON report becomes a run in the history, read-only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import DbOption, announce_upgrades, database_url, fail, user_errors

if TYPE_CHECKING:
    from assay_agents.evaluation.importing import Imported
    from assay_agents.results import Run
    from assay_agents.store import Store
    from assay_agents.store.revisions import Upgrade


def import_command(
    report: Annotated[
        Path,
        typer.Argument(
            help="A JSON report of a completed run (assay-agents report RUN --format json)."
        ),
    ],
    db: DbOption = None,
) -> None:
    """Put an archived run into the history, keeping its id; importing it again changes nothing.

    The run is stored completed, so it is read-only at once, and later runs, compare and
    report --baseline find it like any other. Its comparison is recomputed against its
    baseline when that run is in this history, and left out (said so) when it is not. A run
    whose id is already stored with different evidence is refused (exit 2).
    """
    from assay_agents.report.archive import read_report
    from assay_agents.results import RunStatus
    from assay_agents.store import Store
    from assay_agents.text import visible

    with user_errors():
        run = read_report(report)
        _checked_outcome(run, report)
        if run.status is not RunStatus.COMPLETED:
            fail(
                f"{report}: status: the run is {run.status.value}; only a completed run can "
                "be imported"
            )
        # Like a run, an import starts the project's embedded history when there is none.
        heard: list[Upgrade] = []
        store = Store.open(database_url(db), create=True, on_upgrade=heard.append)
        announce_upgrades(heard)
    try:
        with user_errors():
            imported = _rederived(store, run, report)
            run = imported.run
            existing = _stored(store, run.id)
            if existing is None:
                stored = store.create_run(run)
                print(
                    f"imported run {visible(run.id)} (suite {visible(run.suite)}, "
                    f"{len(run.samples)} sample(s)) into {store.display_url} as "
                    f"#{stored.sequence}, read-only"
                )
                if imported.note is not None:
                    print(f"no comparison: {visible(imported.note)}")
                return
            _already_stored(existing, run, report)
    finally:
        store.close()


def _checked_outcome(run: Run, report: Path) -> None:
    from assay_agents.errors import SpecError
    from assay_agents.evaluation.importing import check_outcome

    try:
        check_outcome(run)
    except SpecError as error:
        raise SpecError(error.detail, location=str(report), field=error.field) from None


def _rederived(store: Store, run: Run, report: Path) -> Imported:
    from assay_agents.errors import SpecError
    from assay_agents.evaluation.importing import rederived

    try:
        return rederived(store, run)
    except SpecError as error:
        raise SpecError(error.detail, location=str(report), field=error.field) from None


def _stored(store: Store, run_id: str) -> Run | None:
    from assay_agents.errors import StoreError

    try:
        found = store.get_run(run_id)
    except StoreError as error:
        if error.transient:
            raise
        return None  # no such run (or only runs whose ids it merely begins)
    return found if found.id == run_id else None


def _already_stored(existing: Run, run: Run, report: Path) -> None:
    from dataclasses import replace

    from assay_agents.report.archive import differing_field, same_run
    from assay_agents.text import visible

    # What this history decided for the run (its comparison, outcome, baseline) may have
    # changed since it was imported (its baseline imported after it): the evidence has not.
    run = replace(
        run,
        comparison=existing.comparison,
        baseline_id=existing.baseline_id,
        baseline_choice=existing.baseline_choice,
        outcome=existing.outcome,
    )
    if same_run(existing, run):
        print(f"run {visible(run.id)} is already in the history, identical: nothing changed")
        return
    fail(
        f"{report}: run {run.id} is already in the history with different evidence "
        f"({differing_field(existing, run)} differs); nothing changed"
    )
