"""The ``assay-agents`` command line. Commands import their heavy parts only when they run."""

from __future__ import annotations

import copy
import inspect
import signal
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import typer

from assay_agents.cli import interrupted
from assay_agents.cli._common import OUTPUT, pipe_safe
from assay_agents.cli.baseline import baseline_app
from assay_agents.cli.cache import cache_app
from assay_agents.cli.catalog import catalog_app
from assay_agents.cli.compare import compare_command
from assay_agents.cli.control import control_command
from assay_agents.cli.dashboard import dashboard_command
from assay_agents.cli.db import db_app
from assay_agents.cli.history import history_command
from assay_agents.cli.import_ import import_command
from assay_agents.cli.import_dataset import import_dataset_command
from assay_agents.cli.init import init_command
from assay_agents.cli.mcp_server import mcp_command
from assay_agents.cli.report import report_command
from assay_agents.cli.rescore import rescore_command
from assay_agents.cli.run import run_command
from assay_agents.cli.schema import schema_command
from assay_agents.cli.validate import validate_command
from assay_agents.exit_codes import ExitCode
from assay_agents.startup import exit_interrupted

app = typer.Typer(
    name="assay-agents",
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
app.command("rescore")(pipe_safe(rescore_command))
app.command("validate")(pipe_safe(validate_command))
app.command("schema")(pipe_safe(schema_command))
app.command("init")(pipe_safe(init_command))
app.command("import")(pipe_safe(import_command))
app.command("import-dataset")(pipe_safe(import_dataset_command))
app.add_typer(db_app, name="db")
app.add_typer(baseline_app, name="baseline")
app.add_typer(catalog_app, name="catalog")
app.add_typer(cache_app, name="cache")
app.command("mcp")(mcp_command)
app.command("dashboard")(dashboard_command)


def _version(value: bool) -> None:
    if value:
        from assay_agents.cli.version import print_version

        print_version()
        raise typer.Exit(ExitCode.OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Show the version and the history's schema revision, and exit.",
        ),
    ] = False,
) -> None:
    """Evaluate LLM agents with evidence."""


#: What help shows for a value of each type, as command-line tools write it.
_PLACEHOLDERS = {str: "TEXT", int: "INTEGER", float: "FLOAT", Path: "PATH", bool: "BOOLEAN"}


def with_placeholders(command: Any) -> Any:
    """``command`` whose help names values ``TEXT``, ``INTEGER``, ``PATH``; flags take none.

    Without this the help shows Python types (``<str>``, ``<list[str]>``, ``<bool>``).
    """
    command.help = plain_help(command.help)
    for param in command.params:
        if param.param_type_name == "argument" and param.metavar is None:
            param.metavar = param.name.upper()  # `assay-agents run [OPTIONS] SPEC`, not `{spec}`
        label = _placeholder(param)
        param.display_type_rich = lambda ctx, label=label: label
    panels = {getattr(param, "rich_help_panel", None) for param in command.params}
    command.get_help_option = _flag_help(
        command.get_help_option, OUTPUT if OUTPUT in panels else None
    )
    for sub in getattr(command, "commands", {}).values():
        with_placeholders(sub)
    return command


def plain_help(text: str | None) -> str | None:
    """A docstring as help prose: each paragraph on one line, for the terminal to wrap.

    Source lines are broken for the editor; kept, they would be wrapped again mid-sentence.
    Literal markup (````--baseline````) is written plainly: help is not reStructuredText.
    """
    if text is None:
        return None
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        " ".join(line.strip() for line in paragraph.splitlines()) for paragraph in paragraphs
    ).replace("``", "")


def _flag_help(made: Any, panel: str | None) -> Any:
    """``--help``, added when help is asked for, is a flag too: it takes no value.

    In a command whose options are in panels it joins ``panel``, rather than sit alone in a
    panel of its own above them.
    """

    def get_help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            option.display_type_rich = lambda ctx: None
            if panel is not None:
                option.rich_help_panel = panel
        return option

    return get_help_option


def _placeholder(param: Any) -> str | None:
    if getattr(param, "is_flag", False):
        return None
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    return _PLACEHOLDERS.get(annotation, "TEXT")  # type: ignore[arg-type]


def command(words: Sequence[str] | None = None) -> Any:
    """The ``assay-agents`` command as Click runs it: placeholders named, help text in plain prose.

    Given the command line's ``words``, a group holding only the command they name (when
    they start with one of the plain commands): Click builds each command's options by
    inspecting its function, and a run should not pay for the twenty it does not use.
    """
    import typer.main

    from assay_agents.cli._root_help import format_root_help

    root = with_placeholders(typer.main.get_command(_named(words) or app))
    root.format_help = lambda ctx, formatter: format_root_help(root, ctx)
    return root


def _named(words: Sequence[str] | None) -> typer.Typer | None:
    """``app`` with only the command ``words`` start with; None when they start otherwise.

    Root options, a command group or a word that names no command (Click's error lists
    every command then) keep the whole app.
    """
    if not words:
        return None
    for info in app.registered_commands:
        if info.name == words[0]:
            narrowed = copy.copy(app)
            narrowed.registered_commands = [info]
            narrowed.registered_groups = []
            return narrowed
    return None


def main() -> None:
    """Entry point of the ``assay-agents`` script; Ctrl-C at any moment is one line and exit 130."""
    guarded = False
    warnings.formatwarning = _format_warning
    try:
        guarded = _interrupt_raises()
        command(sys.argv[1:])()
    except KeyboardInterrupt:
        interrupted()
        raise SystemExit(ExitCode.INTERRUPTED) from None
    except SystemExit as stop:
        # Typer ends a Ctrl-C outside a command's own handling with a silent exit 130.
        if _typer_interrupt(stop):
            interrupted()
        raise
    finally:
        if guarded:  # the command has ended: a Ctrl-C while the process exits is one line too
            signal.signal(signal.SIGINT, exit_interrupted)


def _format_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """Warnings formatted as Python does, except Assay's own notes.

    A history upgraded when a run opened it is said in the one line the other commands
    print, without a source location.
    """
    if category.__module__.startswith("assay_agents.") and category.__name__ == "HistoryUpgraded":
        return f"{message}\n"
    return _PYTHON_FORMAT(message, category, filename, lineno, line)


_PYTHON_FORMAT = warnings.formatwarning


def _interrupt_raises() -> bool:
    """Make Ctrl-C ``KeyboardInterrupt``, which a command handles (a run stays resumable).

    True when the start-up handler was in place (the ``assay-agents`` script), so it is put back.
    """
    if signal.getsignal(signal.SIGINT) is not exit_interrupted:
        return False
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return True


def _typer_interrupt(stop: SystemExit) -> bool:
    exit_ = stop.__context__
    return (
        stop.code == ExitCode.INTERRUPTED
        and isinstance(exit_, typer.Exit)
        and isinstance(exit_.__cause__, KeyboardInterrupt)
    )
