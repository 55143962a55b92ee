"""The hostile corpus through every command and format: no raw control, no live markup.

Answers, agent errors, a judge's reason from a real local endpoint, regex patterns and the
suite, agent and case names all carry the corpus; the commands run in-process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.testing.server import ScriptedServer, verdict
from hostile import CONTROLS, EVERYTHING, MARKUP, RICH, live_markup, raw_controls

SPEC = """
import os
import re
import assay_agents as assay
from assay_agents import checks, judges

TEXT = {text!r}
# Ids refuse control characters and line breaks when the case is defined; markup they take.
ID = {ident!r}


def agent(question, ctx):
    if ctx.case.id.startswith("boom"):
        raise RuntimeError("agent failed: " + TEXT)
    return "answer: " + TEXT


suite = assay.Suite(
    "suite " + TEXT, agent=agent, agent_name="agent " + TEXT,
    judge=judges.openai("gpt-4o-mini", base_url=os.environ["JUDGE_URL"], api_key="test"),
    checks=[checks.regex("never" + re.escape(TEXT)), checks.exact_match()],
    criteria=["tone"])
suite.case("question " + TEXT, id="case " + ID, name="name " + TEXT, expected="x " + TEXT)
suite.case("question two", id="boom " + ID, expected="y")
"""


@pytest.fixture
def judge_url(monkeypatch: pytest.MonkeyPatch):
    """A real OpenAI-compatible endpoint whose every verdict reason is the corpus."""
    with ScriptedServer(lambda body: verdict(2, "judge says " + EVERYTHING)) as server:
        monkeypatch.setenv("JUDGE_URL", server.base_url)
        yield server.base_url


@pytest.fixture
def hostile_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge_url: str) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    spec = tmp_path / "hostile_spec.py"
    spec.write_text(_spec(EVERYTHING), encoding="utf-8")
    return spec


def _spec(text: str) -> str:
    ident = " ".join(MARKUP[name] for name in ("script", "remote_image", "js_link", "heading"))
    return SPEC.format(text=text, ident=ident)


def invoke(*args: str) -> str:
    done = CliRunner().invoke(app, list(args))
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    return done.output


def test_every_command_and_format_shows_the_corpus_as_text(hostile_workspace: Path) -> None:
    spec = str(hostile_workspace)
    outputs = {
        "run": invoke("run", spec, "--quiet"),
        "run again": invoke("run", spec, "--quiet"),
        "history": invoke("history"),
        "validate": invoke("validate", spec),
    }
    runs = _run_ids()
    for format in ("text", "markdown", "json"):
        outputs[f"report {format}"] = invoke("report", "--format", format)
        outputs[f"compare {format}"] = invoke("compare", runs[0], runs[1], "--format", format)
    assert "paired item(s) compared" in outputs["compare text"]
    assert "tone: judge says" in outputs["run"] and "RuntimeError: agent" in outputs["run"]
    assert "\\x1b]0;pwned\\x07" in outputs["run"]
    # A form feed or a line separator is shown, never a line break cutting the error short.
    assert "page\\x0cbreak" in outputs["run"] and "a\\u2028b\\u2029c" in outputs["run"]
    for command, output in outputs.items():
        assert raw_controls(output) == [], command
    for command in ("report markdown", "compare markdown"):
        assert live_markup(outputs[command]) == [], command
    report = json.loads(outputs["report json"])
    answers = {sample["answer"] for sample in report["samples"]}
    assert "answer: " + EVERYTHING in answers  # the data itself is kept exactly


def test_rich_markup_in_any_string_is_shown_as_written(hostile_workspace: Path) -> None:
    hostile_workspace.write_text(_spec(" ".join(RICH.values())), encoding="utf-8")
    spec = str(hostile_workspace)
    outputs = {
        "run": invoke("run", spec, "--quiet"),
        "run again": invoke("run", spec, "--quiet"),
        "history": invoke("history"),
        "validate": invoke("validate", spec),
    }
    outputs["report"] = invoke("report")
    outputs["control"] = invoke("control", spec, "--quiet")
    for command, output in outputs.items():
        # A link, a style or a stray closing tag is text: never acted on, dropped or an error.
        assert all(markup in output for markup in RICH.values()), (command, output)


def _run_ids() -> list[str]:
    # The first run errored, so it is not the second's baseline: compare them by id.
    history = json.loads(invoke("history", "--format", "json"))
    return [history[1]["id"], history[0]["id"]]


@pytest.mark.parametrize("name", ["osc_title", "rlo", "c1_csi"])
def test_a_report_file_holds_no_control_character(hostile_workspace: Path, name: str) -> None:
    hostile_workspace.write_text(_spec(CONTROLS[name]), encoding="utf-8")
    invoke("run", str(hostile_workspace), "--quiet")
    for suffix in ("txt", "md", "json"):
        written = hostile_workspace.parent / f"report.{suffix}"
        invoke("report", "--output", str(written))
        assert raw_controls(written.read_text(encoding="utf-8")) == [], suffix
