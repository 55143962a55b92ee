import textwrap

import pytest

import assay_agents as assay
from assay_agents.load import load_suite, select

BASE = """\
suite: support_bot
description: The questions the support team fields every week
groups:
  - key: orders
    name: Orders
    scenarios:
      - key: orders_1
        prompt: Where is my order?
        expect:
          tools: [lookup_order]
          contains: [order]
        notes: Looks the order up first.
        tags: [orders]
        params: {locale: en}
      - key: orders_2
        prompt: Cancel my subscription
        expect:
          not_contains: ["I cannot"]
        production_only: true
  - key: billing
    name: Billing
    scenarios:
      - key: billing_1
        prompt: Send me my invoice
"""

OVERLAY = """\
suite: support_bot
groups:
  - key: orders
    scenarios:
      - key: orders_1
        prompt: Where is order 4821?
      - key: orders_3
        prompt: Change my delivery address
  - key: returns
    name: Returns
    scenarios:
      - key: billing_1
        prompt: Can I return my invoice?
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def agent(text, ctx):
    return assay.Outcome(answer=f"order {text}", actions=[assay.Action("lookup_order")])


def test_a_yaml_suite_loads_groups_expectations_notes_flags_tags_and_params(tmp_path):
    suite = load_suite(write(tmp_path, "support.yml", BASE), agent=agent)
    assert suite.name == "support_bot" and suite.description.startswith("The questions")
    first, second, third = suite.cases
    assert (first.id, first.input, first.group, first.notes) == (
        "orders_1",
        "Where is my order?",
        "orders",
        "Looks the order up first.",
    )
    assert first.tags == ("orders",) and first.params == {"locale": "en"}
    assert [check.name for check in first.checks] == ["tools_called", "contains"]
    assert second.production_only and [c.name for c in second.checks] == ["not_contains"]
    assert third.group == "billing" and third.checks == ()


def test_later_files_layer_over_earlier_ones_by_key(tmp_path):
    suite = load_suite(
        write(tmp_path, "base.yml", BASE), write(tmp_path, "acme.yml", OVERLAY), agent=agent
    )
    assert [case.id for case in suite.cases] == ["orders_1", "orders_2", "billing_1", "orders_3"]
    by_id = {case.id: case for case in suite.cases}
    assert by_id["orders_1"].input == "Where is order 4821?"
    assert by_id["orders_1"].checks == ()  # replaced whole, expectations included
    assert by_id["billing_1"].group == "returns"  # moved with its replacement


def test_selection_by_group_and_production_flag(tmp_path):
    path = write(tmp_path, "support.yml", BASE)
    orders = load_suite(path, agent=agent, groups=["orders"], include_production_only=False)
    assert [case.id for case in orders.cases] == ["orders_1"]
    everything = load_suite(path, agent=agent)
    assert [case.id for case in select(everything, cases=["billing_1"]).cases] == ["billing_1"]
    with pytest.raises(assay.SpecError, match=r"no group 'order' \(did you mean 'orders'\?\)"):
        select(everything, groups=["order"])
    with pytest.raises(assay.SpecError, match="no case 'orders_9'"):
        select(everything, cases=["orders_9"])
    with pytest.raises(assay.SpecError, match="the selection holds no case"):
        select(everything, cases=["orders_2"], include_production_only=False)


def test_a_yaml_suite_runs_with_its_declared_agent(tmp_path, monkeypatch):
    (tmp_path / "support_agent.py").write_text(
        "def agent(text, ctx):\n    return {'answer': 'your order', 'actions': "
        "[{'name': 'lookup_order'}]}\n"
    )
    path = write(tmp_path, "support.yml", "agent: support_agent:agent\n" + BASE)
    monkeypatch.chdir(tmp_path)
    suite = load_suite(path, groups=["orders"])
    assert suite.agent_name == "support_agent:agent"
    run = assay.run(suite, progress=False)
    assert [s.status.value for s in run.samples] == ["passed", "passed"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            BASE.replace("prompt: Where is my order?", "promt: Where is my order?"),
            "groups[0].scenarios[0].promt: unknown field (did you mean 'prompt'?)",
        ),
        (
            BASE.replace("tools: [lookup_order]", "tool: [lookup_order]"),
            "groups[0].scenarios[0].expect.tool: unknown field (did you mean 'tools'?)",
        ),
        (
            BASE.replace("key: orders_2", "key: orders_1"),
            "groups[0].scenarios[1].key: duplicate scenario key 'orders_1'",
        ),
        (BASE.replace("key: billing\n", "key: orders\n"), "groups[1].key: duplicate group key"),
        (
            BASE.replace("production_only: true", "production_only: yes please"),
            "groups[0].scenarios[1].production_only: Input should be a valid boolean",
        ),
        (
            BASE.replace("suite: support_bot", "suite: [a, b]"),
            "suite: Input should be a valid string",
        ),
        ("suite: s\ngroups: {}\n", "groups: Input should be a valid list"),
        ("suite: s\nsuite: t\n", "invalid YAML"),
        ("- just\n- a list\n", "must be a table (mapping), not a list"),
        ("suite: s\ngroups: [\n", "invalid YAML"),
    ],
)
def test_bad_yaml_suites_are_refused_with_the_field_path(tmp_path, text, message):
    with pytest.raises(assay.SpecError) as caught:
        load_suite(write(tmp_path, "bad.yml", text))
    assert "bad.yml" in str(caught.value) and message in str(caught.value)


def test_dates_stay_text_and_unknown_suffixes_are_refused(tmp_path):
    suite = load_suite(
        write(
            tmp_path,
            "s.yml",
            "suite: s\ngroups:\n  - key: g\n    scenarios:\n"
            "      - key: k\n        prompt: 2024-01-01\n",
        )
    )
    assert suite.cases[0].input == "2024-01-01"
    with pytest.raises(assay.SpecError, match="is not a YAML suite"):
        load_suite(write(tmp_path, "s.ini", "x"))


def test_a_later_file_without_its_own_suite_name_layers_over_the_first(tmp_path):
    unnamed = OVERLAY.replace("suite: support_bot\n", "")
    suite = load_suite(
        write(tmp_path, "base.yml", BASE), write(tmp_path, "acme.yml", unnamed), agent=agent
    )
    assert suite.name == "support_bot"
    assert [case.id for case in suite.cases] == ["orders_1", "orders_2", "billing_1", "orders_3"]
    assert suite.cases[0].input == "Where is order 4821?"


def test_expectations_is_the_long_name_of_expect_and_a_scalar_a_list_of_one(tmp_path):
    text = BASE.replace(
        "expect:\n          tools: [lookup_order]\n          contains: [order]",
        'expectations:\n          tools: lookup_order\n          contains: "30"',
    )
    first = load_suite(write(tmp_path, "s.yml", text), agent=agent).cases[0]
    assert [(check.name, getattr(check, "text", None)) for check in first.checks] == [
        ("tools_called", None),
        ("contains", "30"),
    ]
    typo = text.replace("expectations:", "expectatons:")
    with pytest.raises(
        assay.SpecError,
        match=r"expectatons: unknown field \(did you mean "
        r"'expectations'\?\)",
    ):
        load_suite(write(tmp_path, "typo.yml", typo))
