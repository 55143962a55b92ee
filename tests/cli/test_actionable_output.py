"""Errors a user can act on, and terminal output that scales with the number of samples."""

import json
import re
import subprocess
import textwrap

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from commandline import ASSAY


def _spec(tmp_path, body):
    path = tmp_path / "spec.py"
    path.write_text(textwrap.dedent(body))
    return path


MIXED = """
    import assay_agents as assay
    from assay_agents import checks


    def lookup(table):
        return table["missing"]


    def agent(question):
        if question.startswith("bad"):
            return lookup({})
        return "b" if question == "q3" else "a"


    suite = assay.Suite("Mixed", agent=agent, checks=[checks.exact_match()])
    for number in range(300):
        suite.case(f"q{number}", expected="a")
    suite.case("bad1", expected="a")
    suite.case("bad2", expected="a")
"""


def test_a_large_run_lists_what_did_not_pass_with_the_users_traceback(cli, tmp_path):
    spec = _spec(tmp_path, MIXED)
    done = cli("run", spec)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) < 40  # 302 samples fit on one screen
    assert any("failed q3 #0" in line and "expected 'a', got 'b'" in line for line in lines)
    assert any("error bad1 #0" in line and "KeyError: 'missing'" in line for line in lines)
    assert "299 passing sample(s) not listed" in done.stdout
    # The user's frames, once; nothing of Assay's own.
    assert 'spec.py", line 12, in agent' in done.stdout and "in lookup" in done.stdout
    assert done.stdout.count("Traceback (most recent call last)") == 1
    assert "(traceback as above)" in done.stdout and "assay_agents/runner" not in done.stdout

    verbose = cli("run", spec, "--verbose")
    assert "passed q0 #0" in verbose.stdout and "passing sample(s) not listed" not in verbose.stdout

    case = cli("report", "--case", "bad2")
    assert case.returncode == 0, case.stderr
    assert "KeyError: 'missing'" in case.stdout and "in lookup" in case.stdout
    assert "q3" not in case.stdout
    as_json = cli("report", "--case", "bad2", "--format", "json")
    assert '"traceback": "Traceback' in as_json.stdout
    near = cli("report", "--case", "bad")
    assert near.returncode == 2 and "did you mean" in near.stderr

    markdown = cli("report", "--format", "markdown")
    assert "<summary>Traceback</summary>" in markdown.stdout and "in lookup" in markdown.stdout


@pytest.mark.process  # a real pipe, closed by a real reader
def test_a_reader_that_stops_early_leaves_the_exit_code_to_the_run(tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Many", agent=lambda text: "a", checks=[checks.contains("a")])
        for number in range(3000):
            suite.case(f"a question numbered {number} with some words", expected="a")
    """,
    )
    report = tmp_path / "out.md"
    command = (
        f"{ASSAY} run {spec} --verbose --report {report} | head -1; echo ${{PIPESTATUS[0]}} >&2"
    )
    done = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.stderr.strip().splitlines()[-1] == "0", done.stderr
    assert "Traceback" not in done.stderr and "Broken pipe" not in done.stderr
    assert report.exists()


def test_a_suite_that_checks_nothing_is_warned_about_naming_why(cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Unchecked", agent=lambda text: "a")
        suite.case("plain")
        suite.case("judged", criteria=["tone"])
    """,
    )
    validated = cli("validate", spec)
    assert validated.returncode == 0, validated.stderr
    assert "warning: every case checks nothing" in validated.stdout
    assert "no check (plain)" in validated.stdout
    assert "judge criteria but no judge (judged)" in validated.stdout
    ran = cli("run", spec)
    assert "warning: every case checks nothing" in ran.stderr and "--judge MODEL" in ran.stderr
    checked = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Checked", agent=lambda text: "a", checks=[checks.contains("a")])
        suite.case("plain")
    """,
    )
    assert "warning" not in cli("validate", checked).stdout


def test_history_as_json_with_the_revision_and_a_filter_that_matches_nothing(cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("A rather long suite name for the history table to keep whole",
                            agent=lambda text: "a", checks=[checks.contains("a")],
                            agent_name="AnAgentWithAQuiteLongNameAsWell")
        suite.case("q")
    """,
    )
    assert cli("run", spec, "--metadata", '{"revision": "abc1234"}').returncode == 0
    table = cli("history")
    assert "abc1234" in table.stdout and "revision" in table.stdout
    # Piped, nothing is cut to fit 80 columns.
    assert "A rather long suite name for the history table to keep whole" in table.stdout
    assert "AnAgentWithAQuiteLongNameAsWell" in table.stdout
    (run,) = json.loads(cli("history", "--format", "json").stdout)
    assert run["revision"] == "abc1234" and run["status"] == "completed"
    assert run["passed"] == 1 and run["metadata"] == {"revision": "abc1234"}
    missing = cli("history", "--suite", "A rather long suite name")
    assert missing.returncode == 0 and "No runs yet" not in missing.stdout
    assert (
        "no runs of suite 'A rather long suite name'; suites with runs: 'A rather" in missing.stdout
    )
    assert "did you mean" in cli("history", "--agent", "AnAgentWithAQuiteLongNameAsWel").stdout


FLIPPING = """
    import os

    import assay_agents as assay
    from assay_agents import checks


    def agent(question):
        # Every third case fails; the revision moves which third.
        shift = int(os.environ.get("REVISION", "0"))
        return "b" if (int(question[1:]) + shift) % 3 == 0 else "a"


    suite = assay.Suite("Big", agent=agent, checks=[checks.exact_match()])
    for number in range(300):
        suite.case(f"q{number}", expected="a")
"""


def _invoke(*args, env=None):
    return CliRunner().invoke(app, [str(arg) for arg in args], env=env, catch_exceptions=False)


def test_every_list_shows_a_screenful_and_names_the_command_for_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path, FLIPPING)
    first = _invoke("run", spec, "--quiet")
    assert first.exit_code == 1
    # Named: a run with failed samples is never the automatic baseline.
    before = re.search(r"Run ([0-9a-f]{8})", first.stdout).group(1)
    done = _invoke("run", spec, "--baseline", before, env={"REVISION": "1"})
    assert done.exit_code == 1
    out = done.stdout.splitlines()
    run = re.search(r"Run ([0-9a-f]{8})", done.stdout).group(1)
    assert len(out) < 120, done.stdout  # it was 416 lines
    assert (
        f"  … 80 more sample(s) that did not pass: assay-agents report {run} --format text "
        f"lists them, assay-agents report {run} --case ID shows one in full (or --verbose)" in out
    )
    assert sum(line.startswith("Item moved") for line in out) == 20
    assert (
        f"  … 180 more item(s) moved: assay-agents report {run} --format text lists them all" in out
    )
    regressions = out.index("Deterministic regressions (100):")
    assert out[regressions + 21] == (
        f"  … 80 more deterministic regressions: assay-agents report {run} --format text lists "
        "them all"
    )
    assert "Improvements (100):" in out
    # A line of zeros says nothing.
    assert not any(line.startswith("Integrity:") for line in out)
    assert "Failing: side effects 0 · content 100" in done.stdout
    # As they land, a screenful of failures, then only counts.
    landed = [line for line in done.stderr.splitlines() if line.startswith("failed q")]
    assert len(landed) == 20 and "further failures are not written" in done.stderr

    verbose = _invoke("run", spec, "--verbose", "--quiet", env={"REVISION": "1"})
    assert "more sample(s)" not in verbose.stdout and "more item(s) moved" not in verbose.stdout
    assert verbose.stdout.count("Item moved") == 0  # nothing moved against the same revision
    assert len(verbose.stdout.splitlines()) > 300

    listed = _invoke("report", run, "--format", "text")
    assert listed.exit_code == 0
    assert listed.stdout.count("expected 'a', got 'b'") >= 100  # the report lists them all


def test_a_markdown_fix_names_where_to_act_only_with_a_place_to_go(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks


        def agent(text):
            if text.startswith("Refund"):
                return assay.Outcome(answer="I have no way to refund orders.", actions=[])
            return assay.Outcome(answer="Order 7 shipped.", actions=[assay.Action(
                "lookup_order", {"id": 7}, group="orders", error="HTTP 503 from orders")])


        suite = assay.Suite("Fixes", agent=agent,
                            available_tools={"lookup_order": "Find an order by its number"})
        suite.case("Refund order 9", id="refund", checks=[checks.tools_called("refund_order")])
        suite.case("Where is order 7?", id="lookup", checks=[checks.contains("delivered")],
                   expected_actions=[{"group": "orders", "name": "lookup_order",
                                      "arguments": {"id": 7}}])
    """,
    )
    assert _invoke("run", spec, "--quiet").exit_code == 1
    markdown = _invoke("report", "--format", "markdown")
    assert markdown.exit_code == 0
    fixes = markdown.stdout[markdown.stdout.index("## What to fix") :]
    fixes = fixes[: fixes.index("\n## ", 1)]
    assert "Fix `lookup_order`" in fixes or "Fix lookup_order" in fixes, fixes
    assert "->" not in fixes and "-&gt;" not in fixes and "(Tools" not in fixes, fixes


def test_an_unknown_report_extension_names_the_flag_that_chooses_a_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("One", agent=lambda text: "a", checks=[checks.contains("a")])
        suite.case("q")
    """,
    )
    refused = _invoke("run", spec, "--report", "out.xyz")
    assert refused.exit_code == 2
    assert "--report out.xyz: cannot tell the report format from its extension '.xyz'" in (
        refused.stderr
    )
    assert "use a file name with a known extension: .txt, .text, .md, .markdown" in refused.stderr
    assert "format=" not in refused.stderr and "--format" not in refused.stderr
    assert _invoke("run", spec, "--quiet").exit_code == 0
    report = _invoke("report", "--output", "out.xyz")
    assert report.exit_code == 2
    assert "or give --format one of text (txt), markdown (md), json" in report.stderr
    assert "format=" not in report.stderr


def test_validate_lists_every_broken_item_file_with_its_field(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    items = tmp_path / "items"
    items.mkdir()
    (items / "suite.toml").write_text('name = "broken"\n', encoding="utf-8")
    (items / "a_good.toml").write_text(
        'id = "good"\n[input]\ntext = "hi"\n[expect]\ncontains = ["hi"]\n', encoding="utf-8"
    )
    (items / "b_typo.toml").write_text(
        'id = "typo"\n[input]\ntext = "hi"\n[expect]\ncontians = ["hi"]\n', encoding="utf-8"
    )
    (items / "c_no_input.json").write_text(
        '{"id": "empty", "expect": {"contains": ["x"]}}', encoding="utf-8"
    )
    (items / "d_twice.toml").write_text('id = "good"\n[input]\ntext = "again"\n', encoding="utf-8")
    done = _invoke("validate", items)
    assert done.exit_code == 2, done.output
    assert "3 item files are broken" in done.stderr
    lines = done.stderr.splitlines()
    assert any("b_typo.toml: expect.contians: unknown field" in line for line in lines), lines
    assert any("c_no_input.json: input" in line for line in lines), lines
    assert any("d_twice.toml: id: duplicate id 'good'" in line for line in lines), lines
    assert not any("a_good.toml:" in line for line in lines), lines
    ran = _invoke("run", items)  # the same list, before anything runs
    assert ran.exit_code == 2 and "3 item files are broken" in ran.stderr
