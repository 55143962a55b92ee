from datetime import UTC, datetime

import pytest

from assay.compare import ChangeKind, RunComparison, compare_runs
from assay.results import MetricResult, Run, RunStatus, SampleResult, decide_status


def metric(name, score, threshold=0.9, error=None, kind="judge"):
    return MetricResult(name, kind, "judge" if kind == "judge" else "content", threshold,
                        score, error is None and score >= threshold, "r", error)


def run(run_id, *samples):
    return Run(run_id, "S", "A", "f", RunStatus.COMPLETED, datetime(2026, 1, 1, tzinfo=UTC),
               samples=tuple(samples))


def sample(case, *metrics, error=None):
    return SampleResult(case, None, 0, decide_status(error, metrics), error=error,
                        metrics=tuple(metrics))


def kinds(comparison):
    return [(c.case_id, c.metric, c.kind) for c in comparison.changes]


def test_score_decrease_beyond_tolerance_regresses_even_when_both_pass():
    before = run("b", sample("q", metric("semantic_accuracy", 0.98)))
    after = run("c", sample("q", metric("semantic_accuracy", 0.92)))
    strict = compare_runs(before, after, tolerance=0.02)
    assert kinds(strict) == [("q", "semantic_accuracy", ChangeKind.SCORE_DECREASE)]
    assert strict.regressions[0].before == 0.98 and strict.regressions[0].after == 0.92
    assert compare_runs(before, after, tolerance=0.1).changes == ()


def test_tolerance_never_hides_a_new_failure_or_error():
    before = run("b", sample("q", metric("m", 0.91)), sample("e", metric("m", 1.0)))
    after = run("c", sample("q", metric("m", 0.89)), sample("e", metric("m", 0.0, error="boom")))
    comparison = compare_runs(before, after, tolerance=0.5)
    assert kinds(comparison) == [("q", "m", ChangeKind.NEWLY_FAILED),
                                 ("e", "m", ChangeKind.NEW_ERROR)]


def test_new_agent_error_is_a_regression():
    before = run("b", sample("q", metric("m", 1.0)))
    after = run("c", sample("q", error="RuntimeError: down"))
    comparison = compare_runs(before, after)
    assert kinds(comparison) == [("q", "(agent)", ChangeKind.NEW_ERROR)]
    assert comparison.regressions[0].detail == "RuntimeError: down"


def test_improvements_are_reported_but_are_not_regressions():
    before = run("b", sample("q", metric("m", 0.5)))
    after = run("c", sample("q", metric("m", 1.0)))
    comparison = compare_runs(before, after)
    assert kinds(comparison) == [("q", "m", ChangeKind.IMPROVEMENT)]
    assert comparison.regressions == ()


@pytest.mark.parametrize("tolerance", [0.0, 0.25])
def test_round_trip(tolerance):
    before = run("b", sample("q", metric("m", 1.0)))
    after = run("c", sample("q", metric("m", 0.5)))
    comparison = compare_runs(before, after, tolerance=tolerance)
    assert RunComparison.from_json(comparison.to_json()) == comparison
