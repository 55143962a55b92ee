"""Opening a suite by its path, with the project's configuration applied in one place."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app
from assay_agents.load import Selection, open_suite
from assay_agents.store import Store
from assay_agents.testing import ScriptedServer, verdict

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support_eval.py"

# One case passes and one fails: only a gate of 50 % lets such a run pass.
HALF_PASSING = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("Half", agent=lambda text, ctx: "yes")
suite.case("first", expected="yes", checks=[checks.exact_match()])
suite.case("second", expected="no", checks=[checks.exact_match()])
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_BASE_URL", "ASSAY_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    (tmp_path / "half.py").write_text(HALF_PASSING, encoding="utf-8")
    return tmp_path


def configure(project: Path, judge_url: str = "http://127.0.0.1:9/v1") -> None:
    (project / "assay.toml").write_text(
        'judge = "openai/judge-model"\n'
        f'judge_base_url = "{judge_url}"\n'
        "concurrency = 3\n"
        "gate = { min_pass_rate = 0.5 }\n",
        encoding="utf-8",
    )


def test_open_suite_selects_the_cases_of_a_python_spec(project: Path) -> None:
    suite = open_suite(EXAMPLE, Selection(cases=["returns"]))
    assert [case.id for case in suite.cases] == ["returns"]
    assert suite.selected_from == 3


def test_open_suite_applies_the_project_configuration(project: Path) -> None:
    configure(project)
    suite = open_suite(project / "half.py")
    assert suite.concurrency == 3
    assert suite.gate is not None and suite.gate.min_pass_rate == 0.5
    assert suite.judge is not None and suite.judge.label == "openai/judge-model"


def test_a_suites_own_settings_win_over_the_configuration(project: Path) -> None:
    configure(project)
    (project / "own.py").write_text(
        HALF_PASSING.replace(
            'agent=lambda text, ctx: "yes"',
            'agent=lambda text, ctx: "yes", concurrency=5, gate=assay.Gate(min_pass_rate=1.0)',
        ),
        encoding="utf-8",
    )
    suite = open_suite(project / "own.py")
    assert suite.concurrency == 5
    assert suite.gate is not None and suite.gate.min_pass_rate == 1.0


def test_the_configuration_leaves_the_callers_suite_unchanged(project: Path) -> None:
    (project / "assay.toml").write_text("concurrency = 3\n", encoding="utf-8")
    suite = assay.Suite("Mine", agent=lambda text, ctx: "yes")
    suite.case("q", expected="yes", checks=[assay.checks.exact_match()])
    run = assay.run(suite, progress=False)
    assert run.settings.concurrency == 3
    assert suite.concurrency is None


def test_a_library_run_and_assay_run_store_the_same_settings(project: Path) -> None:
    with ScriptedServer(lambda body: verdict(1.0, "Fine.")) as server:
        configure(project, server.base_url)
        done = CliRunner().invoke(app, ["run", "half.py", "--quiet"], catch_exceptions=False)
        evaluation = assay.evaluate(project / "half.py", progress=False)
    # The gate of the configuration lets one failure in two pass, in both.
    assert done.exit_code == 0, done.output
    assert evaluation.verdict.passed and evaluation.verdict.gate is not None
    with Store.open(None, create=False) as store:
        by_cli, by_library = sorted(store.history(limit=2), key=lambda run: run.sequence or 0)
    assert by_library.id == evaluation.run.id
    assert by_cli.settings == by_library.settings
    assert by_library.settings.judge == "openai/judge-model @ 127.0.0.1"
    assert by_library.settings.concurrency == 3
    assert by_library.settings.gate is not None
    assert by_cli.outcome == by_library.outcome
    assert by_cli.fingerprint == by_library.fingerprint


def test_a_path_is_opened_with_its_selection(project: Path) -> None:
    run = assay.run(project / "half.py", selection=Selection(cases=["first"]), progress=False)
    assert [case.case_id for case in run.cases] == ["first"]
    selection = run.settings.selection
    assert selection is not None and (selection.cases, selection.of) == (1, 2)
    assert run.summary is not None and run.summary.passed == 1


def test_a_selection_is_refused_with_a_suite_object(project: Path) -> None:
    suite = assay.Suite("Mine", agent=lambda text, ctx: "yes")
    with pytest.raises(TypeError, match="selection"):
        assay.run(suite, selection=Selection(cases=["q"]), progress=False)
