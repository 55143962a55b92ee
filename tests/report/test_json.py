"""The JSON report: the run snapshot at the top level, plus the comparison."""

from __future__ import annotations

import json
from dataclasses import replace

from assay.compare import compare_runs
from assay.report import Report
from assay.results import Run

TOP_LEVEL = {"id", "sequence", "suite", "suite_version", "agent", "fingerprint", "status",
             "started_at", "finished_at", "settings", "metadata", "baseline_id", "summary",
             "cases", "samples", "comparison"}


def test_top_level_is_the_run_snapshot(current_run: Run, baseline_run: Run) -> None:
    data = json.loads(Report(current_run, baseline=baseline_run).to_json())
    assert set(data) == TOP_LEVEL
    assert {key: data[key] for key in current_run.snapshot()} == json.loads(
        json.dumps(current_run.snapshot()))
    assert data["id"] == "run-0002"
    assert data["fingerprint"] == current_run.fingerprint  # in full, unlike the text report
    assert data["status"] == "completed"
    assert data["started_at"] == "2025-03-16T09:30:00+00:00"


def test_summary_samples_and_metrics(current_run: Run) -> None:
    data = Report(current_run).to_dict()
    summary = data["summary"]
    assert (summary["passed"], summary["failed"], summary["errors"],
            summary["not_evaluated"]) == (1, 1, 1, 0)
    assert summary["pass_rate"] == 1 / 3
    assert [s["case_id"] for s in data["samples"]] == ["order-status", "refund", "escalation"]
    refund = data["samples"][1]
    assert {"case_id", "model", "sample", "status", "answer", "actions", "metrics"} <= set(refund)
    assert refund["status"] == "failed"
    metric = refund["metrics"][0]
    assert {"name", "kind", "score", "threshold", "passed", "reason", "error"} <= set(metric)
    assert (metric["name"], metric["kind"], metric["passed"]) == ("exact_match", "check", False)
    assert data["samples"][2]["actions"] is None


def test_comparison_against_baseline(current_run: Run, baseline_run: Run) -> None:
    data = json.loads(Report(current_run, baseline=baseline_run, tolerance=0.02).to_json())
    comparison = data["comparison"]
    assert comparison["baseline_id"] == "run-0001"
    assert comparison["tolerance"] == 0.02
    assert comparison["items_compared"] == 3
    assert comparison["regressions"] == 4
    kinds = {(c["case_id"], c["metric"]): c["kind"] for c in comparison["changes"]}
    assert kinds[("refund", "exact_match")] == "newly_failed"
    assert kinds[("escalation", "(agent)")] == "new_error"


def test_no_baseline_means_null_comparison(current_run: Run) -> None:
    assert Report(current_run).to_dict()["comparison"] is None


def test_stored_comparison_is_used(current_run: Run, baseline_run: Run) -> None:
    stored = compare_runs(baseline_run, current_run).to_json()
    report = Report(replace(current_run, comparison=stored, baseline_id="run-0001"))
    assert report.comparison is not None
    assert report.to_dict()["comparison"] == stored
    assert report.to_dict()["baseline_id"] == "run-0001"
    assert "Baseline run-0001: 3 item(s) compared, 4 regression(s)" in report.to_text()


def test_explicit_baseline_wins_over_stored(current_run: Run, baseline_run: Run) -> None:
    stored = compare_runs(baseline_run, current_run).to_json()
    report = Report(replace(current_run, comparison=stored), baseline=current_run)
    assert report.comparison is not None
    assert report.comparison.baseline_id == "run-0002"
    assert report.comparison.regressions == ()


def test_running_run_has_null_summary(running_run: Run) -> None:
    data = json.loads(Report(running_run).to_json())
    assert data["summary"] is None
    assert data["finished_at"] is None


def test_non_ascii_is_kept(current_run: Run) -> None:
    text = Report(replace(current_run, suite="Rückerstattung für Kunden")).to_json()
    assert "Rückerstattung für Kunden" in text
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False)
