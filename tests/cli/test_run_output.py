"""What ``assay-agents run`` prints, piped as in CI: progress, the figures, the closing line."""

import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay_agents as assay
from assay_agents.cli.app import app
from assay_agents.testing import ScriptedServer, verdict

CLOSING = re.compile(
    r"^== \d+ failed, \d+ passed, \d+ errors(, \d+ not evaluated)?"
    r"( · gate (passed|failed))?"
    r"( · \d+ regressions?)?( · nothing was checked)?"
    r" · (PASSED|FAILED \([a-z ,]+\)) · [\d,.]+ m?s ==$"
)


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``assay ...`` in-process, in a scratch folder, with no ASSAY_* settings around."""
    monkeypatch.chdir(tmp_path)
    for name in [name for name in __import__("os").environ if name.startswith("ASSAY_")]:
        monkeypatch.delenv(name)

    def invoke(*args: str, env: dict[str, str] | None = None):
        return CliRunner().invoke(app, [str(arg) for arg in args], env=env, catch_exceptions=False)

    return invoke


def _spec(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "spec.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


UNCHECKED = """
    import assay_agents as assay

    suite = assay.Suite("Unchecked", agent=lambda text: "a")
    suite.case("plain")
    suite.case("other")
"""


def test_a_run_that_checked_nothing_fails_unless_allowed(run_cli, tmp_path):
    spec = _spec(tmp_path, UNCHECKED)
    done = run_cli("run", spec)
    assert done.exit_code == 1, done.output
    # Warned before anything ran, and told why it failed at the end.
    assert done.stderr.index("warning: every case checks nothing") == 0
    assert "nothing was checked: no sample was evaluated (2 not evaluated)" in done.stdout
    assert "--allow-unchecked" in done.stdout
    assert CLOSING.match(done.stdout.splitlines()[-1]), done.stdout
    assert "nothing was checked" in done.stdout.splitlines()[-1]

    allowed = run_cli("run", spec, "--allow-unchecked")
    assert allowed.exit_code == 0, allowed.output
    assert "nothing was checked" in allowed.stdout  # still said, only not a failure


def test_the_library_decides_the_same_about_a_run_that_checked_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the embedded database is created here
    suite = assay.Suite("Unchecked", agent=lambda text: "a")
    suite.case("plain")
    refused = assay.evaluate(suite, progress=False)
    assert refused.verdict.unchecked and refused.verdict.exit_code == 1
    assert not refused.verdict.passed
    allowed = assay.evaluate(suite, progress=False, allow_unchecked=True)
    assert allowed.verdict.unchecked and allowed.verdict.exit_code == 0
    assert assay.run(suite, progress=False, allow_unchecked=True).summary is not None


JUDGED = """
    import assay_agents as assay
    from assay_agents import checks

    suite = assay.Suite("Judged", agent=lambda text: "a", checks=[checks.contains("a")])
    for number in range(7):
        suite.case(f"q{number}")
"""


def test_the_gate_line_names_the_figure_it_decided_on(run_cli, tmp_path):
    spec = _spec(tmp_path, JUDGED)

    def judge(body: dict) -> object:
        # One task is judged not completed: a judge failure, not a deterministic one.
        return verdict(0.0 if "q6" in str(body) else 1.0, "scripted")

    with ScriptedServer(judge) as server:
        done = run_cli(
            "run",
            spec,
            "--judge",
            "openai/judge-model",
            "--judge-base-url",
            server.base_url,
            "--gate",
            "min_pass_rate=0.9",
            env={"OPENAI_API_KEY": "test"},
        )
    assert "Passed 6/7 · 86%" in done.stdout, done.output
    assert "gate: passed · deterministic pass rate 100% ≥ 90%" in done.stdout
    assert "judge criteria are not in this figure" in done.stdout
    assert done.exit_code == 0
    assert done.stdout.splitlines()[-1].startswith("== 1 failed, 6 passed, 0 errors · gate passed")


def test_a_failed_gate_says_the_figure_below_its_threshold(run_cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Half", agent=lambda text: "a" if text == "q0" else "b",
                            checks=[checks.exact_match()])
        suite.case("q0", expected="a")
        suite.case("q1", expected="a")
    """,
    )
    done = run_cli("run", spec, "--gate", "min_pass_rate=0.9")
    assert done.exit_code == 1
    assert "gate: failed · deterministic pass rate 50% < 90%" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("== 1 failed, 1 passed, 0 errors · gate failed")


SLOW = """
    import sys
    import time

    import assay_agents as assay
    from assay_agents import checks


    def agent(text):
        # Holds its sample until a periodic progress line is in the log: the line must
        # come while work is in flight, whatever the speed of the machine.
        deadline = time.monotonic() + 60
        while "progress: 0/2 samples" not in sys.stderr.buffer.getvalue().decode():
            if time.monotonic() > deadline:
                raise RuntimeError("no progress line while a sample was in flight")
            time.sleep(0.005)
        return "a" if text == "q0" else "b"


    suite = assay.Suite("Slow", agent=agent, checks=[checks.exact_match()])
    suite.case("q0", expected="a")
    suite.case("q1", expected="a")
"""


def test_piped_a_run_says_it_is_alive_and_what_failed_as_it_goes(run_cli, tmp_path):
    spec = _spec(tmp_path, SLOW)
    done = run_cli("run", spec, "--concurrency", "1", env={"ASSAY_PROGRESS_INTERVAL": "0.001"})
    assert done.exit_code == 1, done.output
    log = done.stderr.splitlines()
    assert log[0] == "running Slow: 2 sample(s)"
    assert any(line.startswith("progress: 0/2 samples · 0 passed · 0 failed") for line in log)
    failure = "failed q1 #0: exact_match: expected 'a', got 'b'"
    assert failure in log
    # Written as it landed: before the run's own summary.
    assert done.output.index(failure) < done.output.index("Passed 1/2")
    assert CLOSING.match(done.stdout.splitlines()[-1]), done.stdout


def test_quiet_leaves_the_log_to_the_closing_line(run_cli, tmp_path):
    spec = _spec(
        tmp_path,
        """
        import assay_agents as assay
        from assay_agents import checks

        suite = assay.Suite("Quick", agent=lambda text: "b", checks=[checks.exact_match()])
        suite.case("q0", expected="a")
    """,
    )
    done = run_cli("run", spec, "--quiet", env={"ASSAY_PROGRESS_INTERVAL": "0.001"})
    assert done.exit_code == 1
    assert done.stderr == ""
    assert CLOSING.match(done.stdout.splitlines()[-1]), done.stdout


def test_a_progress_interval_that_is_not_a_number_of_seconds_is_refused(run_cli, tmp_path):
    spec = _spec(tmp_path, UNCHECKED)
    done = run_cli("run", spec, env={"ASSAY_PROGRESS_INTERVAL": "soon"})
    assert done.exit_code == 2
    assert "ASSAY_PROGRESS_INTERVAL='soon' is not a positive number of seconds" in done.stderr


PARTLY_PRICED = """
    import assay_agents as assay
    from assay_agents import checks


    def agent(text):
        usage = assay.Usage(100, 10, 0.000512, "reported") if text == "q0" else None
        return assay.Outcome(answer="yes", usage=usage)


    suite = assay.Suite("Priced", agent=agent, checks=[checks.contains("yes")])
    suite.case("q0")
    suite.case("q1")
"""


def test_a_cost_over_some_samples_reads_approximate_with_the_legend_once(run_cli, tmp_path):
    done = run_cli("run", _spec(tmp_path, PARTLY_PRICED))
    assert done.exit_code == 0, done.output
    assert "cost ~$0.000512" in done.stdout  # one of two samples priced, none estimated
    assert done.stdout.count("~ estimated from tokens × model rates") == 1
    assert "check score 100%" in done.stdout


def test_a_cost_over_every_sample_has_no_tilde_and_no_legend(run_cli, tmp_path):
    body = PARTLY_PRICED.replace('if text == "q0" else None', "")
    done = run_cli("run", _spec(tmp_path, body))
    assert done.exit_code == 0, done.output
    assert "cost $0.0010" in done.stdout  # two samples at $0.000512: four decimals from $0.001
    assert "~" not in done.stdout
