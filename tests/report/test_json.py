"""The JSON report: the run snapshot at the top level, plus the comparison."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from assay_agents.compare import StoredComparison, compare_models, compare_runs
from assay_agents.record import snapshot, write_comparison
from assay_agents.report import Report, prose
from assay_agents.results import Run

TOP_LEVEL = {
    "schema_version",
    "id",
    "sequence",
    "suite",
    "suite_version",
    "agent",
    "fingerprint",
    "status",
    "started_at",
    "finished_at",
    "settings",
    "metadata",
    "baseline_id",
    "baseline",
    "outcome",
    "error",
    "summary",
    "cases",
    "samples",
    "comparison",
    "rate_limits",
    "model_comparison",
    "verdict",
    "judge_usage",
    "fix_items",
    "behaviours",
    "display",
}


def test_top_level_is_the_run_snapshot(current_run: Run, baseline_run: Run) -> None:
    data = json.loads(Report(current_run, baseline=baseline_run).to_json())
    assert set(data) == TOP_LEVEL
    own = {key for key in snapshot(current_run) if key not in ("baseline", "baseline_id")}
    assert {key: data[key] for key in own} == {
        key: value
        for key, value in json.loads(json.dumps(snapshot(current_run))).items()
        if key in own
    }
    # The baseline it is compared with, as the comparison and the text report name it.
    assert data["baseline_id"] == data["comparison"]["baseline_id"] == "run-0001"
    assert data["baseline"]["reason"] == "explicit"
    assert data["id"] == "run-0002"
    assert data["fingerprint"] == current_run.fingerprint  # in full, unlike the text report
    assert data["status"] == "completed"
    assert data["started_at"] == "2025-03-16T09:30:00+00:00"


def test_summary_samples_and_metrics(current_run: Run) -> None:
    data = Report(current_run).to_dict()
    summary = data["summary"]
    assert (summary["passed"], summary["failed"], summary["errors"], summary["not_evaluated"]) == (
        1,
        1,
        1,
        0,
    )
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
    assert next(iter(comparison)) == "summary"
    assert comparison["summary"].startswith("3 of 3 paired item(s) compared, 0 excluded")
    assert comparison["baseline_id"] == "run-0001"
    assert comparison["policy"]["tolerance"] == 0.02
    assert comparison["policy"]["drift_tolerance"] == 0.025
    assert comparison["pairing"]["compared"] == 3
    assert comparison["headline"]["delta"] == 1 / 3 - 1
    assert (comparison["regressions"], comparison["signal_regressions"]) == (4, 4)
    kinds = {(c["case_id"], c["metric"]): c["kind"] for c in comparison["changes"]}
    assert kinds[("refund", "exact_match")] == "deterministic_regression"
    assert kinds[("escalation", "(agent)")] == "new_error"
    assert {c["noise"] for c in comparison["changes"]} == {"unmeasured"}


def test_no_baseline_means_null_comparison(current_run: Run) -> None:
    assert Report(current_run).to_dict()["comparison"] is None


def test_stored_comparison_is_used(current_run: Run, baseline_run: Run) -> None:
    stored = StoredComparison(compare_runs(baseline_run, current_run), None)
    report = Report(replace(current_run, comparison=stored, baseline_id="run-0001"))
    assert report.comparison is not None
    written = report.to_dict()["comparison"]
    # The stored figures, with the sentences the report writes: the pairing, each detail.
    figures = write_comparison(stored)["baseline"]
    assert written == {
        "summary": prose.pairing_line(report.comparison),
        **figures,
        "changes": [
            {**change, "detail": prose.change_detail(typed)}
            for change, typed in zip(figures["changes"], report.comparison.changes, strict=True)
        ],
    }
    assert all(change["detail"] for change in written["changes"])
    assert report.to_dict()["baseline_id"] == "run-0001"
    assert "Baseline run-0001: 4 regression(s) (4 signal)" in report.to_text()


def test_explicit_baseline_wins_over_stored(current_run: Run, baseline_run: Run) -> None:
    stored = StoredComparison(compare_runs(baseline_run, current_run), None)
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


def test_stored_model_intervals_are_rendered_not_resampled(current_run: Run) -> None:
    two_models = replace(
        current_run,
        samples=tuple(
            replace(sample, model=model)
            for sample in current_run.samples
            for model in ("model-a", "model-b")
        ),
    )
    computed = compare_models(two_models)
    # A stored comparison marked so that a recomputation could not produce it.
    marked = replace(computed, seed=41, resamples=1234)
    report = Report(replace(two_models, comparison=StoredComparison(None, marked)))
    assert report.model_comparison == marked
    assert report.to_dict()["model_comparison"]["resamples"] == 1234
    assert "1,234 resamples" in report.to_text() and "1,234 resamples" in report.to_markdown()
    assert Report(two_models).model_comparison == computed


def test_a_single_model_run_has_no_model_comparison(current_run: Run) -> None:
    assert Report(current_run).to_dict()["model_comparison"] is None


def test_figures_keep_their_numbers_and_carry_the_text_every_report_writes(
    current_run: Run,
) -> None:
    data = Report(current_run).to_dict()
    summary, display = data["summary"], data["display"]
    # The numbers stay 0..1 and USD; the display strings are the reports' own.
    assert summary["check_score"] == pytest.approx(5 / 12)
    assert display["summary"]["pass_rate"] == "1/3 · 33%"
    assert display["summary"]["check_score"] == "42%"
    # Like every other rate of samples: how many of how many, then the percentage.
    assert display["summary"]["check_pass_rate"] == "1/3 · 33%"
    assert display["summary"]["cost"] == "~$0.0246"
    assert display["summary"]["cost_per_1000"] == "~$12.2865"
    assert display["summary"]["judge_cost"] == "$0.000200"
    assert display["summary"]["latency_p95"] == "30.00 s"
    assert display["summary"]["criteria"]["semantic_accuracy"] == {
        "mean": "90%",
        "passed": "1/1 · 100%",
        "vote_spread": "0.1",
    }
    assert display["models"]["openai/gpt-4o-mini"]["check_score"] == "42%"
    assert (
        display["legend"] == "~ estimated from tokens × model rates, or covering only some samples"
    )
    text = Report(current_run).to_text()
    assert "Check score:   42%" in text and "~$0.0246" in text


def test_without_an_approximate_figure_the_json_has_no_legend(baseline_run: Run) -> None:
    display = Report(baseline_run).to_dict()["display"]
    assert display["legend"] is None
    assert display["summary"]["cost"] == "$0.000843"
