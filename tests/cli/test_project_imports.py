"""A suite imports its project's own modules, and one agent keeps one identity however named."""

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

AGENT = textwrap.dedent("""
    def answer(question, ctx):
        return "You can return it within 30 days."
""")

SUITE = textwrap.dedent("""
    import assay_agents as assay
    from assay_agents import checks
    from {package}.agents import answer

    suite = assay.Suite("Imports", agent=answer, checks=[checks.contains("30 days")])
    suite.case("How long do I have to return an item?")
""")


@pytest.fixture
def isolated_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Whatever a command puts on sys.path or in sys.modules is undone after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(("shop_", "bots", "bot", "assay_spec_", "assay_entry_")):
            del sys.modules[name]


def _project(root: Path, package: str, *, config: bool = True) -> Path:
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "agents.py").write_text(AGENT)
    (root / "evals").mkdir()
    suite = root / "evals" / "support_eval.py"
    suite.write_text(SUITE.format(package=package))
    if config:
        (root / "assay.toml").write_text('database = "sqlite:///.assay/assay.db"\n')
    return suite


def test_a_suite_imports_the_projects_modules_from_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_imports: None
) -> None:
    suite = _project(tmp_path, "shop_one")
    monkeypatch.chdir(tmp_path / "evals")

    done = CliRunner().invoke(app, ["run", str(suite), "-q"], catch_exceptions=False)

    assert done.exit_code == 0, done.output
    assert (tmp_path / ".assay" / "assay.db").is_file()


def test_a_missing_module_names_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_imports: None
) -> None:
    suite = _project(tmp_path, "shop_two")
    suite.write_text(SUITE.format(package="not_in_this_project"))
    monkeypatch.chdir(tmp_path / "evals")

    done = CliRunner().invoke(app, ["run", str(suite), "-q"], catch_exceptions=False)

    assert done.exit_code == 2
    unwrapped = done.output.replace("\n", "")
    assert "No module named 'not_in_this_project'" in unwrapped
    assert f"searched {tmp_path / 'evals'} and {tmp_path}," in unwrapped
    assert "project root" in " ".join(done.output.split())


def test_a_history_folder_marks_the_root_without_a_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_imports: None
) -> None:
    suite = _project(tmp_path, "shop_three", config=False)
    (tmp_path / ".assay").mkdir()
    monkeypatch.chdir(tmp_path / "evals")

    done = CliRunner().invoke(app, ["run", str(suite), "-q"], catch_exceptions=False)

    assert done.exit_code == 0, done.output
    assert (tmp_path / ".assay" / "assay.db").is_file()


def test_three_spellings_of_one_entry_point_make_one_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_imports: None
) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "support.py").write_text(AGENT)
    (tmp_path / "prompts.txt").write_text(
        "How long do I have to return an item? | contains: 30 days\n"
    )
    (tmp_path / "assay.toml").write_text("")
    monkeypatch.chdir(tmp_path)

    for spelling in ("bots/support.py:answer", "./bots/support.py:answer", "bots.support:answer"):
        done = CliRunner().invoke(
            app, ["run", "prompts.txt", "-q", "--agent", spelling], catch_exceptions=False
        )
        assert done.exit_code == 0, done.output

    listed = CliRunner().invoke(app, ["history", "--format", "json"], catch_exceptions=False)
    assert listed.exit_code == 0, listed.output
    agents = {run["agent"] for run in json.loads(listed.output)}
    assert agents == {"bots.support:answer"}


def test_a_yaml_suite_names_its_agent_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_imports: None
) -> None:
    (tmp_path / "bot.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(
        textwrap.dedent("""
        suite: returns
        agent: bot.py:answer
        agent_name: ReturnsBot
        groups:
          - key: returns
            scenarios:
              - key: window
                prompt: How long do I have to return an item?
                expect: {contains: "30 days"}
    """)
    )
    monkeypatch.chdir(tmp_path)

    done = CliRunner().invoke(app, ["run", "suite.yaml", "-q"], catch_exceptions=False)

    assert done.exit_code == 0, done.output
    listed = CliRunner().invoke(app, ["history", "--format", "json"], catch_exceptions=False)
    assert [run["agent"] for run in json.loads(listed.output)] == ["ReturnsBot"]
