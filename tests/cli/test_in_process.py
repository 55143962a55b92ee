"""A command run in the test process is the command a user runs: same output, same exit code.

And each one starts as a fresh process would: a project's modules, its root on ``sys.path``
and the command's working directory are gone after it.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from commandline import Cli, run_in_process, run_process

FAILING = """
    import assay_agents as assay
    from assay_agents import checks

    suite = assay.Suite("Half", agent=lambda text: "a", checks=[checks.exact_match()])
    suite.case("q1", expected="a")
    suite.case("q2", expected="b")
"""

COMMANDS = [
    ["--help"],
    ["--version"],
    ["run", "--help"],
    ["run", "spec.py", "--quiet"],
    ["run", "spec.py", "--samples", "0"],
    ["history", "--format", "json"],
    ["report", "nosuchrun"],
    ["nosuchcommand"],
]


@pytest.mark.process  # the installed script, to compare with
@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_the_script_and_the_test_process_agree(tmp_path: Path, words: list[str]) -> None:
    work = tmp_path / "work"  # one folder, as each names it in what it prints
    work.mkdir()
    (work / "spec.py").write_text(textwrap.dedent(FAILING), encoding="utf-8")
    script = run_process(words, work)
    work.rename(tmp_path / "by_the_script")
    work.mkdir()
    (work / "spec.py").write_text(textwrap.dedent(FAILING), encoding="utf-8")
    here = run_in_process(words, work)
    assert (here.returncode, _same(here.stderr)) == (script.returncode, _same(script.stderr))
    assert _same(here.stdout) == _same(script.stdout)


def _same(text: str) -> str:
    """Output with what differs between two runs of one command left out."""
    import re

    text = re.sub(r"\b[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\b", "RUN", text)  # ids
    text = re.sub(r"\b[0-9a-f]{8}\b", "RUN", text)
    text = re.sub(r"\d+(\.\d+)? (ms|s)\b", "TIME", text)
    return re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)?", "WHEN", text)


AGENT = 'def answer(text):\n    return "{answer}"\n'
SUITE = """
    import assay_agents as assay
    from assay_agents import checks
    from desk_agents import answer

    suite = assay.Suite("{name}", agent=answer, checks=[checks.exact_match()])
    suite.case("q", expected="{answer}")
"""


def _project(root: Path, answer: str) -> Path:
    root.mkdir()
    (root / "assay.toml").write_text("")
    (root / "desk_agents.py").write_text(AGENT.format(answer=answer))
    (root / "suite.py").write_text(textwrap.dedent(SUITE.format(name=answer, answer=answer)))
    return root


def test_projects_with_modules_of_the_same_name_each_import_their_own(tmp_path: Path) -> None:
    first, second = _project(tmp_path / "one", "yes"), _project(tmp_path / "two", "no")
    path, cwd = sys.path[:], os.getcwd()
    for root in (first, second, first):
        done = Cli(root)("run", "suite.py", "--quiet")
        assert done.returncode == 0, done.output
    assert "desk_agents" not in sys.modules and str(first) not in sys.path
    assert sys.path == path and os.getcwd() == cwd


def test_the_callers_assay_settings_and_arguments_stay_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_DATABASE_URL", "sqlite:////nonexistent/elsewhere.db")
    argv = sys.argv[:]
    done = Cli(tmp_path)("history")
    assert "nonexistent" not in done.output  # the command looked in its working directory
    assert sys.argv == argv and os.environ["ASSAY_DATABASE_URL"].endswith("elsewhere.db")
