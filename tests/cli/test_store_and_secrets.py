"""Store errors, report paths and secrets, as a user meets them on the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli._common import resume_command
from assay_agents.cli.app import app

SPEC = Path(__file__).parent / "specs" / "marker_agent.py"


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@pytest.mark.parametrize(
    "command",
    [["history"], ["report"], ["report", "abcd1234"], ["compare", "abcd1234", "efgh5678"]],
)
def test_a_corrupted_sqlite_file_is_a_clear_error_for_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".assay").mkdir()
    garbage = b"\x00\xffnot a database" * 400
    (tmp_path / ".assay" / "assay.db").write_bytes(garbage)
    done = invoke(*command)
    assert done.exit_code == 2, done.output
    assert "not a database" in done.output and "Traceback" not in done.output
    assert (tmp_path / ".assay" / "assay.db").read_bytes() == garbage


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://ann:p@ss:w0rd@127.0.0.1:1/db",
        "postgresql://ann:hunter2@127.0.0.1:1/db?sslmode=x",
        "postgresql://ann:a/b@c@127.0.0.1:1/db",
    ],
)
def test_no_message_shows_a_password_even_of_a_malformed_url(url: str) -> None:
    done = invoke("history", "--db", url)
    assert done.exit_code == 2
    for fragment in ("p@ss", "w0rd", "hunter2", "a/b@c", "b@c"):
        assert fragment not in done.output, done.output


def test_the_resume_hint_masks_a_typed_password(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = ["assay-agents", "run", "suite.py", "--db", "postgresql://ann:s3cret@db.example/ev"]
    monkeypatch.setattr(sys, "argv", typed)
    hint = resume_command("run-1")
    assert "s3cret" not in hint and "ann:***@db.example" in hint
    assert hint.endswith("--resume run-1")
    monkeypatch.setattr(
        sys, "argv", ["assay-agents", "run", "suite.py", "--db=postgresql://a:b@h/d"]
    )
    assert "a:b@" not in resume_command(
        "run-2"
    ) and "--db=postgresql://a:***@h/d" in resume_command("run-2")


def test_the_resume_hint_leaves_an_environment_url_to_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", ["assay-agents", "run", "suite.py"])
    monkeypatch.setenv("ASSAY_DATABASE_URL", "postgresql://ann:s3cret@db/ev")
    hint = resume_command("run-3")
    assert "postgresql" not in hint and hint.endswith("run suite.py --resume run-3")


def test_the_resume_hint_names_the_program_as_invoked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    program = tmp_path / "venv" / "bin" / "assay-agents"
    monkeypatch.setattr(sys, "argv", [str(program), "run", "suite.py"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert resume_command("r").startswith(f"{program} run suite.py")


@pytest.mark.parametrize("target", ["missing-folder/report.md", "a-folder", "report.pdf"])
def test_an_unwritable_report_path_is_refused_before_the_run_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MARKER_DIR", str(tmp_path))
    (tmp_path / "a-folder").mkdir()
    done = invoke("run", str(SPEC), "--quiet", "--report", target)
    assert done.exit_code == 2, done.output
    assert not list(tmp_path.glob("one-*"))  # no agent ran
    assert not (tmp_path / ".assay").exists()  # nothing was stored


def test_an_agent_calling_sys_exit_fails_only_its_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "exits.py"
    spec.write_text(
        "import sys\nimport assay_agents as assay\nfrom assay_agents import checks\n"
        "def agent(text, ctx):\n"
        "    if text == 'leave':\n        sys.exit(3)\n    return 'ok'\n"
        "suite = assay.Suite('Exits', agent=agent, checks=[checks.contains('ok')])\n"
        "suite.case('leave')\nsuite.case('stay')\n"
    )
    monkeypatch.chdir(tmp_path)
    done = invoke("run", str(spec), "--quiet")
    assert done.exit_code == 1, done.output  # a failed sample, not the agent's exit code
    assert "sys.exit(3)" in done.output
