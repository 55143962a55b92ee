"""Checks and criteria refuse settings that mean nothing when they are made, naming the field."""

from __future__ import annotations

import json
import math
import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents import checks
from assay_agents.checks.actions import ForbidActions, OrderedActions, ToolsCalled, ToolsSucceeded
from assay_agents.checks.budget import MaxLatency, TokenBudget, ToolResultBytes
from assay_agents.checks.content import (
    Contains,
    ExactMatch,
    JsonSchema,
    MinLength,
    NotContains,
    Regex,
    ResponsePresent,
    ValidJson,
)
from assay_agents.checks.custom import Custom
from assay_agents.checks.observation import ChannelCheck
from assay_agents.cli.app import app
from assay_agents.judging.criteria import Criterion

NAN, INF = math.nan, math.inf


def refused(make: Callable[[], Any]) -> str:
    with pytest.raises(assay.SpecError) as caught:
        make()
    return str(caught.value)


def agrees(answer: str | None, ctx: Any) -> bool:
    return True


# --- the factories ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: checks.contains(""), "contains: text must be a non-empty string"),
        (lambda: checks.contains(None), "contains: text must be a non-empty string (got None)"),
        (lambda: checks.contains(30), "contains: text must be a non-empty string (got 30)"),
        (lambda: checks.contains(b"30"), "contains: text must be a non-empty string"),
        (lambda: checks.not_contains(""), "not_contains: text must be a non-empty string"),
        (
            lambda: checks.contains("x", ignore_case="yes"),
            "contains: ignore_case must be true or false (got 'yes')",
        ),
        (lambda: checks.contains("x", name=""), "contains: name must be a non-empty string"),
        (lambda: checks.contains("x", name="  "), "contains: name must be a non-empty string"),
        (lambda: checks.contains("x", name=3), "contains: name must be a non-empty string"),
        (lambda: checks.regex(""), "regex: pattern must be a non-empty string"),
        (lambda: checks.regex(["a"]), "regex: pattern must be a non-empty string"),
        (lambda: checks.regex("a", full=1), "regex: full must be true or false (got 1)"),
        (lambda: checks.exact_match(strip=None), "exact_match: strip must be true or false"),
        (lambda: checks.json_schema([]), "json_schema: schema must be a JSON object"),
        (lambda: checks.min_length(0), "min_length: characters must be a whole number ≥ 1 (got 0)"),
        (lambda: checks.min_length(-1), "min_length: characters must be a whole number ≥ 1"),
        (lambda: checks.min_length(2.5), "min_length: characters must be a whole number ≥ 1"),
        (lambda: checks.min_length(True), "min_length: characters must be a whole number ≥ 1"),
        (
            lambda: checks.token_budget(-5),
            "token_budget: tokens must be a whole number ≥ 1 (got -5)",
        ),
        (lambda: checks.token_budget(0), "token_budget: tokens must be a whole number ≥ 1 (got 0)"),
        (lambda: checks.token_budget(NAN), "token_budget: tokens must be a whole number ≥ 1"),
        (lambda: checks.token_budget(INF), "token_budget: tokens must be a whole number ≥ 1"),
        (lambda: checks.token_budget(False), "token_budget: tokens must be a whole number ≥ 1"),
        (lambda: checks.token_budget("100"), "token_budget: tokens must be a whole number ≥ 1"),
        (
            lambda: checks.tool_result_bytes(-1),
            "tool_result_bytes: max_bytes must be a whole number ≥ 1 (got -1)",
        ),
        (
            lambda: checks.tool_result_bytes(0),
            "tool_result_bytes: max_bytes must be a whole number",
        ),
        (lambda: checks.tool_result_bytes(True), "tool_result_bytes: max_bytes must be a whole"),
        (
            lambda: checks.max_latency_ms(0),
            "max_latency_ms: milliseconds must be a finite number > 0 (got 0)",
        ),
        (
            lambda: checks.max_latency_ms(-10),
            "max_latency_ms: milliseconds must be a finite number",
        ),
        (
            lambda: checks.max_latency_ms(NAN),
            "max_latency_ms: milliseconds must be a finite number > 0 (got nan)",
        ),
        (
            lambda: checks.max_latency_ms(INF),
            "max_latency_ms: milliseconds must be a finite number",
        ),
        (
            lambda: checks.max_latency_ms(True),
            "max_latency_ms: milliseconds must be a finite number",
        ),
        (
            lambda: checks.max_latency_ms("1s"),
            "max_latency_ms: milliseconds must be a finite number",
        ),
        (
            lambda: checks.forbid_actions([]),
            "forbid_actions: names must list one or more tool names",
        ),
        (lambda: checks.forbid_actions(""), "forbid_actions: names[0] must be a non-empty string"),
        (
            lambda: checks.forbid_actions(["delete", 3]),
            "forbid_actions: names[1] must be a non-empty string (got 3)",
        ),
        (
            lambda: checks.forbid_actions(["delete", ""]),
            "forbid_actions: names[1] must be a non-empty",
        ),
        (
            lambda: checks.forbid_actions(3),
            "forbid_actions: names must list one or more tool names",
        ),
        (lambda: checks.tools_called(()), "tools_called: names must list one or more tool names"),
        (lambda: checks.tools_called([None]), "tools_called: names[0] must be a non-empty string"),
        (lambda: checks.custom(3, name="x"), "custom: function must be callable (got 3)"),
        (lambda: checks.custom(None, name="x"), "custom: function must be callable (got None)"),
        (lambda: checks.custom(agrees, category=""), "agrees: category must be a non-empty string"),
        (
            lambda: checks.custom(lambda a, c: True),
            "custom: give a lambda (or any callable without",
        ),
    ],
)
def test_a_factory_refuses_a_meaningless_setting_naming_check_and_field(make, message):
    assert message in refused(make)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, NAN, INF, -INF, True, "0.5", None])
@pytest.mark.parametrize(
    "make",
    [
        lambda t: checks.response_present(threshold=t),
        lambda t: checks.tools_succeeded(threshold=t),
        lambda t: checks.contains("x", threshold=t),
        lambda t: checks.token_budget(5, threshold=t),
        lambda t: checks.actions(threshold=t),
        lambda t: checks.valid_json(threshold=t),
        lambda t: checks.max_latency_ms(10, threshold=t),
        lambda t: checks.custom(agrees, threshold=t),
    ],
)
def test_every_check_refuses_a_threshold_outside_zero_to_one(make, threshold):
    message = refused(lambda: make(threshold))
    assert "threshold must be a number in [0, 1]" in message
    assert message.split(":")[0] in {
        "response_present",
        "tools_succeeded",
        "contains",
        "token_budget",
        "actions",
        "valid_json",
        "max_latency_ms",
        "agrees",
    }


def test_with_threshold_refuses_what_the_constructor_refuses():
    assert "contains: threshold must be a number in [0, 1] (got nan)" in refused(
        lambda: checks.contains("x").with_threshold(NAN)
    )


def test_a_named_check_is_named_in_its_error():
    assert (
        refused(lambda: checks.contains("", name="refund_window"))
        == "refund_window: text must be a non-empty string (got '')"
    )


def test_sensible_settings_still_make_checks():
    made = [
        checks.contains("30 days"),
        checks.min_length(1),
        checks.token_budget(1),
        checks.tool_result_bytes(1),
        checks.max_latency_ms(0.5),
        checks.max_latency_ms(10),
        checks.forbid_actions("delete"),
        checks.tools_called(["a", "b"]),
        checks.regex(r"\d"),
        checks.custom(agrees, threshold=0),
        checks.response_present(),
        checks.tools_succeeded(threshold=1),
    ]
    assert [check.name for check in made][:3] == ["contains", "min_length", "token_budget"]


# --- the classes, constructed directly -------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Contains(name="contains", text=""), "contains: text must be a non-empty string"),
        (
            lambda: NotContains(name="not_contains", text=3),
            "not_contains: text must be a non-empty",
        ),
        (lambda: Regex(name="regex", pattern=""), "regex: pattern must be a non-empty string"),
        (
            lambda: ExactMatch(name="exact_match", ignore_case="no"),
            "exact_match: ignore_case must be true or false",
        ),
        (
            lambda: JsonSchema(name="json_schema", schema="object"),
            "json_schema: schema must be a JSON object",
        ),
        (
            lambda: MinLength(name="min_length", characters=0),
            "min_length: characters must be a whole number ≥ 1 (got 0)",
        ),
        (
            lambda: TokenBudget(name="token_budget", tokens=-5),
            "token_budget: tokens must be a whole number ≥ 1 (got -5)",
        ),
        (
            lambda: TokenBudget(name="token_budget", tokens=5.0),
            "token_budget: tokens must be a whole number ≥ 1 (got 5.0)",
        ),
        (
            lambda: ToolResultBytes(name="tool_result_bytes", max_bytes=NAN),
            "tool_result_bytes: max_bytes must be a whole number ≥ 1 (got nan)",
        ),
        (
            lambda: MaxLatency(name="max_latency_ms", milliseconds=-INF),
            "max_latency_ms: milliseconds must be a finite number > 0 (got -inf)",
        ),
        (
            lambda: ForbidActions(name="forbid_actions", names=()),
            "forbid_actions: names must list one or more tool names",
        ),
        (
            lambda: ForbidActions(name="forbid_actions", names="delete"),
            "forbid_actions: names must list one or more tool names",
        ),
        (
            lambda: ToolsCalled(name="tools_called", names=("a", None)),
            "tools_called: names[1] must be a non-empty string (got None)",
        ),
        (
            lambda: Custom(name="mine", function="agrees"),
            "mine: function must be callable (got 'agrees')",
        ),
        (
            lambda: ChannelCheck(name="commands", channel=""),
            "commands: channel must be a non-empty string",
        ),
        (
            lambda: ChannelCheck(name="commands", channel="commands", mode="ban"),
            "commands: mode must be 'exact' or 'forbid' (got 'ban')",
        ),
        (lambda: ResponsePresent(name=""), "response_present: name must be a non-empty string"),
        (lambda: ToolsSucceeded(name=None), "tools_succeeded: name must be a non-empty string"),
        (
            lambda: OrderedActions(name="actions", threshold=2),
            "actions: threshold must be a number in [0, 1] (got 2)",
        ),
        (
            lambda: ValidJson(name="valid_json", threshold=NAN),
            "valid_json: threshold must be a number in [0, 1] (got nan)",
        ),
    ],
)
def test_a_check_constructed_directly_refuses_nonsense(make, message):
    assert message in refused(make)


def test_the_error_carries_the_check_as_its_field():
    with pytest.raises(assay.SpecError) as caught:
        TokenBudget(name="token_budget", tokens=-5)
    assert caught.value.field == "token_budget"
    assert caught.value.detail == "tokens must be a whole number ≥ 1 (got -5)"


def test_a_directly_constructed_name_list_is_kept_as_a_tuple():
    check = ForbidActions(name="forbid_actions", names=["delete", "refund"])
    assert check.names == ("delete", "refund")
    assert check.settings() == {"type": "ForbidActions", "names": ["delete", "refund"]}


# --- judge criteria --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: assay.criterion("", "Is it concise?"),
            "criterion: name must be a non-empty string",
        ),
        (lambda: assay.criterion("  ", "Is it concise?"), "criterion: name must be a non-empty"),
        (lambda: assay.criterion(None, "Is it concise?"), "criterion: name must be a non-empty"),
        (lambda: assay.criterion("concise", ""), "concise: rubric must be a non-empty string"),
        (lambda: assay.criterion("concise", " \n"), "concise: rubric must be a non-empty string"),
        (
            lambda: assay.criterion("concise", 3),
            "concise: rubric must be a non-empty string (got 3)",
        ),
        (
            lambda: assay.criterion("concise", "Concise?", threshold=1.5),
            "concise: threshold must be a number in [0, 1] (got 1.5)",
        ),
        (
            lambda: assay.criterion("concise", "Concise?", threshold=-0.5),
            "concise: threshold must be a number in [0, 1]",
        ),
        (
            lambda: assay.criterion("concise", "Concise?", threshold=NAN),
            "concise: threshold must be a number in [0, 1] (got nan)",
        ),
        (
            lambda: assay.criterion("concise", "Concise?", threshold=True),
            "concise: threshold must be a number in [0, 1] (got True)",
        ),
        (
            lambda: assay.criterion("concise", "Concise?", scale=(5, 1)),
            "concise: scale must be (low, high) whole numbers with low < high (got (5, 1))",
        ),
        (lambda: assay.criterion("concise", "Concise?", scale=(1, 1)), "concise: scale must be"),
        (
            lambda: assay.criterion("concise", "Concise?", scale=(0.0, 1.0)),
            "concise: scale must be",
        ),
        (lambda: assay.criterion("concise", "Concise?", scale=(1, 2, 3)), "concise: scale must be"),
        (lambda: assay.criterion("concise", "Concise?", scale=5), "concise: scale must be"),
        (
            lambda: assay.criterion("concise", "Concise?", reference="yes"),
            "concise: reference must be true or false (got 'yes')",
        ),
        (lambda: assay.criterion("tone", "Mine?"), "criterion: 'tone' is a built-in criterion"),
        (lambda: assay.criterion(["x"], "Mine?"), "criterion: name must be a non-empty string"),
        (lambda: Criterion("concise", "Concise?", facts=1), "concise: facts must be true or false"),
        (
            lambda: Criterion("concise", "Concise?").with_threshold(2),
            "concise: threshold must be a number in [0, 1] (got 2)",
        ),
    ],
)
def test_a_criterion_refuses_nonsense_naming_it_and_the_field(make, message):
    assert message in refused(make)


# --- the same refusals from files, located in the file ---------------------------------------


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    return tmp_path


def validate(path: Path) -> tuple[int, str]:
    done = CliRunner().invoke(app, ["validate", str(path)], catch_exceptions=False)
    return done.exit_code, done.output


YAML = """\
suite: support
groups:
  - key: orders
    scenarios:
      - key: refund
        prompt: Is order 7 refundable?
        expect:
          EXPECT
"""


@pytest.mark.parametrize(
    ("expect", "field"),
    [
        ('contains: ["30 days", ""]', "groups[0].scenarios[0].expect.contains[1]"),
        ('tools: [lookup, ""]', "groups[0].scenarios[0].expect.tools[1]"),
    ],
)
def test_a_yaml_suite_names_file_and_field(workspace, expect, field):
    path = workspace / "support.yml"
    path.write_text(YAML.replace("EXPECT", expect))
    code, output = validate(path)
    assert code == 2, output
    assert "support.yml" in output and field in output
    assert not (workspace / ".assay").exists()


ITEM = """\
id = "refund"
[input]
text = "Is order 7 refundable?"
[expect]
EXPECT
"""


@pytest.mark.parametrize(
    ("expect", "field"),
    [
        ('contains = ["30 days", ""]', "expect.contains[1]"),
        ('tools = ["lookup", ""]', "expect.tools[1]"),
    ],
)
def test_a_toml_item_names_file_and_field(workspace, expect, field):
    root = workspace / "support"
    root.mkdir()
    (root / "suite.toml").write_text("")
    (root / "refund.toml").write_text(textwrap.dedent(ITEM.replace("EXPECT", expect)))
    code, output = validate(root)
    assert code == 2, output
    assert "refund.toml" in output and field in output
    assert not (workspace / ".assay").exists()


def test_a_json_item_names_file_and_field(workspace):
    root = workspace / "support"
    root.mkdir()
    (root / "suite.toml").write_text("")
    item = {"id": "refund", "input": {"text": "Refund?"}, "expect": {"contains": ["30", ""]}}
    (root / "refund.json").write_text(json.dumps(item))
    code, output = validate(root)
    assert code == 2, output
    assert "refund.json" in output and "expect.contains[1]" in output


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("Refund? | contains:", "line 1: option 'contains' has no value"),
        ("Refund? | forbid_tools:", "line 1: option 'forbid_tools' has no value"),
    ],
)
def test_pasted_scenarios_name_file_and_line(workspace, line, field):
    path = workspace / "pasted.txt"
    path.write_text(line + "\n")
    code, output = validate(path)
    assert code == 2, output
    assert "pasted.txt" in output and field in output


SPEC = """\
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("S", agent=lambda text, ctx: text, checks=[CHECK])
"""


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ("checks.token_budget(-5)", "token_budget: tokens must be a whole number ≥ 1 (got -5)"),
        ('checks.contains("")', "contains: text must be a non-empty string"),
        ('assay.criterion("concise", "")', "concise: rubric must be a non-empty string"),
    ],
)
def test_a_python_suite_names_file_and_check(workspace, check, message):
    path = workspace / "spec.py"
    path.write_text(SPEC.replace("CHECK", check))
    code, output = validate(path)
    assert code == 2, output
    assert "spec.py" in output and message in output
