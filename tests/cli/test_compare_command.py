"""`assay-agents compare` and `assay-agents control` as a user runs them: the real script."""

import json
import re


def run_id(cli):
    return cli.json_report()["id"]


def two_runs(cli, spec, before_env, after_env, *extra):
    first = cli("run", spec, "-q", env=before_env)
    assert first.returncode in (0, 1), first.stderr
    before = run_id(cli)
    # Named: a first run with failed samples is never the automatic baseline.
    second = cli("run", spec, "-q", "--baseline", before, *extra, env=after_env)
    assert second.returncode in (0, 1), second.stderr
    return before, run_id(cli), second


def test_two_of_three_edited_withholds_the_headline_and_the_ceiling_brings_it_back(cli, specs):
    before, after, _ = two_runs(
        cli, specs / "corpus.py", {}, {"EDITED": "warranty,shipping", "AGENT": "broken"}
    )
    text = cli("compare", before, after)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "1 of 3 paired item(s) compared, 2 excluded (67% of the paired corpus)"
    assert lines[1].startswith(
        "NO HEADLINE FIGURE: 67% of the paired corpus was excluded, above the 10% ceiling"
    )
    assert "Pass rate" not in text.stdout
    assert not re.search(r"[+\N{MINUS SIGN}]\d+ points", text.stdout)  # no headline delta

    as_json = cli("compare", before, after, "--format", "json")
    data = json.loads(as_json.stdout)
    assert next(iter(data)) == "summary" and data["summary"] == lines[0]
    assert list(data).index("excluded") < list(data).index("changes")
    assert data["headline"]["status"] == "withheld"
    assert "pass_rate" not in as_json.stdout and '"delta"' not in as_json.stdout

    raised = cli("compare", before, after, "--max-excluded-share", "0.7", "--format", "json")
    assert json.loads(raised.stdout)["headline"]["delta"] == -1.0
    raised_text = cli("compare", before, after, "--max-excluded-share", "0.7")
    assert (
        "Pass rate over the compared items: 1/1 · 100% → 0/1 · 0% (−100 points, "
        "unmeasured)" in raised_text.stdout
    )
    gated = cli("compare", before, after, "--fail-on-regression")
    assert gated.returncode == 1 and "1 signal regression(s)" in gated.stderr


def test_derived_authored_and_recorded_parts(cli, specs):
    before, after, _ = two_runs(
        cli, specs / "corpus.py", {}, {"SETUP": "2", "REFERENCE": "It takes thirty days."}
    )
    markdown = cli("compare", before, after, "--format", "markdown", "--max-excluded-share", "0.7")
    assert markdown.returncode == 0, markdown.stderr
    body = markdown.stdout.split("\n\n")
    assert body[0] == f"# Assay comparison: `{before}` → `{after}`"
    assert body[1] == "**1 of 3 paired item(s) compared, 2 excluded (67% of the paired corpus)**"
    assert body[2].startswith("**CORPUS DEFECT: shipping: recorded part(s) reference differ")
    assert body[3].startswith("**Pass rate over the compared items: 1/1 (100%) → 1/1 (100%)")
    assert "| warranty | broken pairing | setup (authored) |" in markdown.stdout
    assert "### Intended changes (1)" in markdown.stdout
    assert "| returns | intended change | setup (derived) |" in markdown.stdout
    assert "regression" not in markdown.stdout.split("### Excluded")[1].lower()


def test_a_control_floor_of_a_quarter_excuses_exactly_a_quarter(cli, specs):
    spec = specs / "flaky.py"
    before, after, run = two_runs(cli, spec, {}, {"CALL_OFFSET": "4"}, "--fail-on-regression")
    assert "unmeasured" in run.stdout and "regression gate: failed" in run.stdout
    unmeasured = cli("compare", before, after, "--fail-on-regression")
    assert unmeasured.returncode == 1 and "unmeasured" in unmeasured.stdout

    control = cli("control", spec, "-q")
    assert control.returncode == 0, control.stderr
    assert control.stdout.splitlines()[-1].endswith(
        ": pass rate 25 points, contains 25 points; moved: returns 3/4 → 2/4"
    )
    assert "TOO FLAKY" not in control.stdout

    # The very same two runs, now with a floor measured for their definition.
    measured = cli("compare", before, after, "--fail-on-regression")
    assert measured.returncode == 0, measured.stdout
    assert "(−25 points, within noise)" in measured.stdout
    reported = cli("report", after, "--baseline", before)
    assert reported.returncode == 0 and "(−25 points, within noise)" in reported.stdout
    assert "within noise" in measured.stdout.split("Deterministic regressions (1):")[1]
    again = cli(
        "run", spec, "-q", "--fail-on-regression", "--baseline", before, env={"CALL_OFFSET": "4"}
    )
    # Samples failed (exit 1 regardless), but the gate found nothing beyond the noise.
    assert again.returncode == 1 and "regression gate" not in again.stdout
    flaky = cli("compare", before, after, "--flaky-share", "0.2")
    assert "TOO FLAKY TO MEASURE" in flaky.stdout.splitlines()[1]


def test_seed_example_judge_drift_beyond_both_tolerances_gates_when_unmeasured(cli, specs):
    spec = specs / "judged.py"
    assert cli("run", spec, "-q").returncode == 0
    drifted = cli(
        "run",
        spec,
        "-q",
        "--tolerance",
        "0.02",
        "--fail-on-regression",
        env={"JUDGE_SCORE": "0.92"},
    )
    assert drifted.returncode == 1
    assert "Judge drift (same deterministic behaviour) (1):" in drifted.stdout
    assert "regression gate: failed" in drifted.stdout
    report = cli.json_report()
    assert [c["kind"] for c in report["comparison"]["changes"]] == ["judge_drift"]
    # 0.92 → 0.90 with --tolerance 0: within the default drift tolerance, nothing to report.
    # (The drifted run regressed, so it is named: it is never the automatic baseline.)
    breathing = cli(
        "run",
        spec,
        "-q",
        "--fail-on-regression",
        "--baseline",
        report["id"],
        env={"JUDGE_SCORE": "0.90"},
    )
    assert breathing.returncode == 0, breathing.stdout
    assert "0 regression(s)" in breathing.stdout
    strict = cli(
        "run",
        spec,
        "-q",
        "--fail-on-regression",
        "--drift-tolerance",
        "0.01",
        env={"JUDGE_SCORE": "0.92"},
    )
    assert strict.returncode == 0 and "Judge drift" in strict.stdout  # it rose: news, no gate


def test_bad_input_exits_2(cli, specs):
    nowhere = cli("compare", "nosuch", "other")
    assert nowhere.returncode == 2 and "no Assay history here" in nowhere.stderr
    assert not (cli.cwd / ".assay").exists()  # a reading command never creates one
    cli("run", specs / "flaky.py", "-q")
    missing = cli("compare", "nosuch", "other")
    assert missing.returncode == 2 and "no run" in missing.stderr
    known = run_id(cli)
    assert cli("compare", known, known, "--format", "html").returncode == 2
    assert cli("compare", known, known, "--max-excluded-share", "2").returncode == 2
    assert cli("control", specs / "no_suite.py").returncode == 2


def test_control_refuses_a_file_suite_without_an_agent(cli):
    pasted = cli.cwd / "pasted.txt"
    pasted.write_text("Where is my order?\n", encoding="utf-8")
    done = cli("control", pasted)
    assert done.returncode == 2 and "names no agent to run" in done.stderr
    assert cli("history").stdout.startswith("No runs yet")


def test_compare_refuses_an_unfinished_run(cli, support_spec, crash_after):
    import pytest

    import assay_agents as assay
    from assay_agents import checks

    assert cli("run", support_spec).returncode == 0
    done = cli.json_report()["id"]
    suite = assay.Suite("Unfinished", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("a")
    suite.case("b")
    with assay.Store.open(f"sqlite:///{cli.cwd}/.assay/assay.db") as store:
        with pytest.raises(assay.IncompleteRunError):
            assay.run(suite, db=store, concurrency=1, progress=crash_after(1))
        unfinished = store.latest_run().id
    refused = cli("compare", done, unfinished)
    assert refused.returncode == 2 and "not completed" in refused.stderr
    report = cli("report", done, "--baseline", unfinished)
    assert report.returncode == 2 and "not completed" in report.stderr
