"""The expectations a YAML scenario may give beyond tools and contained text, as checks."""

from __future__ import annotations

import pytest

from assay_agents import SpecError, load_suite

SUITE = """\
suite: support
groups:
  - key: orders
    scenarios:
      - key: order
        prompt: Where is order 4821?
        expect:
          equals: Your order 4821 has shipped.
          icontains: [SHIPPED]
          contains_any: [shipped, on its way]
          icontains_any: [SHIPPED, sent]
          regex: ['\\b4821\\b']
          max_latency_ms: 5000
          actions:
            - {group: orders, name: lookup_order, arguments: {order_id: "4821"}}
        rubrics:
          - Says when the order will arrive
          - {rubric: Is polite, threshold: 0.8}
        facts: [Order 4821 shipped on 3 March.]
"""


def _case(tmp_path, text=SUITE):
    path = tmp_path / "support.yaml"
    path.write_text(text)
    return load_suite(path, imports=False).cases[0]


def test_each_expectation_is_an_existing_check_or_criterion(tmp_path):
    case = _case(tmp_path)
    specs = {check.name: {"factory": check.factory, **check.settings()} for check in case.checks}
    assert case.reference == "Your order 4821 has shipped."
    assert specs["equals"]["factory"] == "exact_match"
    assert specs["icontains"]["factory"] == "contains"
    assert specs["icontains"]["ignore_case"] is True
    assert specs["contains_any"]["factory"] == "regex"
    assert specs["contains_any"]["pattern"] == "shipped|on\\ its\\ way"
    assert specs["contains_any"]["ignore_case"] is False
    assert specs["icontains_any"]["ignore_case"] is True
    assert specs["regex"]["pattern"] == "\\b4821\\b"
    assert specs["max_latency_ms"]["milliseconds"] == 5000
    assert [a.to_json() for a in case.expected_actions] == [
        {"group": "orders", "name": "lookup_order", "arguments": {"order_id": "4821"}}
    ]
    assert [(c.name, c.rubric, c.threshold) for c in case.criteria] == [
        ("rubric[0]", "Says when the order will arrive", 0.5),
        ("rubric[1]", "Is polite", 0.8),
    ]
    assert case.metadata["important_facts"] == ["Order 4821 shipped on 3 March."]


def test_equals_and_answer_together_are_refused(tmp_path):
    text = SUITE.replace("          icontains: [SHIPPED]\n", "          answer: Shipped.\n")
    with pytest.raises(
        SpecError,
        match="give answer or equals",
    ):
        _case(tmp_path, text)


def test_a_latency_budget_below_one_millisecond_is_refused(tmp_path):
    text = SUITE.replace("max_latency_ms: 5000", "max_latency_ms: 0")
    with pytest.raises(SpecError, match=r"expect\.max_latency_ms"):
        _case(tmp_path, text)
