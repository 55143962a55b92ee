"""The ``assay`` command line. Commands import their heavy parts only when they run."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli._common import pipe_safe
from assay.cli.compare import compare_command
from assay.cli.control import control_command
from assay.cli.db import db_app
from assay.cli.history import history_command
from assay.cli.report import report_command
from assay.cli.run import run_command
from assay.cli.schema import schema_command
from assay.cli.validate import validate_command

app = typer.Typer(
    name="assay",
    help="Evaluate LLM agents with evidence: run suites, keep history, catch regressions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# A reader that stops early (`| head`) ends a command quietly, never with exit 1.
app.command("run")(pipe_safe(run_command))
app.command("history")(pipe_safe(history_command))
app.command("report")(pipe_safe(report_command))
app.command("compare")(pipe_safe(compare_command))
app.command("control")(pipe_safe(control_command))
app.command("validate")(pipe_safe(validate_command))
app.command("schema")(pipe_safe(schema_command))
app.add_typer(db_app, name="db")


def _version(value: bool) -> None:
    if value:
        from assay import __version__

        print(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Evaluate LLM agents with evidence."""


def main() -> None:
    """Entry point of the ``assay`` script."""
    app()
