"""Which run a run is compared with, and why: as a user meets it on the command line.

Only a passing run is an automatic baseline; a team can pin one (``assay-agents baseline``) or
restrict the automatic one by run metadata (``--baseline-where``); every run says which
baseline it used and why, and ``assay-agents report`` says the same later. On both backends.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from assay_agents.cli.app import app
from assay_agents.results import Run, RunStatus
from assay_agents.store import Store

REPO = Path(__file__).resolve().parents[2]
SUPPORT = str(REPO / "examples" / "support_eval.py")
REGRESSED = {"AGENT_REVISION": "regressed"}
FIXED = {"AGENT_REVISION": ""}


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@pytest.fixture
def db(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A migrated, empty history on each backend, named with --db."""
    monkeypatch.chdir(tmp_path)
    done = invoke("db", "migrate", "--db", store_url)
    assert done.exit_code == 0, done.output
    return store_url


def run(db: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return invoke("run", SUPPORT, "--quiet", "--db", db, *args, env=env or FIXED)


def latest(db: str, *args: str) -> dict[str, Any]:
    done = invoke("report", *args, "--db", db, "--format", "json")
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def test_the_quick_start_regression_stays_caught_and_the_fix_compares_with_the_reference(
    db: str,
) -> None:
    reference = run(db, "--metadata", '{"revision": "reference"}')
    assert reference.exit_code == 0, reference.output
    reference_id = latest(db)["id"]
    assert "Baseline: none (this is the first run of suite 'Customer support')" in reference.output

    for attempt in (1, 2):
        regressed = run(
            db, "--fail-on-regression", "--metadata", '{"revision": "regressed"}', env=REGRESSED
        )
        assert regressed.exit_code == 1, (attempt, regressed.output)
        report = latest(db)
        assert report["baseline_id"] == reference_id, attempt
        assert report["comparison"]["signal_regressions"] > 0, attempt
        assert report["outcome"] == "regressed"
        assert f"Baseline: {reference_id[:8]} (latest passing run)" in regressed.output

    fixed = run(db, "--fail-on-regression", "--metadata", '{"revision": "fixed"}')
    assert fixed.exit_code == 0, fixed.output
    report = latest(db)
    assert report["baseline_id"] == reference_id
    assert report["comparison"]["changes"] == [] and report["outcome"] == "passed"
    assert "0 regression(s) (0 signal), 0 improvement(s)" in fixed.output


def test_a_regression_a_gate_allows_still_fails_the_next_equally_broken_run(db: str) -> None:
    # The gate lets 2 of 3 pass, so only --fail-on-regression can fail these runs.
    gate = ("--gate", "min_pass_rate=0.5", "--fail-on-regression")
    assert run(db, *gate).exit_code == 0
    first = run(db, *gate, env=REGRESSED)
    second = run(db, *gate, env=REGRESSED)
    assert first.exit_code == 1, first.output
    assert second.exit_code == 1, second.output
    assert latest(db)["comparison"]["signal_regressions"] == 2


def test_a_run_with_errored_or_failed_samples_is_never_the_automatic_baseline(db: str) -> None:
    assert run(db).exit_code == 0
    reference_id = latest(db)["id"]
    # Without --fail-on-regression the failed run is still not a baseline: it failed.
    assert run(db, env=REGRESSED).exit_code == 1
    assert latest(db)["outcome"] == "regressed"
    assert run(db).exit_code == 0
    assert latest(db)["baseline_id"] == reference_id


def test_a_pinned_baseline_wins_and_can_be_shown_and_cleared(db: str) -> None:
    assert run(db).exit_code == 0
    reference_id = latest(db)["id"]
    assert run(db, env=REGRESSED).exit_code == 1
    regressed_id = latest(db)["id"]

    pinned = invoke("baseline", "set", regressed_id[:8], "--db", db)
    assert pinned.exit_code == 0, pinned.output
    assert (
        f"Pinned run {regressed_id[:8]} as the baseline of suite 'Customer support' "
        "by agent 'SupportAgent'" in pinned.output
    )
    shown = invoke("baseline", "show", SUPPORT, "--db", db)
    assert shown.exit_code == 0, shown.output
    assert f"Baseline: {regressed_id[:8]} (pinned)" in shown.output
    by_name = invoke(
        "baseline", "show", "--suite", "Customer support", "--agent", "SupportAgent", "--db", db
    )
    assert by_name.output == shown.output
    listed = invoke("baseline", "show", "--db", db)
    assert "Customer support" in listed.output and regressed_id[:8] in listed.output

    again = run(db, env=REGRESSED)
    assert again.exit_code == 1
    assert f"Baseline: {regressed_id[:8]} (pinned)" in again.output
    assert latest(db)["baseline"]["reason"] == "pinned"
    assert latest(db)["comparison"]["changes"] == []

    cleared = invoke("baseline", "clear", SUPPORT, "--db", db)
    assert cleared.exit_code == 0, cleared.output
    assert (
        f"Baseline: {reference_id[:8]} (latest passing run)"
        in invoke("baseline", "show", SUPPORT, "--db", db).output
    )
    assert "no pinned baseline" in invoke("baseline", "clear", SUPPORT, "--db", db).output
    assert "No pinned baselines." in invoke("baseline", "show", "--db", db).output


def test_pinning_a_missing_or_unfinished_run_exits_2_and_changes_nothing(db: str) -> None:
    assert run(db).exit_code == 0
    missing = invoke("baseline", "set", "feedbeef", "--db", db)
    assert missing.exit_code == 2 and "feedbeef" in missing.output, missing.output
    refused = invoke("baseline", "set", _interrupted_run(db), "--db", db)
    assert refused.exit_code == 2, refused.output
    assert "is interrupted, not completed" in refused.output
    assert "No pinned baselines." in invoke("baseline", "show", "--db", db).output


def _interrupted_run(db: str) -> str:
    """A run of the support suite left interrupted, as a crash leaves one."""
    with Store.open(db) as store:
        run = store.create_run(
            Run(
                id="0badc0de-0000-4000-8000-000000000000",
                suite="Customer support",
                agent="SupportAgent",
                fingerprint="fp",
                status=RunStatus.RUNNING,
                started_at=datetime.now(UTC),
            )
        )
        store.mark_interrupted(run.id, finished_at=datetime.now(UTC), error="stopped")
    return run.id


def test_the_automatic_baseline_can_be_restricted_by_run_metadata(db: str) -> None:
    assert run(db, "--metadata", '{"branch": "main", "pr": 7}').exit_code == 0
    main_id = latest(db)["id"]
    assert run(db, "--metadata", '{"branch": "feature"}').exit_code == 0
    feature_id = latest(db)["id"]

    on_main = run(db, "--baseline-where", "branch=main", "--baseline-where", "pr=7")
    assert on_main.exit_code == 0, on_main.output
    assert f"Baseline: {main_id[:8]} (latest passing run where branch=main, pr=7)" in on_main.output
    assert latest(db)["baseline"] == {
        "reason": "latest_passing",
        "run_id": main_id,
        "where": {"branch": "main", "pr": "7"},
        "note": None,
        "hint": None,
    }
    assert run(db).exit_code == 0
    assert latest(db)["baseline_id"] != feature_id  # the run just before: on_main's

    nowhere = run(db, "--baseline-where", "branch=release")
    assert nowhere.exit_code == 0
    assert (
        "Baseline: none (no earlier passing run of this suite and agent where branch=release"
    ) in nowhere.output
    bad = run(db, "--baseline-where", "branch")
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


def test_the_project_configuration_restricts_the_automatic_baseline(
    db: str, tmp_path: Path
) -> None:
    (tmp_path / "assay.toml").write_text('baseline_where = { branch = "main" }\n', encoding="utf-8")
    assert run(db, "--metadata", '{"branch": "main"}').exit_code == 0
    main_id = latest(db)["id"]
    assert run(db, "--metadata", '{"branch": "feature"}').exit_code == 0
    done = run(db)
    assert f"Baseline: {main_id[:8]} (latest passing run where branch=main)" in done.output
    # A flag replaces the configuration's restriction.
    flagged = run(db, "--baseline-where", "branch=feature")
    assert "(latest passing run where branch=feature)" in flagged.output


def test_a_report_rebuilt_later_says_which_baseline_and_why(db: str) -> None:
    first = run(db)
    assert first.exit_code == 0
    first_id = latest(db)["id"]
    text = invoke("report", first_id, "--db", db).output
    assert "Baseline: none (this is the first run of suite 'Customer support')" in text
    assert "No compatible baseline" not in text
    assert run(db).exit_code == 0
    second = latest(db)
    text = invoke("report", second["id"], "--db", db).output
    assert f"Baseline: {first_id[:8]} (latest passing run)" in text
    markdown = invoke("report", second["id"], "--db", db, "--format", "markdown").output
    assert f"Baseline: {first_id[:8]} (latest passing run)" in markdown
    assert run(db).exit_code == 0
    third_id = latest(db)["id"]
    explicit = invoke("report", third_id, "--db", db, "--baseline", first_id).output
    assert f"Baseline: {first_id[:8]} (explicit --baseline)" in explicit
    stored = invoke("report", third_id, "--db", db, "--baseline", second["id"]).output
    assert f"Baseline: {second['id'][:8]} (latest passing run)" in stored
