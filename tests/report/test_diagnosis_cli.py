"""Diagnosis as a user meets it: `assay-agents run` then `assay-agents report` on a support agent.

The agent has three tools (lookup_order, issue_refund, lookup_policy); each case makes it
fall short in one way, and the report must name the fault and the fix that way calls for.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

SPEC = """
import json
import assay_agents as assay
from assay_agents import checks, judges

TOOLS = {"lookup_order": "Find an order by number", "issue_refund": "Refund an order",
         "lookup_policy": "Read a store policy"}
LOOKUP = assay.Action("lookup_order", {"id": 7}, result={"id": 7, "status": "delivered"})
REFUND = assay.Action("issue_refund", {"id": 7}, result={"refunded": True})
# What the order service answers for an unknown order: a correct result, no error.
NOT_FOUND = {"error": False, "message": "order 999 not found"}


def agent(text, ctx):
    case = ctx.case.id
    if case == "refund":
        return assay.Outcome(answer="Order 7 is delivered.", actions=[LOOKUP])
    if case == "forbidden":
        return assay.Outcome(answer="Refunded order 7.", actions=[LOOKUP, REFUND])
    if case == "not_found":
        # The agent passes the service's own error flag through, as many do.
        return {"answer": "I could not find order 999.",
                "actions": [{"name": "lookup_order", "arguments": {"id": 999},
                             "result": NOT_FOUND, "error": NOT_FOUND["error"]}]}
    return assay.Outcome(answer="Two weeks, I think.\\x1b[2J And more text " * 4,
                         actions=[assay.Action("lookup_policy", {"topic": "returns"})])


def grade(instructions, prompt):
    if "You help a team fix" in instructions:  # it would add a tool the agent already has
        return json.dumps({"recommendation": "Add an issue_refund tool to the agent.",
                           "tool": {"name": "issue_refund", "description": "Refunds"},
                           "instruction": None})
    return json.dumps({"score": 1 if "order 999" in prompt else 5, "reason": "curt"})


suite = assay.Suite("Support", agent=agent, agent_name="SupportAgent", available_tools=TOOLS,
                    judge=judges.function("grader", grade), criteria=["tone"])
suite.case("Refund order 7", id="refund",
           checks=[checks.tools_called(["lookup_order", "issue_refund"])])
suite.case("Is order 7 refundable?", id="forbidden",
           checks=[checks.contains("30 days"), checks.forbid_actions("issue_refund")])
suite.case("Where is order 999?", id="not_found", checks=[checks.tools_called("lookup_order")])
suite.case("How long is the return window?", id="window", checks=[checks.contains("30 days")])
"""


@pytest.fixture
def ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict]:
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    (tmp_path / "support.py").write_text(SPEC, encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["run", "support.py"], catch_exceptions=False)
    assert done.exit_code == 1, done.output
    report = runner.invoke(app, ["report", "--format", "json"], catch_exceptions=False)
    assert report.exit_code == 0, report.output
    return done.output, json.loads(report.stdout)


def faults(report: dict) -> dict[str, str]:
    return {s["case_id"]: s["fault"] for s in report["samples"]}


def test_a_declared_tool_not_called_is_to_be_called_never_added(ran, tmp_path):
    _, report = ran
    assert faults(report)["refund"] == "expected_tool_not_called"
    [item] = [i for i in report["fix_items"] if i["fault"] == "expected_tool_not_called"]
    assert [t["name"] for t in item["tools"]] == ["issue_refund"]
    assert item["tools_label"] == "expected tools"
    assert item["action"]["label"] == "Tell the agent when and how to call issue_refund"
    text = CliRunner().invoke(app, ["report"], catch_exceptions=False).output
    assert "missing tools" not in text and "Add issue_refund" not in text
    assert "lookup_order, issue_refund" not in text
    sample = next(s for s in report["samples"] if s["case_id"] == "refund")
    assert sample["recommendation"].startswith("The agent has issue_refund but did not call it")
    assert sample["diagnosis"]["refinement"] is None
    assert sample["judge_usage"]["by_kind"]["refine"] == 1


def test_a_forbidden_refund_is_a_forbidden_effect_not_missing_content(ran):
    _, report = ran
    assert faults(report)["forbidden"] == "forbidden_effect"
    sample = next(s for s in report["samples"] if s["case_id"] == "forbidden")
    assert "issue_refund" in sample["recommendation"]


def test_a_correct_not_found_result_judged_curt_is_low_quality(ran):
    _, report = ran
    sample = next(s for s in report["samples"] if s["case_id"] == "not_found")
    assert sample["fault"] == "low_quality"
    assert sample["actions"][0]["error"] is None
    assert not sample["recommendation"].startswith("Fix lookup_order")


def test_a_failing_content_line_shows_the_start_of_the_answer(ran):
    output, _ = ran
    # Shown as it lands (on the log) and again in the list of samples that did not pass.
    lines = [line for line in output.splitlines() if "failed window" in line]
    assert lines
    assert "\x1b" not in output
    for line in lines:
        assert "does not contain '30 days'; the answer begins “Two weeks, I think.\\x1b[2J" in line
        begins = line.split("the answer begins “", 1)[1]
        assert begins.index("…”") <= 80 + len("\\x1b[2J") * 4


def _run_with_refinement(tmp_path: Path, refinement: dict) -> tuple[dict, str]:
    """The support suite with a judge that refines the not-called finding as ``refinement``."""
    spec = SPEC.replace(
        """return json.dumps({"recommendation": "Add an issue_refund tool to the agent.",
                           "tool": {"name": "issue_refund", "description": "Refunds"},
                           "instruction": None})""",
        f"return json.dumps({refinement!r})",
    )
    assert spec != SPEC
    (tmp_path / "support.py").write_text(spec, encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["run", "support.py", "--case", "refund"], catch_exceptions=False)
    assert done.exit_code == 1, done.output
    report = runner.invoke(app, ["report", "--format", "json"], catch_exceptions=False)
    text = runner.invoke(app, ["report"], catch_exceptions=False).output
    return json.loads(report.stdout), text


@pytest.mark.parametrize(
    "refinement",
    [
        {
            "recommendation": "Add the issue_refund tool to the agent.",
            "tool": None,
            "instruction": None,
        },
        {
            "recommendation": "Give the agent an Issue-Refund tool.",
            "tool": None,
            "instruction": None,
        },
        {
            "recommendation": "Add an Issue_Refund tool.",
            "tool": {"name": "Issue_Refund", "description": "Refunds"},
            "instruction": None,
        },
        {
            "recommendation": "Expose a refund capability.",
            "tool": {"name": "issue-refund", "description": "Refunds"},
            "instruction": None,
        },
    ],
    ids=["text-null-tool", "text-other-spelling", "tool-case", "tool-dash"],
)
def test_a_refinement_adding_a_tool_the_agent_has_is_discarded(tmp_path, monkeypatch, refinement):
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    report, text = _run_with_refinement(tmp_path, refinement)
    sample = next(s for s in report["samples"] if s["case_id"] == "refund")
    assert sample["recommendation"].startswith("The agent has issue_refund but did not call it")
    assert sample["diagnosis"]["refinement"] is None
    assert "Add " not in text and "Give the agent" not in text
    [item] = report["fix_items"]
    assert item["action"]["label"] == "Tell the agent when and how to call issue_refund"


def test_a_refinement_telling_the_agent_to_call_a_tool_it_has_stands(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    report, _ = _run_with_refinement(
        tmp_path,
        {
            "recommendation": "Add an instruction to call issue_refund once the order is found.",
            "tool": None,
            "instruction": "After lookup_order finds the order, call issue_refund.",
        },
    )
    sample = next(s for s in report["samples"] if s["case_id"] == "refund")
    assert sample["recommendation"].startswith("Add an instruction to call issue_refund")
    assert sample["diagnosis"]["refinement"] is not None


def test_a_tool_the_agent_lacks_is_missing_beside_one_it_has_to_call(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    spec = SPEC.replace(
        'suite.case("Refund order 7", id="refund",\n'
        '           checks=[checks.tools_called(["lookup_order", '
        '"issue_refund"])])',
        'suite.case("Cancel order 7", id="cancel", checks=[checks.tools_called('
        '["lookup_order", "cancel_order"])])',
    )
    assert spec != SPEC
    spec = spec.replace(
        'if case == "refund":',
        'if case == "cancel":\n'
        '        return assay.Outcome(answer="Done.", actions=[])\n'
        '    if case == "refund":',
    )
    (tmp_path / "support.py").write_text(spec, encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["run", "support.py", "--case", "cancel"], catch_exceptions=False)
    assert done.exit_code == 1, done.output
    report = json.loads(
        runner.invoke(app, ["report", "--format", "json"], catch_exceptions=False).stdout
    )
    items = [
        (i["tools_label"], [t["name"] for t in i["tools"]], i["action"]["label"])
        for i in report["fix_items"]
    ]
    assert items == [
        ("missing tools", ["cancel_order"], "Add cancel_order to the agent"),
        ("expected tools", ["lookup_order"], "Tell the agent when and how to call lookup_order"),
    ]
    missing, expected = report["fix_items"]
    assert missing["recommendation"] == "Give the agent cancel_order: not among the agent's tools."
    assert expected["recommendation"].startswith("The agent has lookup_order but did not call it")
    assert "cancel_order" not in expected["recommendation"]
    text = runner.invoke(app, ["report"], catch_exceptions=False).output
    assert "expected tools: lookup_order, cancel_order" not in text
    markdown = runner.invoke(app, ["report", "--format", "markdown"], catch_exceptions=False).output
    assert "call lookup_order, cancel_order" not in markdown
