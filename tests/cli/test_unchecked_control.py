"""A suite that checks or defines nothing, as `assay-agents control` and `run` meet it."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``assay ...`` in-process, in a scratch folder, with no ASSAY_* settings around."""
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)

    def invoke(*args: str):
        return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)

    return invoke


def _spec(tmp_path: Path, body: str, name: str = "spec.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


UNCHECKED = """
    import assay_agents as assay

    suite = assay.Suite("Unchecked", agent=lambda text: "a")
    suite.case("plain")
    suite.case("other")
"""

CHECKED = """
    import assay_agents as assay
    from assay_agents import checks

    suite = assay.Suite("Unchecked", agent=lambda text: "a", checks=[checks.contains("a")])
    suite.case("plain")
    suite.case("other")
"""


def test_a_control_pair_that_checked_nothing_measures_no_floor_and_fails(cli, tmp_path):
    spec = _spec(tmp_path, UNCHECKED)
    done = cli("control", spec, "-q")
    assert done.exit_code == 1, done.output
    assert done.stderr.index("warning: every case checks nothing") == 0
    assert "noise floor from control runs" not in done.stdout
    assert "no noise floor was measured" in done.stdout
    assert "nothing was checked: no sample was evaluated" in done.stdout
    assert "--allow-unchecked" in done.stdout

    allowed = cli("control", spec, "-q", "--allow-unchecked")
    assert allowed.exit_code == 0, allowed.output
    assert "no noise floor was measured" in allowed.stdout
    assert "noise floor from control runs" not in allowed.stdout


def test_a_later_run_is_not_labelled_against_an_unmeasured_pair(cli, tmp_path):
    spec = _spec(tmp_path, UNCHECKED)
    assert cli("control", spec, "-q", "--allow-unchecked").exit_code == 0
    assert cli("run", spec, "-q", "--allow-unchecked").exit_code == 0
    store = assay.Store.open(None)
    try:
        latest = store.latest_run()
        assert latest is not None and not latest.links.get("control")
        assert store.find_control_pair(latest) is None
    finally:
        store.close()


def test_a_control_pair_that_checked_something_still_measures(cli, tmp_path):
    done = cli("control", _spec(tmp_path, CHECKED), "-q")
    assert done.exit_code == 0, done.output
    assert "warning" not in done.stderr
    assert "noise floor from control runs" in done.stdout


def test_the_warning_agrees_with_how_many_cases_check_nothing(cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Partly", agent=lambda text: "a")
        suite.case("checked", checks=[checks.contains("a")])
        for number in range(5):
            suite.case(f"plain {number}")
    """,
    )
    done = cli("run", spec, "-q")
    assert "warning: 5 of 6 cases check nothing, so their samples would be" in done.stderr
    one = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Partly", agent=lambda text: "a")
        suite.case("checked", checks=[checks.contains("a")])
        suite.case("plain")
    """,
        "one.py",
    )
    done = cli("run", one, "-q")
    assert "warning: 1 of 2 cases checks nothing, so its samples would be" in done.stderr


def test_a_suite_without_cases_is_told_so_not_about_a_selection(cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay

        suite = assay.Suite("Empty", agent=lambda text: "a")
    """,
    )
    done = cli("run", spec)
    assert done.exit_code == 2, done.output
    assert "defines no cases" in done.output
    assert "selection" not in done.output and "--group" not in done.output
