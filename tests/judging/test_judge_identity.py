"""A judge has one identity however its endpoint is given, so its runs stay comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.judging.openai_judge import OpenAIJudge
from assay_agents.testing import ScriptedServer, verdict

SUPPORT = Path(__file__).resolve().parents[2] / "examples" / "support_eval.py"


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_BASE_URL", "ASSAY_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    return tmp_path


def stored_judge() -> str:
    done = invoke("report", "--format", "json")
    assert done.exit_code == 0, done.output
    return json.loads(done.output)["settings"]["judge"]


@pytest.mark.parametrize("pointed", ["flag", "environment", "configuration"])
def test_the_judge_identity_is_the_same_however_the_endpoint_is_given(
    project: Path, monkeypatch: pytest.MonkeyPatch, pointed: str
) -> None:
    with ScriptedServer(lambda body: verdict(1.0, "Same facts.")) as server:
        url = server.base_url.replace("127.0.0.1", "localhost")
        args = ["run", str(SUPPORT), "--judge", "gpt-4.1-mini"]
        if pointed == "flag":
            args += ["--judge-base-url", url]
        elif pointed == "environment":
            monkeypatch.setenv("OPENAI_BASE_URL", url)
        else:
            (project / "assay.toml").write_text(f'judge_base_url = "{url}"\n', encoding="utf-8")
        done = invoke(*args)
        calls = len(server.requests)
    assert done.exit_code == 0, done.output
    assert calls > 0  # the judge really was called there
    assert stored_judge() == "gpt-4.1-mini @ localhost"


def test_the_configured_judge_and_endpoint_go_together(project: Path) -> None:
    with ScriptedServer(lambda body: verdict(1.0, "Same facts.")) as server:
        url = server.base_url.replace("127.0.0.1", "localhost")
        (project / "assay.toml").write_text(
            f'judge = "gpt-4.1-mini"\njudge_base_url = "{url}"\n', encoding="utf-8"
        )
        done = invoke("run", str(SUPPORT))
        calls = len(server.requests)
    assert done.exit_code == 0, done.output
    assert calls > 0
    assert stored_judge() == "gpt-4.1-mini @ localhost"


def test_a_configured_endpoint_must_be_a_string(project: Path) -> None:
    (project / "assay.toml").write_text("judge_base_url = 8080\n", encoding="utf-8")
    done = invoke("run", str(SUPPORT), "--judge", "gpt-4.1-mini")
    assert done.exit_code == 2, done.output
    assert "assay.toml" in done.output and "judge_base_url" in done.output


def test_the_openai_api_itself_is_the_default_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    implicit = OpenAIJudge(model="gpt-4.1-mini", label="gpt-4.1-mini")
    explicit = OpenAIJudge(
        model="gpt-4.1-mini", label="gpt-4.1-mini", base_url="https://api.openai.com/v1"
    )
    assert implicit.endpoint() is None and explicit.endpoint() is None
