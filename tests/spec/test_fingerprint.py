import pytest

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    return "ok"


def fingerprint(**case):
    suite = assay.Suite("S", agent=agent, version=case.pop("version", None))
    suite.case("q", **case)
    return suite.fingerprint()


def test_typed_values_give_different_fingerprints():
    assert fingerprint(metadata={"x": "1"}) != fingerprint(metadata={"x": 1})
    assert fingerprint(metadata={"x": None}) != fingerprint(metadata={"x": False})
    assert fingerprint(setup={"x": 0}) != fingerprint(setup={"x": False})


def test_equal_definitions_share_a_fingerprint_and_order_of_keys_does_not_matter():
    assert fingerprint(metadata={"a": 1, "b": 2}) == fingerprint(metadata={"b": 2, "a": 1})


@pytest.mark.parametrize(
    "change",
    [
        {"expected": "other"},
        {"version": "2"},
        {"minimum_scores": {"exact_match": 0.5}},
        {"checks": [checks.exact_match(ignore_case=True)]},
        {"expected_actions": [{"group": "g", "name": "lookup", "arguments": {"id": 1}}]},
    ],
)
def test_every_part_of_the_definition_enters_the_fingerprint(change):
    base = {"expected": "a", "checks": [checks.exact_match()]}
    assert fingerprint(**base) != fingerprint(**{**base, **change})


def test_case_order_does_not_change_the_fingerprint_but_item_fingerprints_are_per_case():
    first = assay.Suite("S", agent=agent)
    first.case("a")
    first.case("b")
    second = assay.Suite("S", agent=agent)
    second.case("b")
    second.case("a")
    assert first.fingerprint() == second.fingerprint()
    plans = first.plan().cases
    assert plans[0].fingerprint != plans[1].fingerprint


def test_fingerprints_do_not_drift_between_releases():
    # Baselines match on this value: a change here orphans every user's history.
    suite = assay.Suite("Support", agent=agent, version="1")
    suite.case("How long?", expected="30 days", checks=[checks.exact_match()])
    assert suite.fingerprint() == "4b8c1cb78af6577afc802217c1d0f70e0e505d0571427891c2f1ab4ed8270c6b"
