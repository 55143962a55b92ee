"""The noise floor: measured by a control pair, labelling every change within or beyond it."""

import pytest
from compare_builders import metric, run, sample

from assay_agents.compare import NoiseFloor, NoiseLabel, compare_runs, measure_noise
from assay_agents.record import read, write
from assay_agents.report import prose


def flaky(run_id, passes, *, case="q", model=None):
    """One item, one sample per entry of ``passes``."""
    return [
        sample(case, metric("contains", 1.0 if ok else 0.0), index=i, model=model)
        for i, ok in enumerate(passes)
    ]


def test_the_floor_is_the_largest_movement_per_metric_and_for_pass_rates():
    first = run("a", *flaky("a", [1, 1, 1, 0]), *flaky("a", [1, 1], case="steady"))
    second = run("b", *flaky("b", [1, 1, 0, 0]), *flaky("b", [1, 1], case="steady"))
    floor = measure_noise(first, second)
    assert floor.control == ("a", "b")
    assert floor.metrics == {"(agent)": 0.0, "contains": 0.25}
    assert floor.pass_rate == pytest.approx(5 / 6 - 4 / 6)
    assert floor.largest == 0.25


def test_labels():
    floor = NoiseFloor(("a", "b"), 0.1, {"contains": 0.25})
    assert floor.label("contains", 0.25) is NoiseLabel.WITHIN
    assert floor.label("contains", 0.2500001) is NoiseLabel.BEYOND
    assert floor.label("other", 0.01) is NoiseLabel.UNMEASURED
    assert floor.label(None, -0.1) is NoiseLabel.WITHIN


def test_a_movement_equal_to_the_floor_is_within_noise_and_does_not_gate():
    floor = measure_noise(run("a", *flaky("a", [1, 1, 1, 0])), run("b", *flaky("b", [1, 1, 0, 0])))
    before, after = run("x", *flaky("x", [1, 1, 1, 0])), run("y", *flaky("y", [1, 1, 0, 0]))
    measured = compare_runs(before, after, noise_floor=floor)
    (change,) = measured.changes
    assert change.noise is NoiseLabel.WITHIN and change.movement == 0.25
    assert measured.regressions == (change,) and measured.signal_regressions == ()
    assert measured.headline.noise is NoiseLabel.WITHIN
    # The same data without a control run is not excused: unmeasured movement is signal.
    unmeasured = compare_runs(before, after)
    assert unmeasured.changes[0].noise is NoiseLabel.UNMEASURED
    assert len(unmeasured.signal_regressions) == 1


def test_movement_beyond_the_floor_is_signal():
    floor = NoiseFloor(("a", "b"), 0.25, {"contains": 0.25, "(agent)": 0.0})
    comparison = compare_runs(
        run("x", *flaky("x", [1, 1, 1, 1])), run("y", *flaky("y", [1, 1, 0, 0])), noise_floor=floor
    )
    assert comparison.changes[0].noise is NoiseLabel.BEYOND
    assert len(comparison.signal_regressions) == 1


def test_a_floor_above_the_flaky_share_is_the_finding():
    floor = NoiseFloor(("a", "b"), 0.5, {"contains": 0.5})
    before, after = run("x", *flaky("x", [1, 1])), run("y", *flaky("y", [1, 0]))
    comparison = compare_runs(before, after, noise_floor=floor)
    assert comparison.too_flaky and write(comparison)["too_flaky"]
    lines = prose.summary(comparison).splitlines()
    assert lines[1].startswith(
        "TOO FLAKY TO MEASURE: the unchanged system moved by up to 50 points against itself "
        "(above 30 points)"
    )
    assert "raise the samples" in lines[1]
    assert not compare_runs(before, after, noise_floor=floor, flaky_share=0.5).too_flaky
    assert not compare_runs(before, after).too_flaky


def test_floor_summary_and_round_trip():
    floor = NoiseFloor(("a", "b"), 0.25, {"contains": 0.25, "(agent)": 0.0})
    assert prose.noise_floor_line(floor) == (
        "noise floor from control runs a and b: pass rate 25 points, contains 25 points"
    )
    assert read(NoiseFloor, write(floor), "noise_floor") == floor
