"""Forbidding tool calls from files: [expect.forbid] tools, forbid_tools in YAML and pastes."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app
from assay_agents.load import Catalog, ScenarioParser, load_items, load_suite

AGENT = """
import assay_agents as assay


def agent(text, ctx):
    calls = [assay.Action("lookup_order", {"id": 7}, result={"id": 7})]
    if "refund" in text.lower():
        calls.append(assay.Action("issue_refund", {"id": 7}, result={"refunded": True}))
    return assay.Outcome(answer="Order 7: done.", actions=calls)
"""

ITEM = """
id = "refund"
[input]
text = "Is order 7 refundable? Do not refund it."
[expect]
tools = ["lookup_order"]
[expect.forbid]
tools = ["issue_refund"]
"""


def items(tmp_path: Path, item: str = ITEM, settings: str = 'agent = "agent.py:agent"\n'):
    root = tmp_path / "support"
    root.mkdir(exist_ok=True)
    (root / "suite.toml").write_text(settings)
    (root / "agent.py").write_text(AGENT)
    (root / "refund.toml").write_text(textwrap.dedent(item))
    return root


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_an_item_forbids_a_tool_call_without_a_channel(workspace):
    items(workspace)
    done = invoke("run", "support")
    assert done.exit_code == 1, done.output
    assert "forbid_actions: forbidden call(s) made: issue_refund" in done.output
    report = json.loads(invoke("report", "--format", "json").stdout)
    [sample] = report["samples"]
    assert sample["fault"] == "forbidden_effect"
    metrics = {m["name"]: m["passed"] for m in sample["metrics"]}
    assert metrics == {"tools_called": True, "forbid_actions": False}


@pytest.mark.parametrize(
    ("forbid", "message"),
    [
        ("tools = []", "refund.toml: expect.forbid.tools: an empty forbid list forbids nothing"),
        (
            'tools = ["issue_refund", 3]',
            "refund.toml: expect.forbid.tools[1]: must be a tool name (a non-empty string)",
        ),
        (
            'tools = ["lookup_order"]',
            "refund.toml: expect.forbid.tools: lookup_order is both "
            "expected (expect.tools) and forbidden",
        ),
        (
            'tool = ["issue_refund"]',
            "refund.toml: expect.forbid.tool: unknown channel (did you mean 'tools'?)",
        ),
        ('tools = "issue_refund"', "refund.toml: expect.forbid.tools"),
    ],
)
def test_a_bad_forbidden_tools_list_is_refused_naming_file_and_field(workspace, forbid, message):
    root = items(workspace, ITEM.replace('tools = ["issue_refund"]', forbid))
    done = invoke("validate", "support")
    assert done.exit_code == 2 and message in done.output, done.output
    assert not (workspace / ".assay").exists()
    with pytest.raises(assay.SpecError):
        load_items(root)


def test_forbidden_tools_sit_beside_forbidden_channel_items(tmp_path):
    root = items(
        tmp_path,
        ITEM.replace(
            'tools = ["issue_refund"]', 'tools = ["issue_refund"]\ncommands = ["x.rebook"]'
        ),
        settings='agent = "agent.py:agent"\nchannels = ["commands"]\n',
    )
    [case] = load_items(root).cases
    assert case.forbid == {"commands": ["x.rebook"]}
    names = [check.name for check in case.checks]
    assert names == ["tools_called", "forbid_actions"]


def test_a_channel_cannot_be_named_like_the_forbid_actions_metric(tmp_path):
    root = items(tmp_path, settings='agent = "agent.py:agent"\nchannels = ["forbid_actions"]\n')
    with pytest.raises(assay.SpecError, match="channels"):
        load_items(root)


SUITE = """
suite: support
groups:
  - key: orders
    scenarios:
      - key: refund
        prompt: Is order 7 refundable? Do not refund it.
        expect:
          tools: lookup_order
          forbid_tools: [issue_refund]
"""


def test_a_yaml_suite_forbids_tools_and_the_run_finds_the_forbidden_refund(workspace):
    (workspace / "agent.py").write_text(AGENT)
    (workspace / "support.yml").write_text(
        SUITE.replace("suite: support", "suite: support\nagent: agent.py:agent")
    )
    done = invoke("run", "support.yml")
    assert done.exit_code == 1, done.output
    report = json.loads(invoke("report", "--format", "json").stdout)
    assert report["samples"][0]["fault"] == "forbidden_effect"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "forbid_tools: [lookup_order]",
            "groups[0].scenarios[0].expect.forbid_tools: lookup_order "
            "is both expected (tools) and forbidden",
        ),
        (
            "forbid_tool: [issue_refund]",
            "groups[0].scenarios[0].expect.forbid_tool: unknown field "
            "(did you mean 'forbid_tools'?)",
        ),
        ("forbid_tools: []", "groups[0].scenarios[0].expect.forbid_tools"),
        ("forbid_tools: 3", "groups[0].scenarios[0].expect.forbid_tools"),
    ],
)
def test_a_bad_yaml_forbid_tools_is_refused_naming_file_and_field(tmp_path, text, message):
    path = tmp_path / "support.yml"
    path.write_text(SUITE.replace("forbid_tools: [issue_refund]", text))
    with pytest.raises(assay.SpecError) as caught:
        load_suite(path, imports=False)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_forbid_tools_round_trip_through_a_catalog_and_the_fingerprint(tmp_path):
    path = tmp_path / "support.yml"
    path.write_text(SUITE)
    catalog = Catalog.load(path)
    again = tmp_path / "again.yml"
    again.write_text(catalog.to_yaml())
    assert Catalog.load(again).digest() == catalog.digest()
    assert "forbid_tools:\n" in catalog.to_yaml() and "- issue_refund" in catalog.to_yaml()
    plain = tmp_path / "plain.yml"
    plain.write_text(SUITE.replace("          forbid_tools: [issue_refund]\n", ""))
    fingerprints = {load_suite(p, imports=False).plan().fingerprint for p in (path, plain)}
    assert len(fingerprints) == 2


def test_pasted_lines_and_documents_take_forbid_tools():
    [line] = ScenarioParser.scenarios(
        "Is order 7 refundable? | tools: lookup_order | forbid_tools: issue_refund, delete"
    )
    assert line.expect.forbid_tools == ("issue_refund", "delete")
    assert [c.name for c in line.case(0).checks] == ["tools_called", "forbid_actions"]
    [listed] = ScenarioParser.scenarios(
        '[{"prompt": "Is order 7 refundable?", "expect": {"forbid_tools": "issue_refund"}}]'
    )
    assert listed.expect.forbid_tools == ("issue_refund",)
    [parsed] = ScenarioParser.parse("Refund? | forbid_tools: issue_refund")
    assert parsed["expect"] == {"forbid_tools": ["issue_refund"]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "Refund? | tools: a | forbid_tools: a",
            "line 1: forbid_tools: a is both expected (tools) and forbidden",
        ),
        ("Refund? | forbid_tool: a", "unknown option 'forbid_tool' (did you mean 'forbid_tools'?)"),
        ("Refund? | forbid_tools:", "option 'forbid_tools' has no value"),
    ],
)
def test_bad_pasted_forbid_tools_are_refused(text, message):
    with pytest.raises(assay.SpecError, match="line 1") as caught:
        ScenarioParser.scenarios(text)
    assert message in str(caught.value)
