"""One project, one history, one identity per agent; every command printed to paste works.

As a user meets them on the command line: however an entry point is spelt, ``assay-agents baseline``
finds the runs ``assay-agents run`` stored; a command Assay prints names the database it was given;
a run that checked nothing is never the yardstick; a run from a subfolder writes to the
project's history; a JSON report says which baseline it compared with.
"""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import assay_agents as assay
from assay_agents.cli.app import app

AGENT = textwrap.dedent("""
    def answer(question, ctx):
        return "You can return it within 30 days."
""")

MANY = textwrap.dedent("""
    import assay_agents as assay
    from assay_agents import checks

    def answer(question, ctx):
        return "I cannot help with that."

    suite = assay.Suite("Many", agent=answer, checks=[checks.contains("30 days")])
    for number in range(25):
        suite.case(f"Question {number}: how long do I have to return an item?")
""")

UNCHECKED = textwrap.dedent("""
    import assay_agents as assay

    def answer(question, ctx):
        return "You can return it within 30 days."

    suite = assay.Suite("Unchecked", agent=answer)
    suite.case("How long do I have to return an item?")
""")

CHECKED = textwrap.dedent("""
    import assay_agents as assay
    from assay_agents import checks

    def answer(question, ctx):
        return "You can return it within 30 days."

    suite = assay.Suite("Checked", agent=answer, checks=[checks.contains("30 days")])
    suite.case("How long do I have to return an item?")
""")


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No database from the environment; imports a command makes are undone afterwards."""
    for name in [name for name in __import__("os").environ if name.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(("hbots", "assay_spec_", "assay_entry_")):
            del sys.modules[name]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def report(*args: str) -> dict[str, Any]:
    done = invoke("report", *args, "--format", "json")
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def _entry_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A project whose agent is named on the command line; returns the run's id."""
    (root / "hbots").mkdir()
    (root / "hbots" / "support.py").write_text(AGENT)
    (root / "prompts.txt").write_text("How long do I have to return an item? | contains: 30 days\n")
    (root / "assay.toml").write_text("")
    monkeypatch.chdir(root)
    done = invoke("run", "prompts.txt", "-q", "--agent", "hbots.support:answer")
    assert done.exit_code == 0, done.output
    return str(report()["id"])


def test_baseline_show_and_clear_take_the_agent_however_it_is_spelt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _entry_project(tmp_path, monkeypatch)
    assert invoke("baseline", "set", run_id[:8]).exit_code == 0

    for spelling in ("hbots/support.py:answer", "./hbots/support.py:answer"):
        shown = invoke("baseline", "show", "prompts.txt", "--agent", spelling)
        assert shown.exit_code == 0, shown.output
        assert f"Baseline: {run_id[:8]} (pinned)" in shown.output, shown.output

    cleared = invoke("baseline", "clear", "prompts.txt", "--agent", "hbots/support.py:answer")
    assert cleared.exit_code == 0, cleared.output
    assert "Unpinned the baseline" in cleared.output
    assert "No pinned baselines." in invoke("baseline", "show").output


def test_history_takes_the_agent_however_it_is_spelt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _entry_project(tmp_path, monkeypatch)

    listed = invoke("history", "--agent", "./hbots/support.py:answer", "--format", "json")

    assert listed.exit_code == 0, listed.output
    assert [run["id"] for run in json.loads(listed.output)] == [run_id]


def test_clearing_the_pin_of_an_agent_with_no_runs_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _entry_project(tmp_path, monkeypatch)
    assert invoke("baseline", "set", run_id[:8]).exit_code == 0

    cleared = invoke("baseline", "clear", "prompts.txt", "--agent", "hbots/other.py:answer")

    assert cleared.exit_code == 2, cleared.output
    assert "no runs" in cleared.output and "hbots.support:answer" in cleared.output
    assert "Unpinned" not in cleared.output and "There was no pinned" not in cleared.output
    shown = invoke("baseline", "show", "prompts.txt", "--agent", "hbots.support:answer")
    assert f"Baseline: {run_id[:8]} (pinned)" in shown.output


def _pasted(output: str, start: str) -> list[str]:
    """The command a line of ``output`` offers from ``start`` on, as a shell would split it."""
    line = next(line for line in output.splitlines() if start in line)
    words = shlex.split(line[line.index(start) :].split(" lists ")[0].split(",")[0])
    assert words[0] == "assay-agents"
    return words[1:]


def test_the_command_that_lists_the_rest_names_the_database_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "many.py").write_text(MANY)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    url = f"sqlite:///{tmp_path / 'x' / 'custom.db'}"
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path)
    assert invoke("db", "migrate", "--db", url).exit_code == 0

    done = invoke("run", "many.py", "-q", "--db", url)

    assert done.exit_code == 1, done.output
    words = _pasted(done.output, "assay-agents report ")
    assert words[words.index("--db") + 1] == url
    monkeypatch.chdir(elsewhere)
    pasted = invoke(*words)
    assert pasted.exit_code == 0, pasted.output
    assert "Question 24" in pasted.output


def test_the_baseline_hint_names_the_database_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "many.py").write_text(MANY)
    url = f"sqlite:///{tmp_path / 'custom.db'}"
    monkeypatch.chdir(tmp_path)
    assert invoke("db", "migrate", "--db", url).exit_code == 0
    assert invoke("run", "many.py", "-q", "--db", url).exit_code == 1

    again = invoke("run", "many.py", "-q", "--db", url)

    assert f"pin one with assay-agents baseline set RUN --db {url}" in again.output, again.output
    shown = invoke("baseline", "show", "many.py", "--db", url)
    assert f"assay-agents baseline set RUN --db {url}" in shown.output, shown.output


def test_a_run_accepted_unchecked_is_never_the_automatic_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "unchecked.py").write_text(UNCHECKED)
    monkeypatch.chdir(tmp_path)
    first = invoke("run", "unchecked.py", "-q", "--allow-unchecked")
    assert first.exit_code == 0, first.output
    assert report()["outcome"] == "unchecked"

    second = invoke("run", "unchecked.py", "-q", "--allow-unchecked")

    assert second.exit_code == 0, second.output
    assert "nothing was evaluated in one of the runs" not in second.output
    assert "Baseline: none" in second.output and "1 unchecked" in second.output
    assert report()["baseline_id"] is None


def test_a_library_run_accepted_unchecked_is_stored_as_unchecked(tmp_path: Path) -> None:
    suite = assay.Suite("Library unchecked", agent=lambda question, ctx: "30 days")
    suite.case("How long do I have to return an item?")
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    assert invoke("db", "migrate", "--db", url).exit_code == 0

    first = assay.evaluate(suite, db=url, allow_unchecked=True)
    second = assay.evaluate(suite, db=url, allow_unchecked=True)

    assert first.verdict.exit_code == 0
    assert first.run.outcome is not None and first.run.outcome.value == "unchecked"
    assert second.run.baseline_id is None


def test_a_run_from_a_subfolder_starts_the_history_at_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.assay]\nconcurrency = 2\n")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "s.py").write_text(CHECKED)
    monkeypatch.chdir(tmp_path / "evals")

    done = invoke("run", "s.py", "-q")

    assert done.exit_code == 0, done.output
    assert (tmp_path / ".assay" / "assay.db").is_file()
    assert not (tmp_path / "evals" / ".assay").exists()
    monkeypatch.chdir(tmp_path)
    listed = invoke("history", "--format", "json")
    assert [run["suite"] for run in json.loads(listed.output)] == ["Checked"]


def test_a_json_report_with_an_explicit_baseline_names_it_at_the_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "s.py").write_text(CHECKED)
    monkeypatch.chdir(tmp_path)
    for _ in range(3):
        assert invoke("run", "s.py", "-q").exit_code == 0
    first, second, third = (
        run["id"] for run in reversed(json.loads(invoke("history", "--format", "json").output))
    )

    explicit = report(third, "--baseline", first[:8])
    text = invoke("report", third, "--baseline", first[:8]).output

    assert f"Baseline: {first[:8]} (explicit --baseline)" in text
    assert explicit["comparison"]["baseline_id"] == first
    assert explicit["baseline_id"] == first
    assert explicit["baseline"]["reason"] == "explicit"
    assert explicit["baseline"]["run_id"] == first
    stored = report(third, "--baseline", second[:8])
    assert stored["baseline"]["reason"] == "latest_passing"
    assert stored["baseline_id"] == second == stored["comparison"]["baseline_id"]


def test_a_database_named_in_a_printed_command_has_its_password_masked() -> None:
    from assay_agents.cli._common import db_words

    words = db_words("postgresql://team:s3cret@db.example/assay")

    assert "s3cret" not in words and words.startswith(" --db ")
    assert "team" in words and "db.example/assay" in words
    assert db_words(None) == ""
