"""The adaptive concurrency settings flow from the command line and the project configuration."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from commandline import run_in_process

SPEC = """
    import httpx

    import assay_agents as assay
    from assay_agents import checks

    calls = []


    def agent(question):
        calls.append(question)
        if len(calls) == 1:
            request = httpx.Request("POST", "http://provider.test/v1/chat")
            httpx.Response(429, headers={"retry-after": "0"}, request=request).raise_for_status()
        return "a"


    suite = assay.Suite("Limited", agent=agent, checks=[checks.exact_match()])
    suite.case("q1", expected="a")
"""


def _project(tmp_path: Path, config: str = "") -> Path:
    (tmp_path / "spec.py").write_text(textwrap.dedent(SPEC))
    if config:
        (tmp_path / "assay.toml").write_text(textwrap.dedent(config))
    return tmp_path


def test_the_options_are_stored_and_the_report_lists_the_adjustment(tmp_path: Path) -> None:
    folder = _project(tmp_path, "concurrency_ceiling = 6\n")
    ran = run_in_process(
        ["run", "spec.py", "--quiet", "--concurrency", "4", "--concurrency-floor", "2"],
        folder,
    )
    assert ran.exit_code == 0, ran.output
    assert "waiting 0 s, rate limited (the agent)" in ran.stderr
    report = run_in_process(["report", "--format", "json"], folder)
    data = json.loads(report.stdout)
    assert data["settings"]["adaptive"] == {"floor": 2, "ceiling": 6, "retries": 6}
    assert data["rate_limits"]["retries"] == 1
    assert [(a["before"], a["after"]) for a in data["rate_limits"]["adjustments"]] == [(4, 2)]
    text = run_in_process(["report", "--format", "text"], folder).stdout
    assert "the agent: concurrency 4 → 2 (rate limited)" in text
    assert "Rate limits: 1 retry in 1 sample" in ran.stdout


def test_a_floor_above_the_ceiling_exits_2_naming_the_option(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    ran = run_in_process(
        ["run", "spec.py", "--quiet", "--concurrency-floor", "5", "--concurrency-ceiling", "2"],
        folder,
    )
    assert ran.exit_code == 2 and "concurrency_floor" in ran.output
    assert (
        not (folder / ".assay").exists()
        or "Limited" not in run_in_process(["history"], folder).stdout
    )


def test_a_configured_value_out_of_bounds_exits_2_naming_the_file_and_key(tmp_path: Path) -> None:
    folder = _project(tmp_path, "rate_limit_retries = 5000\n")
    ran = run_in_process(["run", "spec.py", "--quiet"], folder)
    assert ran.exit_code == 2
    assert "assay.toml" in ran.output and "rate_limit_retries" in ran.output
