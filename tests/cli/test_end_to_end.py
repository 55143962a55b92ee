"""The command line as a user runs it: the real executable, a real SQLite file."""

import json

RETURNS_FAILURES = {("returns", "exact_match"), ("returns", "actions")}


def test_reference_then_regressed_revision(cli, support_spec):
    first = cli("run", support_spec, "--metadata", '{"revision": "reference"}')
    assert first.returncode == 0, first.stderr
    assert "3/3" in first.stdout and "Baseline: none (this is the first run" in first.stdout
    assert (cli.cwd / ".assay" / "assay.db").is_file()

    second = cli(
        "run",
        support_spec,
        "--fail-on-regression",
        "--metadata",
        '{"revision": "regressed"}',
        env={"AGENT_REVISION": "regressed"},
    )
    assert second.returncode == 1
    assert "2 regression(s)" in second.stdout
    assert "Standard shipping takes 7 days." in second.stdout
    assert "regression gate: failed" in second.stdout

    report = cli.json_report()
    assert report["metadata"] == {"revision": "regressed"}
    assert report["summary"]["passed"] == 2 and report["summary"]["pass_rate"] == 2 / 3
    assert abs(report["summary"]["check_score"] - 2 / 3) < 1e-9
    regressions = {(c["case_id"], c["metric"]) for c in report["comparison"]["changes"]}
    assert regressions == RETURNS_FAILURES
    assert report["comparison"]["baseline_id"] == report["baseline_id"]
    returns = next(s for s in report["samples"] if s["case_id"] == "returns")
    assert returns["actions"][0]["arguments"] == {"topic": "shipping"}

    history = cli("history")
    assert history.returncode == 0
    assert history.stdout.count("Customer support") == 2


def test_regressions_alone_do_not_fail_without_the_gate_but_failures_do(cli, support_spec):
    assert cli("run", support_spec).returncode == 0
    again = cli("run", support_spec, "--fail-on-regression")
    assert again.returncode == 0 and "0 regression(s)" in again.stdout
    regressed = cli("run", support_spec, env={"AGENT_REVISION": "regressed"})
    assert regressed.returncode == 1  # a failed sample fails the run, gate or no gate
    assert "regression gate" not in regressed.stdout


def test_report_formats_and_files(cli, support_spec):
    cli("run", support_spec)
    run_id = cli.json_report()["id"]
    markdown = cli("report", run_id[:8], "--format", "markdown")
    assert markdown.returncode == 0 and "### 1. returns" in markdown.stdout
    missing = cli("report", "--output", "out/report.txt")
    assert missing.returncode == 2 and "folder 'out' does not exist" in missing.stderr
    (cli.cwd / "out").mkdir()
    text = cli("report", "--output", "out/report.txt")
    assert text.returncode == 0 and (cli.cwd / "out" / "report.txt").is_file()
    exported = cli("run", support_spec, "--report", "run.json", "--quiet")
    assert exported.returncode == 0
    assert json.loads((cli.cwd / "run.json").read_text())["baseline_id"] == run_id


def test_explicit_baseline(cli, support_spec):
    cli("run", support_spec)
    first = cli.json_report()["id"]
    cli("run", support_spec)
    third = cli("run", support_spec, "--baseline", first)
    assert third.returncode == 0 and f"Baseline {first}" in third.stdout
    assert cli.json_report()["baseline_id"] == first


def test_two_suites_need_a_choice(cli, specs):
    spec = specs / "two_suites.py"
    ambiguous = cli("run", spec)
    assert ambiguous.returncode == 2 and "--suite" in ambiguous.stderr
    chosen = cli("run", spec, "--suite", "Second")
    assert chosen.returncode == 0 and "Second" in chosen.stdout


def test_version_and_help(cli):
    assert cli("--version").stdout.startswith("assay-agents ")
    helped = cli("--help")
    assert helped.returncode == 0 and "run" in helped.stdout and "history" in helped.stdout
