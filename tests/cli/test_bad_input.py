"""Bad input exits 2 with a clear message, runs no agent and changes nothing stored."""

import os

import pytest


def markers(path):
    return sorted(p.name for p in path.iterdir())


@pytest.fixture
def marker_env(tmp_path):
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder, {"MARKER_DIR": str(folder)}


def test_spec_errors_name_the_file_case_and_field(cli, specs):
    missing = cli("run", "nowhere.py")
    assert missing.returncode == 2 and "nowhere.py" in missing.stderr
    empty = cli("run", specs / "no_suite.py")
    assert empty.returncode == 2 and "defines no assay.Suite" in empty.stderr
    invalid = cli("run", specs / "invalid_case.py")
    assert invalid.returncode == 2
    assert "invalid_case.py" in invalid.stderr
    assert "bad threshold" in invalid.stderr
    assert "minimum_scores.semantic_accuracy" in invalid.stderr
    assert "(line 5)" in invalid.stderr


def test_bad_options_exit_2_before_any_agent_runs(cli, marker_env, specs):
    folder, env = marker_env
    spec = specs / "marker_agent.py"
    for args in (
        ["--metadata", "[1]"],
        ["--metadata", "{oops"],
        ["--baseline", "nosuchrun"],
        ["--report", "report.pdf"],
        ["--samples", "0"],
        ["--tolerance", "2"],
    ):
        done = cli("run", spec, *args, env=env)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert markers(folder) == [], args
    assert not (cli.cwd / "report.pdf").exists()


def test_incompatible_baseline_is_refused_before_the_agent_runs(
    cli, support_spec, marker_env, specs
):
    folder, env = marker_env
    cli("run", support_spec)
    other = cli.json_report()["id"]
    refused = cli("run", specs / "marker_agent.py", "--baseline", other, env=env)
    assert refused.returncode == 2 and "is a run of suite 'Customer support'" in refused.stderr
    assert markers(folder) == []
    history = cli("history")
    assert history.stdout.count("Marker") == 0  # no run row was created either


def test_report_of_unknown_run_and_unknown_format(cli, support_spec):
    assert cli("report").returncode == 2  # empty store
    cli("run", support_spec)
    unknown = cli("report", "zzzzzzzz")
    assert unknown.returncode == 2 and "zzzzzzzz" in unknown.stderr
    bad_format = cli("report", "--format", "pdf")
    assert bad_format.returncode == 2 and "pdf" in bad_format.stderr
    before = cli.json_report()
    assert cli("report", "--output", "x.docx").returncode == 2
    assert cli.json_report() == before


def test_unreachable_database_names_the_url_without_its_password(cli, support_spec):
    url = "postgresql://assay:hunter2@127.0.0.1:1/assay"
    done = cli("run", support_spec, "--db", url)
    assert done.returncode == 2
    assert "127.0.0.1:1" in done.stderr and "hunter2" not in done.stderr
    via_env = cli("history", env={"ASSAY_DATABASE_URL": url})
    assert via_env.returncode == 2 and "hunter2" not in via_env.stderr


@pytest.mark.process  # a real Ctrl-C
def test_interrupted_run_is_kept_and_resumed(cli, marker_env, specs, assay_executable):
    import shlex
    import signal
    import subprocess
    import time

    folder, env = marker_env
    spec = specs / "slow_agent.py"
    environment = {**os.environ, **env}
    environment.pop("ASSAY_DATABASE_URL", None)
    process = subprocess.Popen(
        [assay_executable, "run", str(spec)],
        cwd=cli.cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = folder / "calls.log"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().split()) >= 3:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stdout + stderr
    hint = shlex.split(stderr.strip().splitlines()[-1])
    # The program as invoked, so the hint works when pasted without an activated venv.
    assert hint[0] in {"assay-agents", assay_executable} and hint[1] == "run"
    assert hint[-2:] == ["--resume", cli.json_report()["id"]]
    interrupted = cli.json_report()
    assert interrupted["status"] == "interrupted"
    done_before = {s["case_id"] for s in interrupted["samples"]}
    assert 2 <= len(done_before) < 6

    resumed = cli("run", spec, "--resume", interrupted["id"][:8], env=env)
    assert resumed.returncode == 0, resumed.stderr
    final = cli.json_report()
    assert final["id"] == interrupted["id"] and final["status"] == "completed"
    assert sorted(s["case_id"] for s in final["samples"]) == [f"t{i}" for i in range(6)]
    calls = log.read_text().split()
    # Stored samples were not run again: only the missing ones (and the one cut short).
    assert all(calls.count(case) == 1 for case in done_before)
    again = cli("run", spec, "--resume", interrupted["id"], env=env)
    assert again.returncode == 2 and "read-only" in again.stderr
