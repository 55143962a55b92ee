"""Judges from the command line: --judge/--judge-base-url/--votes, and the judged example."""

from pathlib import Path

from assay_agents.testing import ScriptedServer, failure, slow, verdict

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judged_eval.py"


def test_judge_flag_grades_the_support_suite_over_http(cli, support_spec):
    with ScriptedServer(lambda body: verdict(0.95, "Same facts.")) as server:
        done = cli(
            "run",
            support_spec,
            "--judge",
            "openai/judge-model",
            "--judge-base-url",
            server.base_url,
            "--votes",
            "2",
            env={"OPENAI_API_KEY": "test"},
        )
        calls = len(server.requests)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Judge: answer_relevancy 95%" in done.stdout
    assert calls == 3 * 2 * 2  # cases × criteria × votes
    report = cli.json_report()
    assert report["settings"]["judge"] == "openai/judge-model @ 127.0.0.1"
    metrics = {m["name"]: m for m in report["samples"][0]["metrics"]}
    assert metrics["semantic_accuracy"]["kind"] == "judge"
    assert len(metrics["semantic_accuracy"]["votes"]) == 2
    assert report["summary"]["judge_calls"] == 12


def test_judge_retries_are_log_lines_and_attempts_are_counted(cli, support_spec):
    answered = []

    def script(body):
        answered.append(body)
        return failure(429, retry_after=0) if len(answered) == 1 else verdict(1, "ok")

    with ScriptedServer(script) as server:
        done = cli(
            "run",
            support_spec,
            "--judge",
            "openai/judge-model",
            "--judge-base-url",
            server.base_url,
            "--concurrency",
            "1",
            env={"OPENAI_API_KEY": "test"},
        )
    assert done.returncode == 0, done.stdout + done.stderr
    waits = [line for line in done.stderr.splitlines() if line.startswith("waiting ")]
    assert waits == ["waiting 0 s, rate limited (judge judge-model); HTTP 429, attempt 2 of 4"]
    assert "6 calls (7 attempts)" in done.stdout
    assert cli.json_report()["summary"]["judge_attempts"] == 7


def test_judge_timeout_bounds_a_hanging_judge(cli, support_spec):
    # The endpoint answers after ten minutes: any verdict would mean it was waited for.
    with ScriptedServer(lambda body: slow(verdict(1, "too late"), 600.0)) as server:
        done = cli(
            "run",
            support_spec,
            "--judge",
            "openai/judge-model",
            "--judge-base-url",
            server.base_url,
            "--judge-timeout",
            "1",
            env={"OPENAI_API_KEY": "test"},
        )
    assert done.returncode == 1, done.stdout + done.stderr
    metric = cli.json_report()["samples"][0]["metrics"][-1]
    assert metric["kind"] == "judge" and metric["score"] is None
    assert "judge timeout of 1 s" in metric["error"] and "--judge-timeout" in metric["error"]


def test_a_judged_run_does_not_take_an_unjudged_baseline(cli, support_spec):
    assert cli("run", support_spec).returncode == 0
    with ScriptedServer(lambda body: verdict(1, "ok")) as server:
        done = cli(
            "run", support_spec, "--judge", "judge-model", "--judge-base-url", server.base_url
        )
    assert done.returncode == 0
    assert (
        "no earlier passing run of this suite and agent graded by judge "
        "'judge-model @ 127.0.0.1'" in done.stdout
    )


def test_judge_base_url_without_judge_is_refused(cli, support_spec):
    done = cli("run", support_spec, "--judge-base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2 and "--judge" in done.stderr


def test_the_judged_example_runs_offline(cli):
    done = cli("run", EXAMPLE, "--votes", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    report = cli.json_report()
    sample = report["samples"][0]
    assert [a["name"] for a in sample["actions"]] == ["lookup_policy"]
    assert sample["actions"][0]["group"] == "policies"
    assert {m["name"] for m in sample["metrics"]} == {
        "contains",
        "actions",
        "semantic_accuracy",
        "answer_relevancy",
    }
    assert report["summary"]["judge"]["semantic_accuracy"]["mean"] == 1.0


def test_judge_timeout_applies_to_the_suites_own_judge_without_judge_flag():
    from assay_agents import judges
    from assay_agents.cli._common import judge_option

    own = judges.openai("judge-model", base_url="http://127.0.0.1:9/v1")
    assert judge_option(None, None, 5.0, own).judge_timeout == 5.0
    assert judge_option(None, None, None, own) is None  # the suite's judge stands as it is
    assert judge_option("openai/judge-model", None, 2.0).judge_timeout == 2.0
    assert judge_option("openai/judge-model", None).judge_timeout == judges.DEFAULT_JUDGE_TIMEOUT


def test_judge_base_url_is_refused_when_the_suite_keeps_its_own_judge(cli, tmp_path):
    # The configuration names a judge, but the suite has its own: the URL would point nothing.
    (tmp_path / "assay.toml").write_text('judge = "openai/judge-model"\n', encoding="utf-8")
    done = cli("run", EXAMPLE, "--judge-base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--judge-base-url" in done.stderr and "own judge" in done.stderr
