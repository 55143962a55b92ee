"""The rules of pasted text that decide what a line or a document is."""

import json

import pytest

import assay_agents as assay
from assay_agents.load import ScenarioParser, load_pasted


def test_a_json_objects_tools_and_not_contains_become_expectations():
    pasted = json.dumps(
        [
            "Is the shop open on Sunday?",
            {
                "prompt": "Where is my order?",
                "group": "orders",
                "tools": ["lookup_order"],
                "not_contains": "I cannot",
            },
            {"prompt": "Refund it", "group_name": "Orders", "contains": ["refund"]},
        ]
    )
    attributes = ScenarioParser.parse(pasted)
    assert attributes[1]["expect"] == {"tools": ["lookup_order"], "not_contains": ["I cannot"]}
    assert attributes[1]["group"] == "orders" and attributes[1]["key"] == "orders_1"
    assert attributes[2]["expect"] == {"contains": ["refund"]}
    assert attributes[2]["key"] == "orders_2"
    single = ScenarioParser.scenarios('{"prompt": "Where?", "forbid_tools": "delete_order"}')
    assert single[0].expect.forbid_tools == ("delete_order",)


def test_an_expectation_given_twice_in_one_json_object_is_refused():
    with pytest.raises(assay.SpecError, match=r"\[0\]\.tools: .*given twice"):
        ScenarioParser.scenarios('[{"prompt": "x", "tools": ["a"], "expect": {"tools": ["b"]}}]')


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("Find tickets:", "Find tickets"),
        ("Note: refunds and returns:", "Note: refunds and returns"),
        ("Escalations!:", "Escalations!"),
        ("- Billing:", "Billing"),
        ("a" * 79 + ":", "a" * 79),
    ],
)
def test_a_short_unmarked_line_ending_in_a_colon_is_a_heading(line, heading):
    attributes = ScenarioParser.parse(f"{line}\nWhere is it?\n")
    assert attributes[0]["group_name"] == heading and attributes[0]["prompt"] == "Where is it?"


@pytest.mark.parametrize(
    "line",
    [
        "Which ticket is open?:",
        "a" * 80 + ":",
        "Explain this | notes: asks for:",
    ],
)
def test_a_long_line_a_question_or_a_line_with_options_is_a_prompt(line):
    attributes = ScenarioParser.parse(f"{line}\n")
    assert len(attributes) == 1 and "group" not in attributes[0]


def test_an_empty_descriptive_option_means_none_given():
    scenario = ScenarioParser.scenarios("Where is it? | notes: | tools: lookup | tags:")[0]
    assert scenario.notes is None and scenario.tags == ()
    assert scenario.expect.tools == ("lookup",)
    assert ScenarioParser.scenarios("Where? | key:")[0].key == "scenario_1"


def test_positions_count_within_each_group_in_pastes_and_files(tmp_path):
    paste = "Open on Sunday?\n# Orders\nWhere?\nCancel\n# Billing\nInvoice\n"
    attributes = ScenarioParser.parse(paste)
    assert [(a["key"], a["position"]) for a in attributes] == [
        ("scenario_1", 0),
        ("orders_1", 0),
        ("orders_2", 1),
        ("billing_1", 0),
    ]
    listed = json.dumps(
        [{"prompt": "a", "group": "x"}, {"prompt": "b"}, {"prompt": "c", "group": "x"}]
    )
    assert [a["position"] for a in ScenarioParser.parse(listed)] == [0, 0, 1]
    path = tmp_path / "questions.txt"
    path.write_text(paste)
    suite = load_pasted(path)
    # A file's cases keep the file's order; their groups are the headings.
    assert [(c.id, c.group) for c in suite.cases] == [
        ("scenario_1", None),
        ("orders_1", "orders"),
        ("orders_2", "orders"),
        ("billing_1", "billing"),
    ]


def test_leaving_out_production_only_scenarios_keeps_keys_and_positions():
    listed = json.dumps(
        [
            {"prompt": "a", "group": "orders"},
            {"prompt": "b", "group": "orders", "production_only": True},
            {"prompt": "c", "group": "orders"},
        ]
    )
    kept = ScenarioParser.parse(listed, include_production_only=False)
    assert [(a["key"], a["position"]) for a in kept] == [("orders_1", 0), ("orders_3", 2)]


@pytest.mark.parametrize(
    "text",
    [
        "  suite: support\ngroups: [\n",
        "description: The questions we field\nsuite: support\ngroups: [\n",
        "version: '2'\ngroups:\n  - key: a\n   scenarios: x\n",
        "suite: support\nWhere is my order?\n",
        "[not json",
    ],
)
def test_a_text_that_starts_like_a_document_and_does_not_load_is_refused(text):
    with pytest.raises(assay.SpecError, match=r"invalid (YAML|JSON)"):
        ScenarioParser.scenarios(text)


@pytest.mark.parametrize("underline", ["======", "=="])
def test_a_line_underlined_with_equals_signs_is_a_heading(underline):
    text = f"Orders\n{underline}\nWhere is my order?\n\nRefunds\n{underline}\nRefund it\n"
    parsed = ScenarioParser.parse(text)
    assert [(s["prompt"], s["group"]) for s in parsed] == [
        ("Where is my order?", "orders"),
        ("Refund it", "refunds"),
    ]


def test_a_line_of_equals_signs_under_nothing_is_a_rule_and_dashes_stay_a_rule():
    parsed = ScenarioParser.parse("=====\nWhere is my order?\n\n=====\nCancel it\n---\nNext\n")
    assert [s["prompt"] for s in parsed] == ["Where is my order?", "Cancel it", "Next"]
