"""The headline: withheld past the exclusion ceiling, with nothing left to read a figure from."""

import json

import pytest
from compare_builders import case, metric, run, sample

from assay_agents.compare import (
    Comparison,
    MeasuredHeadline,
    NoiseFloor,
    WithheldHeadline,
    compare_runs,
)
from assay_agents.errors import ConfigurationError
from assay_agents.record import read, write
from assay_agents.report import prose


def corpus(edited: int, total: int = 3):
    """``total`` items; the first ``edited`` change their input; every item regresses."""
    before = run(
        "b",
        *(sample(f"c{i}", metric("m", 1.0)) for i in range(total)),
        cases=tuple(case(f"c{i}", i) for i in range(total)),
    )
    after = run(
        "c",
        *(sample(f"c{i}", metric("m", 0.0)) for i in range(total)),
        cases=tuple(
            case(f"c{i}", i, input=f"edited {i}" if i < edited else f"c{i}") for i in range(total)
        ),
    )
    return before, after


def keys_anywhere(value):
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys_anywhere(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys_anywhere(item)}
    return set()


def test_two_of_three_edited_withholds_the_headline_everywhere():
    comparison = compare_runs(*corpus(edited=2))
    assert prose.summary(comparison).splitlines()[0] == (
        "1 of 3 paired item(s) compared, 2 excluded (67% of the paired corpus)"
    )
    assert isinstance(comparison.headline, WithheldHeadline)
    assert prose.withheld_reason(comparison).startswith(
        "NO HEADLINE FIGURE: 67% of the paired corpus was excluded, above the 10% ceiling"
    )
    assert comparison.pass_rate_delta is None
    # The stored form is the facts; the report's form adds the sentences, the pairing first.
    assert write(comparison)["headline"] == {"status": "withheld"}
    data = prose.comparison_json(comparison)
    assert data["headline"] == {"status": "withheld", "reason": prose.withheld_reason(comparison)}
    assert not {k for k in keys_anywhere(data) if "pass_rate" in k or k == "delta"}
    order = list(data)
    assert order[0] == "summary" and order.index("headline") < order.index("changes")
    assert order.index("excluded") < order.index("changes")
    assert data["pairing"]["excluded_share"] == pytest.approx(2 / 3)


def test_raising_the_ceiling_on_the_same_data_brings_the_figures_back():
    comparison = compare_runs(*corpus(edited=2), max_excluded_share=0.7)
    headline = comparison.headline
    assert isinstance(headline, MeasuredHeadline)
    assert (headline.before, headline.after, comparison.pass_rate_delta) == (1.0, 0.0, -1.0)
    assert write(comparison)["headline"]["delta"] == -1.0


def test_the_ceiling_is_inclusive():
    assert isinstance(compare_runs(*corpus(edited=1, total=10)).headline, MeasuredHeadline)
    assert isinstance(compare_runs(*corpus(edited=2, total=10)).headline, WithheldHeadline)
    assert isinstance(
        compare_runs(*corpus(edited=1, total=10), max_excluded_share=0.0).headline, WithheldHeadline
    )


def test_nothing_paired_has_no_headline():
    comparison = compare_runs(
        run("b", sample("x", metric("m", 1.0))), run("c", sample("y", metric("m", 1.0)))
    )
    assert prose.summary(comparison).splitlines()[0].startswith("0 of 0 paired item(s) compared")
    assert "no item is paired" in prose.withheld_reason(comparison)


def test_corpus_defects_come_before_any_figure():
    recorded = {"provenance": {"setup": "recorded"}}
    before = run(
        "b",
        *(sample(f"c{i}", metric("m", 1.0)) for i in range(12)),
        cases=(
            case("c0", 0, setup={"v": 1}, **recorded),
            *(case(f"c{i}", i) for i in range(1, 12)),
        ),
    )
    after = run(
        "c",
        *(sample(f"c{i}", metric("m", 1.0)) for i in range(12)),
        cases=(
            case("c0", 0, setup={"v": 2}, **recorded),
            *(case(f"c{i}", i) for i in range(1, 12)),
        ),
    )
    lines = prose.summary(compare_runs(before, after)).splitlines()
    assert lines[0].startswith("11 of 12 paired item(s) compared, 1 excluded (8%")
    assert lines[1].startswith("CORPUS DEFECT: c0: recorded part(s) setup differ")
    assert lines[2].startswith("pass rate 100% → 100%")


def test_round_trip_keeps_everything():
    before, after = corpus(edited=1)
    floor = NoiseFloor(("x", "y"), 0.25, {"m": 0.5, "(agent)": 0.0})
    for comparison in (
        compare_runs(before, after, noise_floor=floor, tolerance=0.1),
        compare_runs(before, after, max_excluded_share=0.0),
    ):
        stored = json.loads(json.dumps(write(comparison)))
        assert read(Comparison, stored, "comparison") == comparison


@pytest.mark.parametrize(
    "option", ["tolerance", "drift_tolerance", "max_excluded_share", "flaky_share"]
)
def test_options_outside_zero_to_one_are_refused(option):
    with pytest.raises(ConfigurationError, match=option):
        compare_runs(*corpus(edited=0), **{option: 1.5})
