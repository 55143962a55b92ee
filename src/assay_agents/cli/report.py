"""``assay-agents report``: a stored run as text, Markdown, JSON, JUnit XML or an HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay_agents.cli._common import DbOption, fail, open_store, user_errors

if TYPE_CHECKING:
    from assay_agents.results import Run


def report_command(
    run_id: Annotated[
        str | None, typer.Argument(help="Run id or a unique prefix (default: the latest run).")
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="Compare with this run (id, prefix, or a JSON report file) instead of the "
            "stored baseline."
        ),
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="text, markdown, json, junit (JUnit XML), html, or a format another package "
            "installed (default: from --output, else text).",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write to this file (-: standard output)."),
    ] = None,
    tolerance: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="With --baseline: score decrease allowed.")
    ] = 0.0,
    drift_tolerance: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="With --baseline: judge-score movement taken as drift."
        ),
    ] = 0.025,
    theme: Annotated[
        str | None,
        typer.Option(
            help="The HTML page's theme: light, dark or system (the viewer's preference).",
            show_default="system",
        ),
    ] = None,
    case: Annotated[
        str | None,
        typer.Option(
            "--case", help="Show only this case, every sample in full (its traceback too)."
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Render a run and its comparison with the baseline.

    Without ``--baseline`` the comparison stored when the run completed is shown; with it,
    the comparison is made now, against the latest control run's noise floor if there is one.
    """
    from assay_agents.evaluation.queries import lookup
    from assay_agents.report import Report, format_for, format_named
    from assay_agents.report.files import check_target
    from assay_agents.report.report import themed
    from assay_agents.text import visible

    if output is not None and str(output) == "-":
        output = None  # standard output, as without --output
    with user_errors():
        if output is not None:
            picked = format_for(output, format, named_by="--format")
        else:
            picked = format_named(format or "text")
        chosen = themed(picked, theme).name  # a theme is refused before the store is opened
        if output is not None:
            check_target(output, named=f"--output {output}")
        with open_store(db) as store:
            found = lookup(store, run_id, baseline=_archived(baseline or None))
        run = found.run
        if case is not None:
            _print_case(run, case, chosen, output)
            return
        made = Report(
            run,
            baseline=found.baseline,
            tolerance=tolerance,
            drift_tolerance=drift_tolerance,
            noise_floor=found.noise_floor,
        )
        if output is None:
            print(made.render(chosen, theme=theme), end="")
            return
        try:
            path = made.export(output, chosen, theme=theme)
        except OSError as error:
            if isinstance(error, BrokenPipeError):
                raise
            fail(f"--output {output}: {error.strerror or error}")
    print(f"report written to {visible(str(path))}")


def _archived(ref: str | None) -> Run | str | None:
    """What ``--baseline`` names: the run a JSON report file (``.json``) holds, else the id."""
    from assay_agents.cli._archived import is_report_file

    if ref is None or not is_report_file(ref):
        return ref
    from assay_agents.report.archive import read_report

    return read_report(ref)


def _print_case(run: object, case_id: str, chosen: str, output: Path | None) -> None:
    import json

    from assay_agents.report.text import render_case_text
    from assay_agents.results import Run

    assert isinstance(run, Run)
    if output is not None or chosen not in ("text", "json"):
        fail("--case prints one case as text or json, to standard output")
    if not any(sample.case_id == case_id for sample in run.samples) and run.case(case_id) is None:
        from assay_agents.text import suggestion

        known = {snapshot.case_id for snapshot in run.cases}
        fail(f"run {run.id} has no case {case_id!r}{suggestion(case_id, known)}")
    if chosen == "json":
        from assay_agents.record import write

        samples = write(tuple(s for s in run.samples if s.case_id == case_id))
        print(
            json.dumps(
                {"run_id": run.id, "case_id": case_id, "samples": samples},
                indent=2,
                ensure_ascii=True,
            )
        )
        return
    print(render_case_text(run, case_id), end="")
