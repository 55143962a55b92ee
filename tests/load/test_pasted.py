import json

import pytest

import assay
from assay.load import ScenarioParser, load_pasted

PASTE = """\
Is the shop open on Sunday?

# Orders
Where is my order 4821? | tools: lookup_order, track_parcel
- Cancel my subscription | not_contains: I cannot | contains: cancel
`Refund order 1042` — looks the order up before answering | tools: refund_order

## Refund window
1. How long do I have to return an item? | key: refund_window | tags: returns, policy
"""


def test_lines_headings_backticks_and_options():
    attributes = ScenarioParser.parse(PASTE)
    assert [a["key"] for a in attributes] == ["scenario_1", "orders_1", "orders_2",
                                              "orders_3", "refund_window"]
    assert [a["position"] for a in attributes] == [0, 1, 2, 3, 4]
    assert attributes[0] == {"key": "scenario_1", "prompt": "Is the shop open on Sunday?",
                             "position": 0}
    assert attributes[1]["expect"] == {"tools": ["lookup_order", "track_parcel"]}
    assert attributes[1]["group"] == "orders" and attributes[1]["group_name"] == "Orders"
    assert attributes[2]["prompt"] == "Cancel my subscription"
    assert attributes[2]["expect"] == {"contains": ["cancel"], "not_contains": ["I cannot"]}
    assert attributes[3]["prompt"] == "Refund order 1042"
    assert attributes[3]["notes"] == "looks the order up before answering"
    assert attributes[4]["group"] == "refund_window" and attributes[4]["tags"] == [
        "returns", "policy"]


def test_generated_keys_skip_reserved_ones_whatever_their_case():
    paste = "# Orders\nWhere is my order?\nCancel it\n"
    keys = [s.key for s in ScenarioParser.scenarios(paste, reserved_keys=["ORDERS_1"])]
    assert keys == ["orders_2", "orders_3"]
    # Merging the same keyless paste twice adds it twice under distinct keys.
    again = [s.key for s in ScenarioParser.scenarios(paste, reserved_keys=[
        "orders_1", *keys])]
    assert again == ["orders_4", "orders_5"]


def test_a_key_prefix_namespaces_generated_keys_only():
    paste = "# Orders\nWhere is my order? | key: refund_window\nCancel it\n"
    keys = [s.key for s in ScenarioParser.scenarios(paste, key_prefix="Batch 2")]
    assert keys == ["refund_window", "batch_2_orders_1"]
    with pytest.raises(assay.SpecError, match="key prefix '--' has no letters or digits"):
        ScenarioParser.scenarios(paste, key_prefix="--")


def test_yaml_and_json_documents_are_accepted():
    yaml_text = ("suite: support\ngroups:\n  - key: orders\n    name: Orders\n    scenarios:\n"
                 "      - prompt: Where is my order?\n        expect: {tools: [lookup]}\n"
                 "      - key: cancel\n        prompt: Cancel\n        production_only: true\n")
    scenarios = ScenarioParser.scenarios(yaml_text)
    assert [(s.key, s.group, s.expect.tools) for s in scenarios] == [
        ("orders_1", "orders", ("lookup",)), ("cancel", "orders", ())]
    assert [s.key for s in ScenarioParser.scenarios(yaml_text,
                                                    include_production_only=False)] == [
        "orders_1"]
    listed = json.dumps([{"prompt": "Hello"}, {"key": "k", "prompt": "Bye"}])
    assert [s.key for s in ScenarioParser.scenarios(listed)] == ["scenario_1", "k"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Where is it? | tool: lookup", "line 1: unknown option 'tool' (did you mean 'tools'?)"),
        ("`Where is it? | tools: x", "line 1: a backticked prompt needs its closing backtick"),
        ("Where? | tools:", "option 'tools' has no value"),
        ("| tools: x", "has an option but no prompt"),
        ("# Only a heading\n", "holds no scenarios"),
        ("a | key: k\nb | key: k\n", "duplicate scenario key 'k'"),
        ("groups:\n  - scenarios:\n      - prompt: x\n        tools: [a]\n",
         "groups[0].scenarios[0].tools: unknown field"),
        ("[1, 2]", "groups[0].scenarios[0]: must be a table"),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_pastes(text, message):
    with pytest.raises(assay.SpecError) as caught:
        ScenarioParser.scenarios(text)
    assert message in str(caught.value)


def test_a_text_file_is_a_suite_named_after_it(tmp_path):
    path = tmp_path / "support_questions.txt"
    path.write_text(PASTE)
    suite = load_pasted(path, agent=lambda text, ctx: "ok")
    assert suite.name == "support_questions" and len(suite.cases) == 5
    assert suite.cases[1].checks[0].names == ("lookup_order", "track_parcel")


def test_a_prompt_that_begins_like_a_yaml_key_is_still_a_prompt():
    from assay.load import ScenarioParser

    scenarios = ScenarioParser.scenarios("Where is my order?\nsuite: which plan am I on?\n"
                                         "groups: can I add one?")
    assert [s.prompt for s in scenarios] == [
        "Where is my order?", "suite: which plan am I on?", "groups: can I add one?"]


def test_a_backticked_prompt_may_contain_a_pipe():
    from assay.load import ScenarioParser

    scenario = ScenarioParser.scenarios("`what is 2 | 3?` bitwise or | contains: 3")[0]
    assert scenario.prompt == "what is 2 | 3?" and scenario.notes == "bitwise or"
    assert scenario.expect.contains == ("3",)
