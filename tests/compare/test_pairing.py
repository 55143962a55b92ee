"""Pairing: fingerprints, broken pairings, provenance (derived by both, recorded by either)."""

import pytest
from compare_builders import case, metric, run, sample

from assay_agents.compare import Pairing, compare_runs
from assay_agents.compare.pairing import effective_provenance, judge_pairing
from assay_agents.record import write


def verdict(before, after):
    pairing, parts = judge_pairing(before, after)
    return pairing, [(p.part, p.provenance) for p in parts]


def test_the_same_definition_pairs():
    assert verdict(case("a", setup={"x": 1}), case("a", setup={"x": 1})) == (Pairing.COMPARED, [])


def test_an_authored_change_is_a_broken_pairing():
    assert verdict(case("a", setup={"x": 1}), case("a", setup={"x": 2})) == (
        Pairing.BROKEN,
        [("setup", "authored")],
    )
    assert verdict(
        case("a", metrics=[{"name": "m", "threshold": 1.0}]),
        case("a", metrics=[{"name": "m", "threshold": 0.5}]),
    ) == (Pairing.BROKEN, [("metrics", "authored")])


def test_derived_counts_only_when_both_runs_declare_it():
    derived = {"setup": "derived"}
    both = verdict(
        case("a", setup={"x": 1}, provenance=derived), case("a", setup={"x": 2}, provenance=derived)
    )
    assert both == (Pairing.INTENDED, [("setup", "derived")])
    # Declaring it now makes the next comparison comparable; it never excuses this one.
    late = verdict(case("a", setup={"x": 1}), case("a", setup={"x": 2}, provenance=derived))
    assert late == (Pairing.BROKEN, [("setup", "authored")])


def test_a_derived_part_beside_an_authored_change_is_still_broken():
    derived = {"setup": "derived"}
    assert verdict(
        case("a", input="q1", setup={"x": 1}, provenance=derived),
        case("a", input="q2", setup={"x": 2}, provenance=derived),
    ) == (Pairing.BROKEN, [("input", "authored"), ("setup", "derived")])


@pytest.mark.parametrize(
    "declared", [(None, "recorded"), ("recorded", None), ("recorded", "derived")]
)
def test_a_recorded_part_that_differs_is_a_corpus_defect_when_either_declares_it(declared):
    before, after = ({} if d is None else {"provenance": {"reference": d}} for d in declared)
    assert verdict(
        case("a", reference="30 days", **before), case("a", reference="thirty days", **after)
    ) == (Pairing.DEFECT, [("reference", "recorded")])


def test_a_declaration_alone_changes_nothing():
    assert (
        verdict(
            case("a", setup={"x": 1}), case("a", setup={"x": 1}, provenance={"setup": "recorded"})
        )[0]
        is Pairing.COMPARED
    )


def test_effective_provenance_table():
    table = {
        (b, c): effective_provenance(b, c)
        for b in ("authored", "derived", "recorded")
        for c in ("authored", "derived", "recorded")
    }
    assert [pair for pair, value in table.items() if value == "derived"] == [("derived", "derived")]
    assert {pair for pair, value in table.items() if value == "recorded"} == {
        pair for pair in table if "recorded" in pair
    }


def test_excluded_and_defective_items_stay_out_of_every_figure():
    cases_before = (
        case("ok", 0),
        case("edited", 1, setup={"v": 1}),
        case("recorded", 2, setup={"v": 1}, provenance={"setup": "recorded"}),
    )
    cases_after = (
        case("ok", 0),
        case("edited", 1, setup={"v": 2}),
        case("recorded", 2, setup={"v": 2}, provenance={"setup": "recorded"}),
    )
    before = run(
        "b",
        *(sample(c, metric("m", 1.0)) for c in ("ok", "edited", "recorded")),
        cases=cases_before,
    )
    after = run(
        "c",
        sample("ok", metric("m", 1.0)),
        sample("edited", metric("m", 0.0)),
        sample("recorded", metric("m", 0.0)),
        cases=cases_after,
    )
    comparison = compare_runs(before, after, max_excluded_share=1.0)
    assert comparison.changes == ()  # the two items that regressed are not paired
    assert [i.case_id for i in comparison.excluded] == ["edited", "recorded"]
    assert [i.case_id for i in comparison.corpus_defects] == ["recorded"]
    assert write(comparison.headline)["pass_rate_after"] == 1.0
