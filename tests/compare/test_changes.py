"""Change kinds: deterministic regressions apart from judge drift, tolerances that never hide
a new failure or error."""

from compare_builders import metric, run, sample

from assay_agents.compare import ChangeKind, NoiseLabel, compare_runs
from assay_agents.report import prose


def kinds(comparison):
    return [(c.case_id, c.metric, c.kind) for c in comparison.changes]


def judged(judge_score, *, check_score=1.0, case="q"):
    return sample(
        case,
        metric("contains", check_score),
        metric("semantic_accuracy", judge_score, kind="judge"),
    )


def test_seed_example_judge_falls_with_the_same_behaviour_is_drift_and_unmeasured_gates():
    before, after = run("b", judged(0.98)), run("c", judged(0.92))
    comparison = compare_runs(before, after, tolerance=0.02)
    assert kinds(comparison) == [("q", "semantic_accuracy", ChangeKind.JUDGE_DRIFT)]
    drift = comparison.judge_drift[0]
    assert (drift.before, drift.after) == (0.98, 0.92)
    assert drift.noise is NoiseLabel.UNMEASURED
    assert comparison.signal_regressions == (drift,)
    assert (drift.tolerance, drift.drift_tolerance) == (0.02, 0.025)
    assert prose.change_detail(drift) == (
        "same deterministic behaviour; the judge score fell by 6 points, "
        "beyond tolerance 2 points and drift tolerance 2.5 points"
    )
    assert compare_runs(before, after, tolerance=0.1).changes == ()


def test_drift_tolerance_is_independent_of_the_tolerance():
    steady = run("b", judged(0.95))
    assert compare_runs(steady, run("c", judged(0.93))).changes == ()  # 0.02 < 0.025
    moved = compare_runs(steady, run("c", judged(0.92)))  # 0.03 > 0.025, tolerance 0
    assert kinds(moved) == [("q", "semantic_accuracy", ChangeKind.JUDGE_DRIFT)]
    assert compare_runs(steady, run("c", judged(0.92)), drift_tolerance=0.05).changes == ()
    # A check score is held to the tolerance alone.
    scored = compare_runs(
        run("b", sample("q", metric("m", 0.95, threshold=0.5))),
        run("c", sample("q", metric("m", 0.93, threshold=0.5))),
    )
    assert kinds(scored) == [("q", "m", ChangeKind.SCORE_DECREASE)]


def test_a_judge_move_with_changed_behaviour_is_not_drift():
    comparison = compare_runs(run("b", judged(0.98)), run("c", judged(0.92, check_score=0.0)))
    assert kinds(comparison) == [
        ("q", "contains", ChangeKind.DETERMINISTIC_REGRESSION),
        ("q", "semantic_accuracy", ChangeKind.SCORE_DECREASE),
    ]
    assert comparison.judge_drift == ()


def test_rising_drift_is_reported_but_is_not_a_regression():
    comparison = compare_runs(run("b", judged(0.92)), run("c", judged(0.98)))
    assert kinds(comparison) == [("q", "semantic_accuracy", ChangeKind.JUDGE_DRIFT)]
    assert comparison.regressions == () and comparison.signal_regressions == ()


def test_tolerance_never_hides_a_new_failure_or_error():
    before = run("b", judged(0.95), sample("e", metric("m", 1.0)), sample("d", metric("m", 1.0)))
    after = run(
        "c",
        judged(0.89),
        sample("e", metric("m", 0.0, error="boom")),
        sample("d", metric("m", 0.0, reason="missing 30 days")),
    )
    comparison = compare_runs(before, after, tolerance=1.0, drift_tolerance=1.0)
    assert kinds(comparison) == [
        ("q", "semantic_accuracy", ChangeKind.NEWLY_FAILED_MINIMUM),
        ("e", "m", ChangeKind.NEW_ERROR),
        ("d", "m", ChangeKind.DETERMINISTIC_REGRESSION),
    ]
    regression = comparison.deterministic_regressions[0]
    assert regression.category == "content"
    assert regression.reason == "missing 30 days"
    assert (regression.passed_before, regression.samples_before) == (1, 1)
    assert (regression.passed_after, regression.samples_after) == (0, 1)
    assert prose.change_detail(regression) == (
        "missing 30 days; the check passed 1/1 samples before, 0/1 now"
    )
    minimum = comparison.changes[0]
    assert minimum.threshold == 0.9  # the judge's minimum score, as the builder sets it
    assert prose.change_detail(minimum) == (
        "r; below its minimum score 90% (1/1 samples before, 0/1 now)"
    )


def test_a_new_agent_error_is_a_regression_named_by_its_error():
    comparison = compare_runs(
        run("b", sample("q", metric("m", 1.0))), run("c", sample("q", error="RuntimeError: down"))
    )
    assert kinds(comparison) == [("q", "(agent)", ChangeKind.NEW_ERROR)]
    assert comparison.regressions[0].reason == "RuntimeError: down"
    assert prose.change_detail(comparison.regressions[0]) == "RuntimeError: down"


def test_samples_are_pooled_per_item_and_movement_is_the_largest_shift():
    before = run("b", *(sample("q", metric("m", 1.0), index=i) for i in range(4)))
    after = run("c", *(sample("q", metric("m", float(i % 2)), index=i) for i in range(4)))
    (change,) = compare_runs(before, after).changes
    assert change.kind is ChangeKind.DETERMINISTIC_REGRESSION
    assert (change.before, change.after, change.movement) == (1.0, 0.5, 0.5)
    assert prose.change_detail(change) == "r; the check passed 4/4 samples before, 2/4 now"


def test_items_pair_by_case_and_model():
    before = run(
        "b", sample("q", metric("m", 1.0), model="a"), sample("q", metric("m", 1.0), model="b")
    )
    after = run(
        "c", sample("q", metric("m", 0.0), model="a"), sample("q", metric("m", 1.0), model="c")
    )
    comparison = compare_runs(before, after)
    assert [(c.model, c.kind) for c in comparison.changes] == [
        ("a", ChangeKind.DETERMINISTIC_REGRESSION)
    ]
    assert (comparison.paired, comparison.only_in_baseline, comparison.only_in_current) == (1, 1, 1)
    assert prose.pairing_line(comparison).endswith(
        "; 1 only in the baseline, 1 only in the current run"
    )


def test_improvements_are_reported_but_are_not_regressions():
    comparison = compare_runs(
        run("b", sample("q", metric("m", 0.5))), run("c", sample("q", metric("m", 1.0)))
    )
    assert kinds(comparison) == [("q", "m", ChangeKind.IMPROVEMENT)]
    assert comparison.regressions == ()
