import pytest

import assay_agents as assay


def agent(text, ctx):
    return "ok"


def test_absent_parts_stay_out_of_the_definition():
    suite = assay.Suite("S", agent=agent)
    case = suite.case("q", expected="a")
    assert case.definition() == {"id": "q", "name": "q", "input": "q", "reference": "a"}


def test_present_parts_enter_the_definition():
    suite = assay.Suite("S", agent=agent)
    case = suite.case(
        "q",
        observation={"commands": []},
        forbid={"events": ["x"]},
        tags=["a", "b", "a"],
        params={"locale": "en"},
        notes=" mind ",
        production_only=True,
    )
    assert case.definition() == {
        "id": "q",
        "name": "q",
        "input": "q",
        "observation": {"commands": []},
        "forbid": {"events": ["x"]},
        "tags": ["a", "b"],
        "params": {"locale": "en"},
        "notes": "mind",
        "production_only": True,
    }


def test_a_reply_to_a_pending_interaction_is_the_turn():
    suite = assay.Suite("S", agent=agent)
    case = suite.case(
        None, id="confirm", reply={"case": "trip-1", "option": "confirm", "workflow": "trip"}
    )
    assert case.reply == assay.Reply("trip-1", "confirm", "trip")
    assert case.input == {"reply": {"case": "trip-1", "option": "confirm", "workflow": "trip"}}
    assert suite.case(None, id="r2", reply=assay.Reply("t", "o")).input == {
        "reply": {"case": "t", "option": "o"}
    }


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ({"input": "text", "reply": {"case": "t", "option": "o"}}, "either an input or a reply"),
        ({"input": None, "reply": {"case": "t"}}, "reply.option: must be a non-empty string"),
        ({"input": None, "reply": {"case": "t", "option": "o", "card": 1}}, "unknown key"),
        ({"input": None, "reply": "confirm"}, "must be an assay.Reply"),
        ({"input": "q", "tags": "a"}, "tags: must be a list"),
        ({"input": "q", "tags": [""]}, r"tags\[0\]"),
        ({"input": "q", "params": [1]}, "params: must be a mapping"),
        ({"input": "q", "notes": 3}, "notes: must be a string"),
        ({"input": "q", "production_only": "yes"}, "production_only: must be true or false"),
        ({"input": "q", "observation": {"commands": "a"}}, "observation.commands: must be a list"),
        ({"input": "q", "forbid": ["a"]}, "forbid: must map channel names"),
    ],
)
def test_bad_parts_are_refused(parts, message):
    suite = assay.Suite("S", agent=agent)
    value = parts.pop("input")
    with pytest.raises(assay.SpecError, match=message):
        suite.case(value, **parts)


def test_provenance_covers_the_new_parts():
    suite = assay.Suite("S", agent=agent, provenance={"observation": "recorded"})
    with_channels = suite.case(
        "a", observation={"events": []}, forbid={"events": ["x"]}, provenance={"forbid": "derived"}
    )
    assert with_channels.provenance == {"observation": "recorded", "forbid": "derived"}
    assert suite.case("b").provenance == {}
    with pytest.raises(assay.SpecError, match=r"provenance\.observation"):
        suite.case("c", provenance={"observation": "recorded"})


def test_a_subset_keeps_the_settings_and_follows_its_cases():
    suite = assay.Suite("S", agent=agent, version="2", samples=3, gate=assay.Gate())
    suite.case("a", group="g")
    suite.case("b", production_only=True)
    chosen = suite.subset(lambda case: case.group == "g")
    assert [c.id for c in chosen.cases] == ["a"] and [c.id for c in suite.cases] == ["a", "b"]
    assert (chosen.name, chosen.version, chosen.samples, chosen.gate) == ("S", "2", 3, assay.Gate())
    assert chosen.fingerprint() != suite.fingerprint()
    chosen.case("c")  # adding to the subset leaves the original alone
    assert len(suite.cases) == 2
