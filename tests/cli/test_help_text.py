import itertools
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from assay_agents.cli.app import command
from commandline import ASSAY

COMMANDS = [
    [],
    ["run"],
    ["history"],
    ["report"],
    ["compare"],
    ["validate"],
    ["control"],
    ["schema"],
    ["init"],
    ["import"],
    ["db"],
    ["db", "migrate"],
    ["rescore"],
    ["cache"],
    ["cache", "clear"],
]


def _help(*words: str, columns: int = 80) -> str:
    done = CliRunner().invoke(
        command(), [*words, "--help"], prog_name="assay-agents", env={"COLUMNS": str(columns)}
    )
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("words", COMMANDS, ids=lambda words: " ".join(words) or "assay")
def test_help_at_80_columns_is_plain_whole_and_wrapped_once(words):
    text = _help(*words)
    assert "…" not in text, text  # nothing cut to fit
    assert "``" not in text and ":func:" not in text and ":class:" not in text, text
    assert "format=" not in text
    lines = [line.rstrip() for line in text.splitlines()]
    prose = [
        line.strip()
        for line in lines
        if line.startswith(" ")
        and not line.startswith(" Usage")
        and not any(mark in line for mark in "│╭╰")
    ]
    for line, after in itertools.pairwise(prose):
        # A line broken where the terminal had room for the next word was broken by hand.
        if line and after and after[0].islower():
            assert len(line) + 1 + len(after.split()[0]) > 78, (line, after)


def test_run_help_groups_its_options_in_panels():
    text = _help("run")
    panels = [line.split("─")[1].strip() for line in text.splitlines() if line.startswith("╭─")]
    assert panels == [
        "Arguments",
        "Selection",
        "Models and execution",
        "Judge",
        "Baseline and gate",
        "Output",
        "Storage",
        "Replay",
    ]
    gate = text[text.index("Baseline and gate") : text.index("Output")]
    assert "--gate" in gate and "--allow-unchecked" in gate and "--fail-on-regression" in gate


@pytest.mark.parametrize(
    "command_name", ["run", "history", "report", "compare", "validate", "control", "schema"]
)
def test_help_names_values_as_command_line_tools_do(command_name):
    text = _help(command_name, columns=200)
    for python_type in ("<bool>", "<str>", "<int", "<float>", "<path>", "<list["):
        assert python_type not in text, (python_type, text)
    assert "TEXT" in text or "PATH" in text or "INTEGER" in text


def test_run_help_shows_each_kind_of_value():
    text = _help("run", columns=200)
    for placeholder in ("SPEC", "PATH", "TEXT", "INTEGER", "FLOAT"):
        assert placeholder in text


@pytest.mark.process  # the installed entry point
def test_the_installed_command_shows_the_same_help():
    done = subprocess.run(
        [ASSAY, "run", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        check=True,
    )
    assert "Baseline and gate" in done.stdout and "…" not in done.stdout


@pytest.mark.process  # what a fresh interpreter imports
@pytest.mark.parametrize("words", [[], ["run"]], ids=["assay-agents", "run"])
def test_asking_for_help_loads_none_of_assays_parts(words):
    # The startup budget (bench/cli_startup.py) holds only while help imports nothing heavy.
    code = (
        f"import sys\nsys.argv = ['assay-agents', *{words!r}, '--help']\n"
        "from assay_agents.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', *sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split("LOADED", 1)[1].split())
    heavy = {
        "assay_agents.spec",
        "assay_agents.checks",
        "assay_agents.results",
        "assay_agents.agent",
        "assay_agents.evaluation",
        "assay_agents.store",
        "assay_agents.load",
        "assay_agents.report",
        "sqlalchemy",
        "yaml",
    }
    if not words:
        heavy.add("pydantic")  # (Typer itself loads it to parse a command's options)
        # The command list is drawn without Typer's help machinery (Markdown, tracebacks).
        heavy.update({"typer.rich_utils", "rich.markdown", "rich.traceback"})
    assert not heavy & loaded, heavy & loaded


def test_the_command_list_shows_every_command_and_both_panels():
    text = _help()
    panels = [line.split("─")[1].strip() for line in text.splitlines() if line.startswith("╭─")]
    assert panels == ["Options", "Commands"]
    assert " Usage: assay-agents [OPTIONS] COMMAND [ARGS]..." in text
    for name in (
        "run",
        "history",
        "report",
        "compare",
        "control",
        "validate",
        "schema",
        "init",
        "import",
        "db",
        "baseline",
        "rescore",
        "cache",
    ):
        assert f"│ {name} " in text, name
    assert "--version" in text and "Show the version and the history's schema revision" in text


def _invoked(root, words):
    done = CliRunner().invoke(root, words, prog_name="assay-agents", env={"COLUMNS": "80"})
    return done.exit_code, done.output


@pytest.mark.parametrize(
    "words",
    [["run", "--help"], ["history", "--help"], ["run"], ["rnu"], ["db", "--help"], ["--help"]],
    ids=lambda words: " ".join(words),
)
def test_a_command_line_builds_only_its_command_and_reads_the_same(words):
    whole = _invoked(command(), words)
    assert _invoked(command(words), words) == whole
    if words[0] in ("run", "history"):
        assert list(command(words).commands) == [words[0]]
    else:  # a group, a typo or a root option: Click is given every command
        assert len(command(words).commands) == len(command().commands)
