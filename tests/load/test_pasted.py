import json

import pytest

import assay_agents as assay
from assay_agents.load import ScenarioParser, load_pasted

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
    assert [a["key"] for a in attributes] == [
        "scenario_1",
        "orders_1",
        "orders_2",
        "orders_3",
        "refund_window",
    ]
    # Positions count within each group.
    assert [a["position"] for a in attributes] == [0, 0, 1, 2, 0]
    assert attributes[0] == {
        "key": "scenario_1",
        "prompt": "Is the shop open on Sunday?",
        "position": 0,
    }
    assert attributes[1]["expect"] == {"tools": ["lookup_order", "track_parcel"]}
    assert attributes[1]["group"] == "orders" and attributes[1]["group_name"] == "Orders"
    assert attributes[2]["prompt"] == "Cancel my subscription"
    assert attributes[2]["expect"] == {"contains": ["cancel"], "not_contains": ["I cannot"]}
    assert attributes[3]["prompt"] == "Refund order 1042"
    assert attributes[3]["notes"] == "looks the order up before answering"
    assert attributes[4]["group"] == "refund_window" and attributes[4]["tags"] == [
        "returns",
        "policy",
    ]


def test_generated_keys_skip_reserved_ones_whatever_their_case():
    paste = "# Orders\nWhere is my order?\nCancel it\n"
    keys = [s.key for s in ScenarioParser.scenarios(paste, reserved_keys=["ORDERS_1"])]
    assert keys == ["orders_2", "orders_3"]
    # Merging the same keyless paste twice adds it twice under distinct keys.
    again = [s.key for s in ScenarioParser.scenarios(paste, reserved_keys=["orders_1", *keys])]
    assert again == ["orders_4", "orders_5"]


def test_a_key_prefix_namespaces_generated_keys_only():
    paste = "# Orders\nWhere is my order? | key: refund_window\nCancel it\n"
    keys = [s.key for s in ScenarioParser.scenarios(paste, key_prefix="Batch 2")]
    assert keys == ["refund_window", "batch_2_orders_1"]
    with pytest.raises(assay.SpecError, match="key prefix '--' has no letters or digits"):
        ScenarioParser.scenarios(paste, key_prefix="--")


def test_yaml_and_json_documents_are_accepted():
    yaml_text = (
        "suite: support\ngroups:\n  - key: orders\n    name: Orders\n    scenarios:\n"
        "      - prompt: Where is my order?\n        expect: {tools: [lookup]}\n"
        "      - key: cancel\n        prompt: Cancel\n        production_only: true\n"
    )
    scenarios = ScenarioParser.scenarios(yaml_text)
    assert [(s.key, s.group, s.expect.tools) for s in scenarios] == [
        ("orders_1", "orders", ("lookup",)),
        ("cancel", "orders", ()),
    ]
    assert [s.key for s in ScenarioParser.scenarios(yaml_text, include_production_only=False)] == [
        "orders_1"
    ]
    listed = json.dumps([{"prompt": "Hello"}, {"key": "k", "prompt": "Bye"}])
    assert [s.key for s in ScenarioParser.scenarios(listed)] == ["scenario_1", "k"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Where is it? | tool: lookup", "line 1: unknown option 'tool' (did you mean 'tools'?)"),
        ("`Where is it? | tools: x", "line 1: a backticked prompt needs its closing backtick"),
        ("Where? | tools:", "option 'tools' has no value"),
        ("Where? | contains:", "option 'contains' has no value"),
        ("| tools: x", "has an option but no prompt"),
        ("a | key: k\nb | key: k\n", "duplicate scenario key 'k'"),
        (
            "groups:\n  - scenarios:\n      - prompt: x\n        tools: [a]\n",
            "groups[0].scenarios[0].tools: unknown field",
        ),
        ("[1, 2]", "[0]: must be a table (mapping), not a number"),
        ("Where? | key: a | key: b", "line 1: option 'key' is given twice"),
        (
            "`Refund 1042` checks it | notes: other",
            "notes after its backticked prompt and a notes option",
        ),
        ('[{"prompt": "x", "grup": "orders"}]', "[0].grup: unknown field (did you mean 'group'?)"),
        (
            '{"prompt": "x", "expectations": {"contans": "30"}}',
            "expectations.contans: unknown field (did you mean 'contains'?)",
        ),
        (
            '{"prompt": "x", "expect": {}, "expectations": {}}',
            "expect and expectations name the same field; give one",
        ),
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
    from assay_agents.load import ScenarioParser

    scenarios = ScenarioParser.scenarios(
        "Where is my order?\nsuite: which plan am I on?\ngroups: can I add one?"
    )
    assert [s.prompt for s in scenarios] == [
        "Where is my order?",
        "suite: which plan am I on?",
        "groups: can I add one?",
    ]


def test_a_backticked_prompt_may_contain_a_pipe():
    from assay_agents.load import ScenarioParser

    scenario = ScenarioParser.scenarios("`what is 2 | 3?` bitwise or | contains: 3")[0]
    assert scenario.prompt == "what is 2 | 3?" and scenario.notes == "bitwise or"
    assert scenario.expect.contains == ("3",)


def test_headings_bold_lines_labels_and_numbered_prompts():
    paste = (
        "**Orders**\nWhere is my order?\n#1 priority: refund order 1042\n"
        "Find tickets:\n- Which tickets are open?\n* Which are mine?\n"
        "1. Which mention a refund?\n"
    )
    attributes = ScenarioParser.parse(paste)
    assert [(a["prompt"], a.get("group"), a.get("group_name")) for a in attributes] == [
        ("Where is my order?", "orders", "Orders"),
        ("#1 priority: refund order 1042", "orders", "Orders"),
        ("Which tickets are open?", "find_tickets", "Find tickets"),
        ("Which are mine?", "find_tickets", "Find tickets"),
        ("Which mention a refund?", "find_tickets", "Find tickets"),
    ]


def test_inline_backticks_are_removed_and_a_backticked_prompt_keeps_its_notes():
    scenarios = ScenarioParser.scenarios(
        "Show ticket `T-42` and `T-43` | contains: T-42\n"
        "`Refund order 1042` — looks the order up first\n"
        "Run `a | b` for me | tools: shell\n"
    )
    assert [(s.prompt, s.notes) for s in scenarios] == [
        ("Show ticket T-42 and T-43", None),
        ("Refund order 1042", "looks the order up first"),
        ("Run a | b for me", None),
    ]
    assert scenarios[2].expect.tools == ("shell",)


def test_group_and_notes_options_and_quoted_values():
    paste = (
        "# Orders\nWhere is it? | group: Returns desk | notes: asks for the number "
        '| contains: "30"\nCancel it\n'
    )
    attributes = ScenarioParser.parse(paste)
    assert attributes[0] == {
        "key": "returns_desk_1",
        "prompt": "Where is it?",
        "expect": {"contains": ["30"]},
        "notes": "asks for the number",
        "group": "returns_desk",
        "group_name": "Returns desk",
        "position": 0,
    }
    assert attributes[1]["group"] == "orders"


def test_a_scalar_where_a_list_is_expected_is_a_list_of_one():
    yaml_text = (
        "groups:\n  - key: orders\n    scenarios:\n      - prompt: How long?\n"
        '        expectations:\n          contains: "30"\n          tools: lookup\n'
        "        tags: policy\n"
    )
    scenario = ScenarioParser.scenarios(yaml_text)[0]
    assert (scenario.expect.contains, scenario.expect.tools, scenario.tags) == (
        ("30",),
        ("lookup",),
        ("policy",),
    )


def test_json_arrays_of_strings_and_objects_and_single_objects():
    listed = json.dumps(
        [
            "Is the shop open on Sunday?",
            {
                "prompt": "Where is my order?",
                "group": "orders",
                "group_name": "Orders",
                "notes": "looks it up",
                "production_only": True,
                "expect": {"tools": ["lookup"]},
            },
        ]
    )
    attributes = ScenarioParser.parse(listed)
    assert attributes == [
        {"key": "scenario_1", "prompt": "Is the shop open on Sunday?", "position": 0},
        {
            "key": "orders_1",
            "prompt": "Where is my order?",
            "expect": {"tools": ["lookup"]},
            "notes": "looks it up",
            "production_only": True,
            "group": "orders",
            "group_name": "Orders",
            "position": 0,
        },
    ]
    single = ScenarioParser.parse(json.dumps({"prompt": "Hi", "group_name": "Order lookups"}))
    assert single == [
        {
            "key": "order_lookups_1",
            "prompt": "Hi",
            "group": "order_lookups",
            "group_name": "Order lookups",
            "position": 0,
        }
    ]


@pytest.mark.parametrize(
    "text",
    [
        "suite: support\ngroups: [",
        "suite: support\ngroups: !ruby/object:ActiveAgent::Evals::Group {}\n",
        "--- !ruby/object:ActiveAgent::Evals::Suite\nsuite: support\n",
        "# Support\nsuite: support\ngroups: [\n",
    ],
)
def test_a_document_that_starts_like_a_suite_and_does_not_parse_is_an_error(text):
    with pytest.raises(assay.SpecError, match="invalid YAML"):
        ScenarioParser.scenarios(text)


def test_positions_keep_their_index_when_production_only_scenarios_are_left_out():
    listed = json.dumps(
        [{"prompt": "a"}, {"prompt": "b", "production_only": True}, {"prompt": "c"}]
    )
    kept = ScenarioParser.parse(listed, include_production_only=False)
    assert [a["position"] for a in kept] == [0, 2]
    grouped = (
        "suite: support\ngroups:\n  - key: orders\n    scenarios:\n      - prompt: a\n"
        "      - prompt: b\n  - key: billing\n    scenarios:\n      - prompt: c\n"
    )
    assert [(a["key"], a["position"]) for a in ScenarioParser.parse(grouped)] == [
        ("orders_1", 0),
        ("orders_2", 1),
        ("billing_1", 0),
    ]


def test_a_whitespace_prefix_is_no_prefix_and_an_empty_paste_has_no_scenarios(tmp_path):
    assert [s.key for s in ScenarioParser.scenarios("# Orders\nWhere?", key_prefix="  ")] == [
        "orders_1"
    ]
    for empty in ("", "  \n\n", "# Only a heading\n", "[]", "---\n"):
        assert ScenarioParser.parse(empty) == []
    path = tmp_path / "empty.txt"
    path.write_text("\n")
    with pytest.raises(assay.SpecError, match=r"empty\.txt: holds no scenarios"):
        load_pasted(path)
