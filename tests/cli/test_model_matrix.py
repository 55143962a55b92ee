"""A model matrix measures every model it names: each sample is answered by the model it asked for.

The scripted server answers per requested model and names, like a provider, the model that
answered; it proves what is sent and recorded, not model reasoning.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.testing import ScriptedServer, completion, reply

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judged_eval.py"

ADAPTER_SUITE = """
import os

import assay_agents as assay
from assay_agents import agents, checks

agent = agents.openai_chat(os.environ.get("FIXED_MODEL") or None,
                           base_url=os.environ["CHAT_BASE_URL"], api_key="test")
suite = assay.Suite("Support", agent=agent)
for number in range(3):
    suite.case(f"Can I get refund {number}?", id=f"refund-{number}",
               checks=[checks.contains("refund approved")])
"""

CUSTOM_SUITE = """
import os

import openai

import assay_agents as assay
from assay_agents import checks


def agent(question, ctx):
    # Ignores ctx.model: every sample goes to the same model.
    with openai.OpenAI(base_url=os.environ["CHAT_BASE_URL"], api_key="test") as client:
        response = client.chat.completions.create(
            model="support-v1", messages=[{"role": "user", "content": question}])
    return response.choices[0].message.content


suite = assay.Suite("Support", agent=agent)
for number in range(3):
    suite.case(f"Can I get refund {number}?", id=f"refund-{number}",
               checks=[checks.contains("refund approved")])
"""


URLLIB_SUITE = """
import json
import os
import urllib.request

import assay_agents as assay
from assay_agents import checks


def agent(question, ctx):
    # Ignores ctx.model, through an HTTP client Assay does not watch.
    body = json.dumps({"model": "support-v1",
                       "messages": [{"role": "user", "content": question}]}).encode()
    request = urllib.request.Request(os.environ["CHAT_BASE_URL"] + "/chat/completions",
                                     data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["choices"][0]["message"]["content"]


suite = assay.Suite("Support", agent=agent)
for number in range(2):
    suite.case(f"Can I get refund {number}?", id=f"refund-{number}",
               checks=[checks.contains("refund approved")])
"""

UNVERIFIED = (
    "no response named a model: the agent's HTTP client is not one Assay watches "
    "(httpx, requests, openai)"
)


def support(body):
    """support-v1 knows the policy; support-v2 does not."""
    if body["model"].startswith("support-v1"):
        return reply("Yes: refund approved within 30 days.")
    return reply("I cannot help with that.")


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_BASE_URL", "FIXED_MODEL", "ASSAY_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "adapter_suite.py").write_text(ADAPTER_SUITE, encoding="utf-8")
    (tmp_path / "custom_suite.py").write_text(CUSTOM_SUITE, encoding="utf-8")
    (tmp_path / "urllib_suite.py").write_text(URLLIB_SUITE, encoding="utf-8")
    return tmp_path


def json_report(*args: str) -> dict:
    done = invoke("report", *args, "--format", "json")
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


def by_model(report: dict) -> dict[str, Counter]:
    statuses: dict[str, Counter] = {}
    for sample in report["samples"]:
        statuses.setdefault(sample["model"], Counter())[sample["status"]] += 1
    return statuses


def test_the_chat_adapter_calls_each_model_the_matrix_names(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "adapter_suite.py",
            "--model",
            "support-v1",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url},
        )
        asked = Counter(request["model"] for request in server.requests)
    assert done.exit_code == 1, done.output
    assert asked == {"support-v1": 3, "support-v2": 3}
    report = json_report()
    assert by_model(report) == {"support-v1": Counter(passed=3), "support-v2": Counter(failed=3)}
    for sample in report["samples"]:
        assert sample["metadata"]["answered_model"] == sample["model"]


def test_a_fixed_model_adapter_is_refused_before_any_request(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "adapter_suite.py",
            "--model",
            "support-v1",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url, "FIXED_MODEL": "support-v1"},
        )
        requests = list(server.requests)
    assert done.exit_code == 2, done.output
    assert "fixed model 'support-v1'" in done.output
    assert "'support-v2'" in done.output and "--model" in done.output
    assert requests == []
    history = invoke("history", "--format", "json")
    assert history.exit_code == 0 and history.output.strip() in ("", "[]")  # no run stored


def test_a_fixed_model_adapter_runs_when_the_run_asks_for_that_model_alone(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "adapter_suite.py",
            "--model",
            "support-v1",
            env={"CHAT_BASE_URL": server.base_url, "FIXED_MODEL": "support-v1"},
        )
        asked = {request["model"] for request in server.requests}
    assert done.exit_code == 0, done.output
    assert asked == {"support-v1"}


def test_an_agent_that_ignores_the_asked_model_gets_error_samples(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "custom_suite.py",
            "--model",
            "support-v1",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 1, done.output
    report = json_report()
    assert by_model(report) == {"support-v1": Counter(passed=3), "support-v2": Counter(error=3)}
    wrong = [s for s in report["samples"] if s["model"] == "support-v2"]
    assert {s["error"] for s in wrong} == {
        "asked for support-v2, the response came from support-v1"
    }
    assert all(
        s["metrics"] == [] and s["metadata"]["answered_model"] == "support-v1" for s in wrong
    )
    assert "asked for support-v2, the response came from support-v1" in done.output
    # support-v2 was never measured: no comparison ranks it against support-v1.
    compared = report["model_comparison"]
    assert [m["model"] for m in compared["models"]] == ["support-v1"]
    assert compared["pairs"] == [] and "Decisive" not in done.output


def test_a_dated_release_of_the_asked_model_is_recorded_and_shown(project: Path) -> None:
    def dated(body):
        return completion(
            {"role": "assistant", "content": "refund approved"}, model=f"{body['model']}-2025-04-14"
        )

    with ScriptedServer(dated) as server:
        done = invoke(
            "run",
            "custom_suite.py",
            "--model",
            "support-v1",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 0, done.output
    report = json_report()
    assert {s["metadata"]["answered_model"] for s in report["samples"]} == {"support-v1-2025-04-14"}
    shown = invoke("report", "--case", "refund-0")
    assert shown.exit_code == 0, shown.output
    assert "support-v1 · answered by support-v1-2025-04-14" in shown.output


def test_cases_are_counted_once_whatever_the_number_of_models(project: Path) -> None:
    with ScriptedServer(lambda body: reply("refund approved")) as server:
        done = invoke(
            "run",
            "adapter_suite.py",
            "--model",
            "support-v1",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 0, done.output
    assert "cases 3 of 3" in done.output
    summary = json_report()["summary"]
    assert (summary["cases"], summary["cases_passed"], summary["samples"]) == (3, 3, 6)


def test_the_judged_example_sends_each_model_it_is_asked_for(project: Path) -> None:
    done = invoke("run", str(EXAMPLE), "--model", "support-v1", "--model", "support-v2")
    assert done.exit_code == 0, done.output
    samples = json_report()["samples"]
    assert {s["model"] for s in samples} == {"support-v1", "support-v2"}
    for sample in samples:
        # The bundled server names the model each request asked for.
        assert sample["metadata"]["answered_model"] == sample["model"]
        assert sample["metadata"]["model"] == sample["model"]


def test_a_model_no_response_named_is_reported_unverified(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "urllib_suite.py",
            "--model",
            "support-v2",
            "--model",
            "support-v3",
            env={"CHAT_BASE_URL": server.base_url},
        )
    # A client Assay does not watch is legitimate: the samples still count, but never silently.
    assert done.exit_code == 0, done.output
    warnings = [line for line in done.output.splitlines() if "warning: model unverified" in line]
    assert len(warnings) == 1, done.output
    assert "support-v2 2 of 2" in warnings[0] and "support-v3 2 of 2" in warnings[0]
    assert UNVERIFIED in " ".join(done.output.split())
    report = json_report()
    assert all(
        s["metadata"]["assay.model_unverified"] == UNVERIFIED
        and "answered_model" not in s["metadata"]
        for s in report["samples"]
    )
    compared = report["model_comparison"]
    assert [m["unverified"] for m in compared["models"]] == [2, 2]
    assert "support-v2 and support-v3 are unverified" in compared["conclusion"]
    markdown = invoke("report", "--format", "markdown")
    assert "support-v2 and support-v3 are unverified" in markdown.output


def test_a_watched_model_is_not_reported_unverified(project: Path) -> None:
    with ScriptedServer(lambda body: reply("refund approved")) as server:
        done = invoke(
            "run",
            "adapter_suite.py",
            "--model",
            "support-v1",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 0, done.output
    assert "unverified" not in done.output
    report = json_report()
    assert all("assay.model_unverified" not in s["metadata"] for s in report["samples"])
    assert [m["unverified"] for m in report["model_comparison"]["models"]] == [0, 0]


def test_an_anthropic_alias_is_answered_by_its_dated_release(project: Path) -> None:
    def dated(body):
        return completion(
            {"role": "assistant", "content": "refund approved"}, model="claude-3-7-sonnet-20250219"
        )

    with ScriptedServer(dated) as server:
        done = invoke(
            "run",
            "custom_suite.py",
            "--model",
            "openai/claude-3-7-sonnet-latest",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 0, done.output
    assert "asked for" not in done.output
    samples = json_report()["samples"]
    assert {s["status"] for s in samples} == {"passed"}
    assert {s["metadata"]["answered_model"] for s in samples} == {"claude-3-7-sonnet-20250219"}


def test_a_wrong_model_sample_shows_no_score_it_did_not_get(project: Path) -> None:
    with ScriptedServer(support) as server:
        done = invoke(
            "run",
            "custom_suite.py",
            "--model",
            "support-v2",
            env={"CHAT_BASE_URL": server.base_url},
        )
    assert done.exit_code == 1, done.output
    assert "asked for support-v2, the response came from support-v1" in done.output
    assert "checks 0%" not in done.output and "check score 0%" not in done.output
    assert "0/3" not in done.output
    assert "Passed — of evaluated samples" in done.output
    assert "errors 3 (3 answered by another model, not checked)" in done.output
    # The cases have checks: another model answering is not a suite that checks nothing.
    assert "nothing was checked" not in done.output and "--allow-unchecked" not in done.output
    report = json_report()
    summary = report["summary"]
    assert (summary["errors"], summary["passed"], summary["failed"]) == (3, 0, 0)
    assert summary["pass_rate"] is None and summary["check_score"] is None
    assert summary["by_model"]["support-v2"]["pass_rate"] is None
    shown = invoke("report", "--case", "refund-0")
    assert "check score 0%" not in shown.output and "check score —" in shown.output
