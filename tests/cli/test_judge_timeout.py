"""``--judge-timeout`` bounds the whole judging of one sample, however many criteria it has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.testing.server import ScriptedServer, slow, verdict

SPEC = """
import os
import assay_agents as assay
from assay_agents import checks, judges

suite = assay.Suite(
    "judged", agent=lambda question, ctx: "an answer",
    judge=judges.openai("gpt-4o-mini", base_url=os.environ["JUDGE_URL"], api_key="test"),
    criteria=["tone", assay.criterion("concise", "Is the answer free of filler?")],
    checks=[checks.contains("answer")])
suite.case("question")
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_a_hanging_judge_holds_a_sample_for_one_timeout_not_one_per_criterion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every request hangs far beyond the timeout; the server counts those it was sent.
    with ScriptedServer(lambda body: slow(verdict(4, "fine"), 3.0)) as server:
        monkeypatch.setenv("JUDGE_URL", server.base_url)
        monkeypatch.chdir(tmp_path)
        (tmp_path / "spec.py").write_text(SPEC, encoding="utf-8")
        done = invoke("run", "spec.py", "--quiet", "--judge-timeout", "0.5")
        assert done.exit_code == 1, done.output
        requests = len(server.requests)
    report = json.loads(invoke("report", "--format", "json").stdout)
    metrics = {metric["name"]: metric for metric in report["samples"][0]["metrics"]}
    for name in ("tone", "concise"):
        assert not metrics[name]["passed"]
        assert (
            "judge timeout of 0.5 s for the whole judging of the sample" in metrics[name]["error"]
        ), metrics[name]
    # The first criterion spent the sample's time; the second was never sent.
    assert requests == 1
    assert metrics["contains"]["passed"]  # the deterministic check is unaffected


CUSTOM_JUDGE_SPEC = """
import assay_agents as assay
from assay_agents import checks, judges

suite = assay.Suite(
    "custom-judged", agent=lambda question, ctx: "an answer",
    judge=judges.function("mine", lambda instructions, prompt: '{"score": 4, "reason": "ok"}'),
    criteria=["tone"], checks=[checks.contains("answer")])
suite.case("question")
"""


def test_a_timeout_for_a_judge_without_a_deadline_is_refused_not_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.py").write_text(CUSTOM_JUDGE_SPEC, encoding="utf-8")
    done = invoke("run", "spec.py", "--quiet", "--judge-timeout", "5")
    assert done.exit_code == 2, done.output
    assert "--judge-timeout" in done.output and "mine" in done.output
    assert not (tmp_path / ".assay").exists()  # refused before any run was created
