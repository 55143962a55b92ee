"""What CI reads from a run: JUnit XML, the job summary, and report paths refused up front."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import xmlschema

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "fixtures" / "jenkins-junit.xsd")
FAILING_GATE = ("--gate", "min_pass_rate=0.9")
REGRESSED = {"AGENT_REVISION": "regressed"}


def markers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def marker_env(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder, {"MARKER_DIR": str(folder)}


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder no file can be created in, for root too (who ignores permission bits)."""
    if os.geteuid() == 0:
        return Path("/proc/self")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    return folder


def test_junit_from_run_and_report(cli, support_spec) -> None:
    done = cli("run", support_spec, "--quiet", "--report", "results.xml")
    assert done.returncode == 0, done.output
    SCHEMA.validate(str(cli.cwd / "results.xml"))
    printed = cli("report", "--format", "junit")
    assert printed.returncode == 0 and printed.stdout.startswith("<?xml")
    SCHEMA.validate(printed.stdout)
    assert cli("report", "--output", "again.xml").returncode == 0
    assert (cli.cwd / "again.xml").read_text(encoding="utf-8") == printed.stdout


def test_junit_counts_equal_the_stored_summary(cli, support_spec) -> None:
    import xml.etree.ElementTree as ET

    assert cli("run", support_spec, "--quiet", env=REGRESSED).returncode == 1
    stored = cli.json_report()["summary"]
    (suite,) = ET.fromstring(cli("report", "--format", "junit").stdout).findall("testsuite")
    assert int(suite.get("tests", "")) == stored["cases"] == 3
    assert int(suite.get("failures", "")) == stored["failed"] == 1
    assert int(suite.get("errors", "")) == stored["errors"] == 0
    assert int(suite.get("skipped", "")) == stored["not_evaluated"] == 0
    timed = sum(s["duration_ms"] or 0 for s in cli.json_report()["samples"]) / 1000
    assert float(suite.get("time", "")) == pytest.approx(timed, abs=0.002)


def test_the_github_step_summary_is_appended_and_the_exit_code_stands(cli, support_spec):
    summary = cli.cwd / "step_summary.md"
    summary.write_text("# Tests of an earlier step\n", encoding="utf-8")
    env = {**REGRESSED, "GITHUB_STEP_SUMMARY": str(summary)}
    assert cli("run", support_spec, "--quiet").returncode == 0  # a baseline
    plain = cli("run", support_spec, "--quiet", *FAILING_GATE, env=REGRESSED)
    summarised = cli("run", support_spec, "--quiet", *FAILING_GATE, env=env)
    assert plain.returncode == summarised.returncode == 1
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("# Tests of an earlier step\n\n## Assay: ")
    assert "## Assay: Customer support · SupportAgent — failed" in written
    assert "- gate: failed · deterministic pass rate 67% &lt; 90%" in written
    assert "#### Expected tool not called" in written and "- **Cases:** returns" in written
    assert "exit code 1" in written and "### What to fix" in written
    again = cli("run", support_spec, "--quiet", env=env)
    assert again.returncode == 1
    assert summary.read_text(encoding="utf-8").startswith(written)  # appended again


def test_summary_writes_the_same_for_any_ci(cli, support_spec) -> None:
    done = cli("run", support_spec, "--quiet", "--summary", "summary.md")
    assert done.returncode == 0, done.output
    written = (cli.cwd / "summary.md").read_text(encoding="utf-8")
    assert "## Assay: Customer support · SupportAgent — passed" in written
    assert "**Passed.**" in written and "exit code 0" in written


def test_one_file_named_twice_gets_the_summary_once(cli, support_spec) -> None:
    summary = cli.cwd / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert cli("run", support_spec, "--quiet", "--summary", summary, env=env).returncode == 0
    assert summary.read_text(encoding="utf-8").count("## Assay:") == 1


def test_a_summary_in_a_missing_folder_exits_2_before_anything_runs(cli, specs, marker_env):
    folder, env = marker_env
    done = cli("run", specs / "marker_agent.py", "--summary", "nowhere/summary.md", env=env)
    assert done.returncode == 2
    assert "--summary nowhere/summary.md" in done.stderr and "does not exist" in done.stderr
    assert markers(folder) == []
    assert not (cli.cwd / "nowhere").exists()


def test_an_unwritable_step_summary_is_a_warning_naming_it(cli, support_spec, tmp_path) -> None:
    blocker = cli.cwd / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    target = blocker / "summary.md"
    done = cli("run", support_spec, "--quiet", env={"GITHUB_STEP_SUMMARY": str(target)})
    assert done.returncode == 0, done.output
    assert f"warning: $GITHUB_STEP_SUMMARY {target}: Not a directory" in done.stderr
    failing = cli(
        "run",
        support_spec,
        "--quiet",
        *FAILING_GATE,
        env={**REGRESSED, "GITHUB_STEP_SUMMARY": str(target)},
    )
    assert failing.returncode == 1


@pytest.mark.parametrize("where", ["missing", "file", "unwritable"])
def test_report_paths_that_cannot_be_written_exit_2_writing_nothing(
    cli, support_spec, specs, marker_env, tmp_path, where
) -> None:
    blocker = cli.cwd / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    folder = {
        "missing": cli.cwd / "nowhere",
        "file": blocker,
        "unwritable": unwritable_folder(tmp_path),
    }[where]
    target = folder / "report.xml"
    markers_folder, env = marker_env
    refused = cli("run", specs / "marker_agent.py", "--report", target, env=env)
    assert refused.returncode == 2 and f"--report {target}" in refused.stderr
    assert markers(markers_folder) == []  # refused before the run started
    assert cli("run", support_spec, "--quiet").returncode == 0
    output = cli("report", "--output", target)
    assert output.returncode == 2 and f"--output {target}" in output.stderr
    assert not target.exists()
    assert not (cli.cwd / "nowhere").exists()


def test_an_existing_report_is_replaced(cli, support_spec) -> None:
    target = cli.cwd / "report.xml"
    target.write_text("stale", encoding="utf-8")
    assert cli("run", support_spec, "--quiet", "--report", target).returncode == 0
    SCHEMA.validate(str(target))
    assert sorted(p.name for p in cli.cwd.iterdir() if p.name.startswith(".report")) == []


def test_output_dash_prints_the_report_on_standard_output(cli, support_spec) -> None:
    assert cli("run", support_spec, "--quiet").returncode == 0
    printed = cli("report", "--format", "html", "--output", "-")
    assert printed.returncode == 0, printed.output
    assert printed.stdout == cli("report", "--format", "html").stdout
    assert printed.stdout.startswith("<!DOCTYPE html>") and "written to" not in printed.stdout
    assert cli("report", "-o", "-").stdout == cli("report").stdout  # text, as without --output
    assert not (cli.cwd / "-").exists()


@pytest.mark.parametrize("option", ["--report", "--summary"])
def test_run_refuses_standard_output_for_a_file_before_anything_runs(
    cli, specs, marker_env, option
) -> None:
    folder, env = marker_env
    done = cli("run", specs / "marker_agent.py", option, "-", env=env)
    assert done.returncode == 2
    assert f"{option} -:" in done.stderr and "standard output" in done.stderr
    assert markers(folder) == [] and not (cli.cwd / "-").exists()


def test_a_report_name_without_a_known_extension_is_told_what_to_give(cli, specs) -> None:
    done = cli("run", specs / "marker_agent.py", "--report", "/dev/stdout")
    assert done.returncode == 2
    assert "--report /dev/stdout" in done.stderr
    assert "use a file name with a known extension" in done.stderr and ".html" in done.stderr


def test_a_failed_write_names_the_option_and_the_path(cli, support_spec) -> None:
    assert cli("run", support_spec, "--quiet").returncode == 0
    output = cli("report", "--format", "junit", "--output", "/dev/full")
    assert output.returncode == 2
    assert "error: --output /dev/full: No space left on device" in output.stderr
    (cli.cwd / "full.xml").symlink_to("/dev/full")
    ran = cli("run", support_spec, "--quiet", "--report", "full.xml", "--summary", "/dev/full")
    assert ran.returncode == 0, ran.output  # the run's own exit code stands
    assert "error: --report full.xml: No space left on device" in ran.stderr
    assert "warning: --summary /dev/full: No space left on device" in ran.stderr


def test_several_reports_are_each_written(cli, support_spec) -> None:
    done = cli("run", support_spec, "--quiet", "--report", "r2.html", "--report", "r3.xml")
    assert done.returncode == 0, done.output
    assert "report written to r2.html" in done.stdout and "report written to r3.xml" in done.stdout
    assert (cli.cwd / "r2.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    SCHEMA.validate(str(cli.cwd / "r3.xml"))


@pytest.mark.parametrize(
    ("reports", "named"),
    [
        (["r.html", "./r.html"], "--report r.html is given twice"),
        (["r.html", "link.html"], "--report link.html names the same file as --report r.html"),
        (["r.html", "nowhere/r.xml"], "--report nowhere/r.xml"),
        (["r.html", "r.doc"], "--report r.doc"),
    ],
)
def test_each_report_is_checked_before_the_run_starts(
    cli, specs, marker_env, reports, named
) -> None:
    folder, env = marker_env
    (cli.cwd / "link.html").symlink_to("r.html")
    words = [word for report in reports for word in ("--report", report)]
    done = cli("run", specs / "marker_agent.py", *words, env=env)
    assert done.returncode == 2 and named in done.stderr, done.output
    assert markers(folder) == [] and not (cli.cwd / "r.html").exists()
    assert not (cli.cwd / "link.html").exists()  # a dangling link, as it was


def test_a_theme_goes_to_the_html_reports_among_several(cli, support_spec, specs) -> None:
    words = ("--theme", "dark", "--report", "r.html", "--report", "r.json")
    done = cli("run", support_spec, "--quiet", *words)
    assert done.returncode == 0, done.output
    assert 'data-theme="dark"' in (cli.cwd / "r.html").read_text(encoding="utf-8")
    assert (cli.cwd / "r.json").read_text(encoding="utf-8").startswith("{")
    refused = cli("run", specs / "marker_agent.py", "--theme", "dark", "--report", "r.md")
    assert refused.returncode == 2 and "html report format only" in refused.stderr
