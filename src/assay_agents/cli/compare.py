"""``assay-agents compare``: any two runs, stored or archived, paired, against the noise floor."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from assay_agents.cli._common import DbOption, open_store, user_errors


def compare_command(
    baseline: Annotated[
        str,
        typer.Argument(help="The earlier run: id, a unique prefix, or a JSON report file (.json)."),
    ],
    current: Annotated[
        str,
        typer.Argument(help="The later run: id, a unique prefix, or a JSON report file (.json)."),
    ],
    format: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="text, markdown, json, or a format another package installed."
        ),
    ] = "text",
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 when there are signal regressions (beyond the "
            "latest control run's noise floor, or unmeasured).",
        ),
    ] = False,
    max_excluded_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Withhold the headline past this share of the paired corpus excluded.",
        ),
    ] = 0.10,
    tolerance: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Score decrease allowed before it counts as a regression."
        ),
    ] = 0.0,
    drift_tolerance: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Judge-score movement (0–1 scale) below which it is not drift; "
            "independent of --tolerance.",
        ),
    ] = 0.025,
    flaky_share: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="A noise floor above this is reported as a corpus too flaky to measure.",
        ),
    ] = 0.3,
    db: DbOption = None,
) -> None:
    """Compare two runs item by item: pairing first, defects, headline, changes by kind.

    Items pair by id where their definitions match. The latest control run (assay-agents control)
    of the current run's definition supplies the noise floor. Either run may be a JSON
    report an earlier job archived; two files need no database.
    """
    from assay_agents.cli._archived import needs_store, read_reports
    from assay_agents.evaluation.comparing import compare
    from assay_agents.report.formats import format_named
    from assay_agents.report.prose import verdict_lines
    from assay_agents.report.view import compared_section

    with user_errors():
        chosen = format_named(format)
        files = read_reports(baseline, current)
        # Two archived reports need no database; one is opened for a run named by id.
        reading = (
            open_store(db)
            if needs_store((baseline, current), files, db)
            else contextlib.nullcontext(None)
        )
        with reading as store:
            compared = compare(
                store,
                files.get(baseline, baseline),
                files.get(current, current),
                tolerance=tolerance,
                drift_tolerance=drift_tolerance,
                max_excluded_share=max_excluded_share,
                flaky_share=flaky_share,
                fail_on_regression=fail_on_regression,
            )
    with user_errors():
        rendered = chosen.comparison(compared_section(compared.comparison))
    print(rendered, end="")
    for line in verdict_lines(compared.verdict.findings):
        print(line, file=sys.stderr)
    raise typer.Exit(compared.verdict.exit_code)
