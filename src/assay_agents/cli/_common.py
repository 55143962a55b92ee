"""What every command shares: exit codes, error reporting, the database option."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from assay_agents.cli import interrupted
from assay_agents.exit_codes import ExitCode, exit_code_for
from assay_agents.limits import option_range

if TYPE_CHECKING:
    from assay_agents.store import Store
    from assay_agents.store.revisions import Upgrade

#: Help panels: the options of a command grouped by what they decide.
SELECTION = "Selection"
MODELS = "Models and execution"
JUDGING = "Judge"
GATING = "Baseline and gate"
OUTPUT = "Output"
STORAGE = "Storage"

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL (default: ASSAY_DATABASE_URL, else the embedded "
        "SQLite file .assay/assay.db).",
        show_default=False,
        rich_help_panel=STORAGE,
    ),
]


# Options that assay-agents run and assay-agents control share, declared once.
SuiteOption = Annotated[
    str | None,
    typer.Option(help="Which suite, when the file has several.", rich_help_panel=SELECTION),
]
MetadataOption = Annotated[
    str | None,
    typer.Option(
        help='Run metadata as a JSON object, e.g. \'{"revision": "abc123"}\'.',
        rich_help_panel=STORAGE,
    ),
]
SamplesOption = Annotated[
    int | None,
    typer.Option(
        **option_range("samples"), help="Samples per case and model.", rich_help_panel=MODELS
    ),
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        **option_range("concurrency"),
        help="Samples in flight at once (default 8).",
        rich_help_panel=MODELS,
    ),
]
ModelOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        help="Run every case on this model (repeatable), e.g. openai/gpt-4.1-mini.",
        rich_help_panel=MODELS,
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        **option_range("timeout"),
        help="Seconds before an agent call is an error.",
        rich_help_panel=MODELS,
    ),
]
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="No progress: no bar on a terminal, no progress lines when piped.",
        rich_help_panel=OUTPUT,
    ),
]
JudgeOption = Annotated[
    str | None,
    typer.Option(
        help="Grade judge criteria with this model, e.g. openai/gpt-4.1-mini (overrides the "
        "suite's judge).",
        rich_help_panel=JUDGING,
    ),
]
JudgeBaseUrlOption = Annotated[
    str | None,
    typer.Option(
        help="OpenAI-compatible endpoint for --judge (Azure, OpenRouter, Ollama, vLLM); default: "
        "judge_base_url in the project configuration, else OPENAI_BASE_URL.",
        rich_help_panel=JUDGING,
    ),
]
JudgeTimeoutOption = Annotated[
    float | None,
    typer.Option(
        **option_range("judge_timeout"),
        help="Seconds the judging of one sample may take (every criterion and vote, retries and "
        "waits included) before it is an error.",
        show_default="120",
        rich_help_panel=JUDGING,
    ),
]
VotesOption = Annotated[
    int | None,
    typer.Option(
        **option_range("votes"),
        help="Judge votes per sample and criterion (majority, ties to the lower).",
        rich_help_panel=JUDGING,
    ),
]


def database_url(option: str | None) -> str | None:
    """The database URL: the option, then ``ASSAY_DATABASE_URL``, then the project's own.

    ``None`` leaves it to the store: the configuration's ``database``, else the nearest
    ``.assay/`` history upwards.
    """
    return option or os.environ.get("ASSAY_DATABASE_URL") or None


def agent_identity(agent: str) -> str:
    """The agent ``--agent`` names, as ``assay-agents run`` stores it.

    ``myapp/agents.py:support`` and ``myapp.agents:support`` are one agent: an entry point is
    named from the project root, like ``assay-agents run --agent`` names it; a name that is not an
    entry point (``SupportAgent``) is kept as written.
    """
    from assay_agents.load.entry import entry_identity
    from assay_agents.load.project import importable_project

    importable_project()
    return entry_identity(agent, Path.cwd())


def resume_command(run_id: str) -> str:
    """The command as typed, with ``--resume`` for this run, safe to print and to paste.

    The program is named as it was invoked (``.venv/bin/assay-agents`` when the environment is not
    activated). A database URL typed on the command line has its password masked; one that
    came from ``ASSAY_DATABASE_URL`` is not repeated, since the environment supplies it.
    """
    import shlex

    words = _masked_words(sys.argv[1:])
    if "--resume" not in words:  # an interrupted resume names the same run already
        words += ["--resume", run_id]
    return shlex.join([_program(), *words])


def db_words(db: str | None) -> str:
    """`` --db URL`` to end a command printed to paste, when ``--db`` was given; else empty.

    Masked as :func:`resume_command` masks it; a URL from ``ASSAY_DATABASE_URL`` or the
    project configuration is not repeated, since they supply it again.
    """
    import shlex

    return "" if not db else " --db " + shlex.quote(_masked_words(["--db", db])[1])


def typed_db_words() -> str:
    """:func:`db_words` for the ``--db`` typed on this process's command line, if any."""
    words = sys.argv[1:]
    for index, word in enumerate(words):
        if word == "--db" and index + 1 < len(words):
            return db_words(words[index + 1])
        if word.startswith("--db="):
            return db_words(word[len("--db=") :])
    return ""


def _program() -> str:
    import shutil

    invoked = sys.argv[0] if sys.argv and sys.argv[0] else "assay-agents"
    name = os.path.basename(invoked)
    on_path = shutil.which(name)
    if on_path and os.path.realpath(on_path) == os.path.realpath(invoked):
        return name
    return invoked


def _masked_words(words: list[str]) -> list[str]:
    from assay_agents.store import redact

    masked: list[str] = []
    for index, word in enumerate(words):
        if index and words[index - 1] == "--db":
            masked.append(redact(word))
        elif word.startswith("--db="):
            masked.append("--db=" + redact(word[len("--db=") :]))
        else:
            masked.append(word)
    return masked


def fail(message: str, code: ExitCode = ExitCode.INVALID) -> NoReturn:
    """Print ``error: message`` on standard error and exit with ``code``."""
    from assay_agents.text import visible

    print(f"error: {visible(message, lines=True)}", file=sys.stderr)
    raise typer.Exit(code)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn Assay's own errors into a clear message and exit code 2."""
    from assay_agents.errors import AssayError

    try:
        yield
    except AssayError as error:
        fail(str(error), exit_code_for(error))
    except BrokenPipeError:
        raise  # the reader went away: nothing to report, see pipe_safe
    except OSError as error:
        # A report or schema path that cannot be written: the user's to fix, not a crash.
        fail(
            f"{error.strerror or error}: {error.filename or ''}".rstrip(": "), exit_code_for(error)
        )


def silence_stdout() -> None:
    """After a broken pipe: later output, and the flush at exit, go nowhere, silently."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def pipe_safe(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` exiting quietly with ``ExitCode.CLOSED_PIPE`` when its reader goes away."""
    import functools

    @functools.wraps(command)
    def guarded(*args: Any, **kwargs: Any) -> None:
        try:
            try:
                command(*args, **kwargs)
            finally:
                sys.stdout.flush()  # buffered output would otherwise fail at exit
        except BrokenPipeError:
            silence_stdout()
            raise typer.Exit(ExitCode.CLOSED_PIPE) from None
        except KeyboardInterrupt as stop:
            interrupted()  # Ctrl-C before a command's own handling (loading a suite): one line
            raise typer.Exit(exit_code_for(stop)) from None

    return guarded


@contextlib.contextmanager
def open_store(
    option: str | None,
    *,
    migrate: bool = False,
    on_upgrade: Callable[[Upgrade], None] | None = None,
) -> Iterator[Store]:
    """Open the store selected by ``--db`` or the environment, closing it afterwards.

    A reading command never creates a database: without one, it says where it looked. An
    error of the store's while the command uses it exits 2 with its message, like one at
    opening. A history that opening upgraded is announced on stderr, unless ``on_upgrade``
    hears it instead.
    """
    from assay_agents.store import Store

    heard: list[Upgrade] = []
    with user_errors():
        store = Store.open(
            database_url(option),
            migrate=migrate,
            create=migrate,
            on_upgrade=heard.append if on_upgrade is None else on_upgrade,
        )
        announce_upgrades(heard)
        # What the command reads may fail too (a damaged file): the same exit 2, no traceback.
        try:
            yield store
        finally:
            store.close()


def announce_upgrades(plans: Sequence[Upgrade]) -> None:
    """Say on stderr that opening the history upgraded it, and where its previous file is.

    A history never changes revision without a word.
    """
    from assay_agents.store.upgrades import upgraded_note

    for plan in plans:
        note = upgraded_note(plan)
        if note is not None:
            print(note, file=sys.stderr)


def judge_option(
    name: str | None, base_url: str | None, timeout: float | None = None, default: Any = None
) -> Any:
    """A judge from ``--judge``: the openai client for OpenAI-compatible endpoints, else LiteLLM.

    ``--judge-timeout`` applies to it or, without ``--judge``, to ``default`` (the suite's
    judge) when that judge has a deadline to set.
    """
    if name is None:
        if base_url is not None:
            fail("--judge-base-url needs --judge")
        if timeout is None or default is None:
            return None  # nothing to build: the judges module is not even imported
    from assay_agents import judges

    if name is None:
        assert timeout is not None  # returned above otherwise
        return judges.with_judge_timeout(default, timeout)
    seconds = judges.DEFAULT_JUDGE_TIMEOUT if timeout is None else timeout
    return judges.named(name, base_url=base_url, judge_timeout=seconds)


def metadata_option(text: str | None) -> dict[str, Any]:
    """``--metadata``: a JSON object, or exit 2 saying what is wrong with it."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as error:
        fail(f"--metadata is not valid JSON: {error}")
    if not isinstance(value, dict):
        fail("--metadata must be a JSON object")
    return value
