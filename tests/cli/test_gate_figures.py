"""What a gate decides on: forbidden calls are side effects, unmeasured figures never pass."""

import json
import os
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

AGENT = """
import assay_agents as assay


def agent(text, ctx):
    calls = [assay.Action("lookup_order", {"id": 7}, result={"id": 7})]
    if "refund" in text.lower():
        calls.append(assay.Action("issue_refund", {"id": 7}, result={"refunded": True}))
    return assay.Outcome(answer="Order 7: done.", actions=calls)
"""

REFUND = """
id = "refund"
[input]
text = "Is order 7 refundable? Do not refund it."
[expect]
tools = ["lookup_order"]
[expect.forbid]
tools = ["issue_refund"]
"""

LOOKUP = """
id = "lookup"
[input]
text = "Where is order 7?"
[expect]
tools = ["lookup_order"]
[expect.forbid]
tools = ["issue_refund"]
"""

YAML_SUITE = """
suite: support
agent: agent.py:agent
groups:
  - key: orders
    scenarios:
      - key: refund
        prompt: Is order 7 refundable? Do not refund it.
        expect:
          tools: lookup_order
          forbid_tools: [issue_refund]
      - key: lookup
        prompt: Where is order 7?
        expect:
          tools: lookup_order
"""

PYTHON_SUITE = """
import assay_agents as assay
from assay_agents import checks

from agent import agent

suite = assay.Suite("support", agent=agent, checks=[checks.forbid_actions(["issue_refund"])],
                    gate=assay.Gate(min_pass_rate=0.5))
suite.case("Is order 7 refundable? Do not refund it.", id="refund")
suite.case("Where is order 7?", id="lookup")
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [key for key in os.environ if key.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)


def _items(root: Path) -> Path:
    folder = root / "support"
    folder.mkdir()
    (folder / "agent.py").write_text(AGENT)
    (folder / "suite.toml").write_text('agent = "agent.py:agent"\n[gate]\nmin_pass_rate = 0.5\n')
    (folder / "refund.toml").write_text(textwrap.dedent(REFUND))
    (folder / "lookup.toml").write_text(textwrap.dedent(LOOKUP))
    return folder


def _yaml(root: Path) -> Path:
    (root / "support.yml").write_text(YAML_SUITE)
    return root / "support.yml"


def _python(root: Path) -> Path:
    (root / "support_spec.py").write_text(PYTHON_SUITE)
    return root / "support_spec.py"


@pytest.mark.parametrize("write", [_items, _yaml, _python], ids=["items", "yaml", "python"])
def test_a_forbidden_call_is_a_side_effect_failure_and_fails_the_gate(workspace, write):
    done = invoke("run", write(workspace), "--gate", "min_pass_rate=0.5")
    assert "forbid_actions: forbidden call(s) made: issue_refund" in done.stdout, done.output
    assert "Failing: side effects 1" in done.stdout
    assert (
        "gate: failed · 1 sample(s) failed a side-effect assertion (at most 0 allowed)"
        in done.stdout
    )
    assert "  deterministic pass rate 50% ≥ 50%" in done.stdout
    assert done.exit_code == 1
    summary = json.loads(invoke("report", "--format", "json").stdout)["summary"]
    assert summary["failing_by_category"]["side_effects"] == 1
    assert summary["failing_by_category"]["actions"] == 0
    assert summary["integrity"]["side_effect_integrity"] == 1
    allowed = invoke(
        "run",
        _path(workspace, write),
        "--gate",
        "min_pass_rate=0.5",
        "--gate",
        "max_side_effect_failures=1",
    )
    assert "gate: passed" in allowed.stdout and "side-effect failures 1 ≤ 1" in allowed.stdout
    assert allowed.exit_code == 0, allowed.output


def _path(root: Path, write) -> Path:
    return {
        _items: root / "support",
        _yaml: root / "support.yml",
        _python: root / "support_spec.py",
    }[write]


HALF = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("Half", agent=lambda text: "yes" if text == "q0" else "no",
                    checks=[checks.contains("yes")])
suite.case("q0")
suite.case("q1")
"""


@pytest.fixture
def half(workspace: Path) -> Path:
    (workspace / "half.py").write_text(HALF)
    return workspace / "half.py"


def test_a_gate_whose_only_figure_was_not_measured_fails_saying_so(half):
    done = invoke("run", half, "--gate", "max_side_effect_failures=0")
    assert done.exit_code == 1, done.output
    assert "gate: failed · it measured nothing" in done.stdout
    assert "  side-effect failures: not measured — no side-effect checks" in done.stdout
    assert "gate: passed" not in done.stdout


def test_a_gate_names_every_figure_it_decided_on_measured_or_not(half):
    done = invoke("run", half, "--gate", "min_pass_rate=0.5")
    assert done.exit_code == 0, done.output  # a failed sample within the gate is allowed
    lines = done.stdout.splitlines()
    start = lines.index("gate: passed · deterministic pass rate 50% ≥ 50%")
    assert lines[start + 1] == "  side-effect failures: not measured — no side-effect checks"


def test_measured_side_effects_are_named_even_when_none_failed(workspace):
    done = invoke("run", _items(workspace), "--case", "lookup")
    assert done.exit_code == 0, done.output
    assert "gate: passed · deterministic pass rate 100% ≥ 50%" in done.stdout
    assert "  side-effect failures 0 ≤ 0" in done.stdout


ERRORED = """
import assay_agents as assay
from assay_agents import checks


def agent(text):
    if text == "q2":
        raise RuntimeError("the agent is down")
    return "yes"


suite = assay.Suite("Errored", agent=agent, checks=[checks.contains("yes")],
                    gate=assay.Gate(min_pass_rate=0.5))
for name in ("q0", "q1", "q2"):
    suite.case(name)
"""


def test_the_closing_line_of_a_failing_run_never_reads_as_a_pass(workspace):
    (workspace / "errored.py").write_text(ERRORED)
    done = invoke("run", "errored.py")
    assert done.exit_code == 1, done.output
    assert "gate: passed" in done.stdout  # the gate allowed it; the errored sample did not
    last = done.stdout.splitlines()[-1]
    assert re.fullmatch(
        r"== 0 failed, 2 passed, 1 errors · gate passed · "
        r"FAILED \(errored samples\) · [\d,.]+ m?s ==",
        last,
    ), last


def test_the_closing_line_says_why_a_run_failed_and_when_it_passed(half):
    failed = invoke("run", half, "--gate", "max_side_effect_failures=0")
    assert re.search(r" · gate failed · FAILED \(gate\) · ", failed.stdout.splitlines()[-1])
    ungated = invoke("run", half)
    assert ungated.exit_code == 1
    assert " · FAILED (failed samples) · " in ungated.stdout.splitlines()[-1]
    passed = invoke("run", half, "--gate", "min_pass_rate=0.5")
    assert passed.exit_code == 0
    assert " · gate passed · PASSED · " in passed.stdout.splitlines()[-1]


NEAR_THE_GATE = """
import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    return "ok" if int(text.split()[1]) < 139 else "no"


suite = assay.Suite("near", agent=agent, checks=[checks.contains("ok")])
for i in range(200):
    suite.case("q %d" % i, id="c%d" % i)
"""


def test_the_figures_a_failed_gate_read_never_read_as_its_threshold(workspace):
    # 139 of 200 is 69.5%: under a 70% minimum no line of the run may say 70%.
    (workspace / "near.py").write_text(NEAR_THE_GATE)
    done = invoke(
        "run",
        "near.py",
        "--gate",
        "min_pass_rate=0.7",
        "--summary",
        "summary.md",
        "--report",
        "report.html",
    )
    assert done.exit_code == 1, done.output
    assert "Passed 139/200 · 69.5% of evaluated samples" in done.stdout
    assert "Rates: deterministic pass 69.5%" in done.stdout
    assert "gate: failed · deterministic pass rate 69.5% < 70%" in done.stdout
    assert "| Pass rate | 139/200 (69.5%) |" in (workspace / "summary.md").read_text()
    page = (workspace / "report.html").read_text()
    assert "69.5%" in page and "139/200 · 70%" not in page
