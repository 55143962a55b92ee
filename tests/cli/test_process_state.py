"""What a command does to its process: nothing a user's code would notice.

The runner freezes the heap while samples churn; that may cost no user's data at exit, and the
app run inside another program leaves that program's collector as it was.
"""

import gc
import gzip
import os
import sys
import textwrap
import zipfile

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

UNCLOSED_LOG = """
import assay_agents as assay
from assay_agents import checks

# Opened at import, written by every sample, never closed: the interpreter flushes it at exit.
log = open("agent.log", "w")


def agent(text, ctx):
    log.write(f"asked {text}\\n")
    return "ok"


suite = assay.Suite("Logged", agent=agent, checks=[checks.exact_match()])
for number in range(3):
    suite.case(f"q{number}", expected="ok")
"""


@pytest.mark.process  # what the interpreter does at exit
def test_a_file_the_agent_left_open_is_flushed_when_the_command_exits(cli_process) -> None:
    cli = cli_process
    (cli.cwd / "logged.py").write_text(textwrap.dedent(UNCLOSED_LOG))
    done = cli("run", "logged.py", "--quiet")
    assert done.returncode == 0, done.stderr
    # Samples run concurrently: every line is there, in whatever order they ran.
    assert sorted((cli.cwd / "agent.log").read_text().splitlines()) == [
        "asked q0",
        "asked q1",
        "asked q2",
    ]


CYCLIC_LOG = """
import assay_agents as assay
from assay_agents import checks


class Log:
    # Held in a reference cycle: only a collection, or the exit's flush, writes it out.
    def __init__(self, path):
        self.file = open(path, "w")
        self.me = self


class Proxy:
    # A library proxy whose __class__ runs code: once samples ran, the exit asks it nothing.
    armed = False

    @property
    def __class__(self):
        if Proxy.armed:
            open("asked.txt", "w").close()
        return Proxy


log = Log("agent.log")
proxy = Proxy()


def agent(text, ctx):
    Proxy.armed = True
    log.file.write(f"asked {text}\\n")
    return "ok"


suite = assay.Suite("Logged", agent=agent, checks=[checks.exact_match()])
for number in range(3):
    suite.case(f"q{number}", expected="ok")
"""


@pytest.mark.process  # what the script does at exit
def test_a_file_held_in_a_reference_cycle_is_flushed_when_the_command_exits(cli_process) -> None:
    cli = cli_process
    (cli.cwd / "cyclic.py").write_text(textwrap.dedent(CYCLIC_LOG))
    done = cli("run", "cyclic.py", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted((cli.cwd / "agent.log").read_text().splitlines()) == [
        "asked q0",
        "asked q1",
        "asked q2",
    ]
    assert not (cli.cwd / "asked.txt").exists()


ARCHIVES = """
import gzip
import threading
import zipfile

import assay_agents as assay
from assay_agents import checks

# Archives the agent writes as it goes, left for the interpreter to close: closing writes
# their ends, which needs the modules they use still whole when the exit collects them.
transcript = gzip.open("transcript.jsonl.gz", "wt")
bundle = zipfile.ZipFile("bundle.zip", "w")
writing = threading.Lock()  # samples run on threads of their own; archives take one writer


def agent(text, ctx):
    with writing:
        transcript.write(f"asked {text}\\n")
        bundle.writestr(f"{text}.txt", text)
    return "ok"


suite = assay.Suite("Archived", agent=agent, checks=[checks.exact_match()])
for number in range(3):
    suite.case(f"q{number}", expected="ok")
"""


@pytest.mark.process  # what the interpreter does at exit
def test_archives_the_suite_left_open_are_whole_when_the_command_exits(cli_process) -> None:
    cli = cli_process
    (cli.cwd / "archived.py").write_text(textwrap.dedent(ARCHIVES))
    done = cli("run", "archived.py", "--quiet")
    assert done.returncode == 0, done.stderr
    with gzip.open(cli.cwd / "transcript.jsonl.gz", "rt") as transcript:
        assert sorted(transcript.read().splitlines()) == ["asked q0", "asked q1", "asked q2"]
    with zipfile.ZipFile(cli.cwd / "bundle.zip") as bundle:
        assert sorted(bundle.namelist()) == ["q0.txt", "q1.txt", "q2.txt"]


def test_the_app_run_inside_another_program_leaves_its_collector_alone(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logged.py").write_text(textwrap.dedent(UNCLOSED_LOG))
    frozen, enabled, threshold = gc.get_freeze_count(), gc.isenabled(), gc.get_threshold()
    done = CliRunner().invoke(app, ["run", "logged.py", "--quiet"])
    assert done.exit_code == 0, done.output
    # The suite leaves its log for the interpreter's exit to close; this interpreter goes on.
    suite_file = str((tmp_path / "logged.py").resolve())
    (suite,) = [m for m in list(sys.modules.values()) if getattr(m, "__file__", "") == suite_file]
    suite.log.close()
    assert gc.isenabled() == enabled
    assert gc.get_threshold() == threshold
    # Nothing was frozen for the test process (a few frozen objects of its own may die).
    assert gc.get_freeze_count() <= frozen


COLLECTING = """
import gc

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    young, middle, full = gc.get_threshold()
    # Young objects are collected as Python does; a full collection comes less often.
    collecting = gc.isenabled() and (young, middle) == (700, 10) and full == 25
    return "collecting" if collecting else f"not collecting {gc.get_threshold()}"


suite = assay.Suite("Collecting", agent=agent, checks=[checks.exact_match()])
suite.case("q", expected="collecting")
"""


@pytest.mark.process  # the script's own process
def test_the_collector_runs_while_the_samples_of_a_command_run(cli_process) -> None:
    cli = cli_process
    (cli.cwd / "collecting.py").write_text(textwrap.dedent(COLLECTING))
    done = cli("run", "collecting.py", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    # Again, with the first run as its baseline: held while the baseline is read, the
    # collector runs again by the time the samples do.
    again = cli("run", "collecting.py", "--quiet")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "(latest passing run)" in again.stdout, again.stdout


@pytest.mark.process  # the script's own process
def test_a_higher_full_collection_threshold_set_for_the_process_stands(cli_process) -> None:
    cli = cli_process
    (cli.cwd / "collecting.py").write_text(
        textwrap.dedent(COLLECTING).replace("full == 25", "full == 1000")
    )
    (cli.cwd / "sitecustomize.py").write_text("import gc\ngc.set_threshold(700, 10, 1000)\n")
    paths = [str(cli.cwd), *filter(None, [os.environ.get("PYTHONPATH")])]
    done = cli("run", "collecting.py", "--quiet", env={"PYTHONPATH": os.pathsep.join(paths)})
    assert done.returncode == 0, done.stdout + done.stderr
