"""Provenance over expectations: a derived `expect` covers the checks and later additions."""

import assay_agents as assay
from assay_agents import checks
from assay_agents.compare import compare_runs


def run_of(store, *, forbid=None, text="x"):
    suite = assay.Suite("Derived expectations", agent=lambda t, c: "x y")
    suite.case(
        "q", id="q", checks=[checks.contains(text)], forbid=forbid, provenance={"expect": "derived"}
    )
    return assay.run(suite, db=store, progress=False)


def test_changed_checks_and_an_added_forbid_list_are_intended_when_derived_in_both(store):
    before = run_of(store)
    after = run_of(store, text="y")
    comparison = compare_runs(before, after)
    assert [item.case_id for item in comparison.intended_changes] == ["q"]
    added = run_of(store, forbid={"commands": ["trip.rebook"]})
    assert [item.case_id for item in compare_runs(before, added).intended_changes] == ["q"]
