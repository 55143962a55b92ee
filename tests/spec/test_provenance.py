"""Provenance declarations: strict, stored with the case snapshot, never fingerprinted."""

import pytest

import assay_agents as assay


def agent(text, ctx):
    return "ok"


def suite(**options):
    return assay.Suite("S", agent=agent, **options)


def test_a_declaration_is_kept_per_part_and_expected_names_the_reference():
    case = suite().case(
        "q",
        setup={"state": 1},
        expected="30 days",
        metadata={"k": 1},
        provenance={"setup": "derived", "expected": "recorded", "metadata": "authored"},
    )
    assert case.provenance == {"setup": "derived", "reference": "recorded", "metadata": "authored"}
    assert suite().case("q").provenance == {}


@pytest.mark.parametrize(
    ("declared", "field", "message"),
    [
        ({"seeded_world": "derived"}, "provenance", "unknown part 'seeded_world'"),
        ({"setup": "generated"}, "provenance.setup", "unknown provenance 'generated'"),
        ({"reference": "recorded"}, "provenance.reference", "does not have"),
        ("derived", "provenance", "must map case parts"),
    ],
)
def test_declarations_are_checked_strictly(declared, field, message):
    with pytest.raises(assay.SpecError, match=message) as raised:
        suite().case("q", id="q", setup={"state": 1}, provenance=declared)
    assert raised.value.field == field and raised.value.case == "q"


def test_a_suite_default_applies_to_the_parts_each_case_has_under_its_own_declaration():
    defaults = suite(provenance={"setup": "derived", "reference": "recorded"})
    both = defaults.case("a", id="a", setup={"s": 1}, expected="x")
    override = defaults.case("b", id="b", setup={"s": 1}, provenance={"setup": "authored"})
    bare = defaults.case("c", id="c")
    assert both.provenance == {"setup": "derived", "reference": "recorded"}
    assert override.provenance == {"setup": "authored"}
    assert bare.provenance == {}
    assert [case.provenance for case in defaults.cases] == [
        both.provenance,
        override.provenance,
        {},
    ]
    with pytest.raises(assay.SpecError, match="unknown part 'world'") as raised:
        suite(provenance={"world": "derived"})
    assert raised.value.location == "S"


def test_provenance_is_in_the_snapshot_but_not_in_any_fingerprint():
    plain, declared = suite(), suite()
    plain.case("q", id="q", setup={"state": 1})
    declared.case("q", id="q", setup={"state": 1}, provenance={"setup": "derived"})
    assert plain.fingerprint() == declared.fingerprint()
    (without,), (with_it,) = plain.plan().cases, declared.plan().cases
    assert without.fingerprint == with_it.fingerprint
    assert "provenance" not in without.snapshot()
    assert with_it.snapshot()["provenance"] == {"setup": "derived"}


def test_expect_names_every_expectation_the_case_declares():
    action = {"group": "g", "name": "lookup", "arguments": {}}
    case = suite().case("q", expected_actions=[action], provenance={"expect": "recorded"})
    # The group keeps every member: an expectation a later run adds is covered too.
    assert case.provenance == {
        "expected_actions": "recorded",
        "observation": "recorded",
        "forbid": "recorded",
        "checks": "recorded",
    }
    with pytest.raises(assay.SpecError, match="does not have") as raised:
        suite().case("q", provenance={"expect": "recorded"})
    assert raised.value.field == "provenance.expect"
    defaults = suite(provenance={"expect": "derived"})
    assert defaults.case("a", id="a", expected_actions=[action]).provenance == {
        "expected_actions": "derived"
    }
    assert defaults.case("b", id="b").provenance == {}
