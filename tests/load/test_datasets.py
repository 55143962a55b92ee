"""Other tools' datasets as suites: the mappings the fixtures do not show."""

from __future__ import annotations

import json

import pytest

from assay_agents import SpecError
from assay_agents.load.datasets import import_dataset

PROMPTFOO = """\
prompts:
  - "Answer briefly: {{question}}"
  - "Answer in detail: {{question}}"
defaultTest:
  assert:
    - type: similar
      value: a helpful answer
tests:
  - vars:
      question: Where is my order?
    assert:
      - type: not-icontains
        value: sorry
  - vars:
      question: Can I pay by card?
      language: en
"""


def _lines(imported):
    return [item.line("f") for item in imported.unmapped]


def test_several_prompts_make_the_vars_the_prompt_and_say_so(tmp_path):
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(PROMPTFOO)
    imported = import_dataset(path)
    scenarios = imported.document["groups"][0]["scenarios"]
    assert [s["prompt"] for s in scenarios] == [
        "Where is my order?",
        "question: Can I pay by card?\nlanguage: en",
    ]
    lines = _lines(imported)
    assert any(line.startswith("f: prompts: 2 prompts:") for line in lines)
    # The default test's assertion is every test's, and is named once.
    assert (
        lines.count(
            "f: defaultTest.assert[0]: similar: Assay has no embedding-similarity "
            "check; a judge rubric or reference can stand in"
        )
        == 1
    )
    assert "f: tests[0].assert[0]: not-icontains: Assay has no negated form of it" in lines


def test_inspect_reads_a_json_list_and_leaves_a_conversation_out(tmp_path):
    path = tmp_path / "samples.json"
    samples = [
        {"input": "Where is my order?", "target": "shipped"},
        {
            "input": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
            ],
            "target": "Hello",
        },
    ]
    path.write_text(json.dumps(samples))
    imported = import_dataset(path, "inspect")
    assert [s["key"] for s in imported.document["groups"][0]["scenarios"]] == ["inspect_1"]
    assert any(line.startswith("f: [1].input: a conversation") for line in _lines(imported))


def test_structured_pydantic_evals_inputs_are_json_text(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [{"inputs": {"city": "Lisbon", "days": 3}}]}))
    imported = import_dataset(path)
    (scenario,) = imported.document["groups"][0]["scenarios"]
    assert json.loads(scenario["prompt"]) == {"city": "Lisbon", "days": 3}
    assert "f: cases[0].inputs: structured inputs are given to the agent as JSON text" in (
        _lines(imported)
    )


def test_a_file_of_the_wrong_shape_for_the_tool_is_refused(tmp_path):
    path = tmp_path / "goldens.json"
    path.write_text(json.dumps({"cases": []}))
    with pytest.raises(SpecError, match=r"goldens\.json: must be a list of goldens"):
        import_dataset(path, "deepeval")


def _promptfoo(tmp_path, text):
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(text)
    imported = import_dataset(path)
    return imported.document["groups"][0]["scenarios"], _lines(imported)


TRANSFORMED = """\
prompts: ["{{q}}"]
defaultTest:
  threshold: 0.5
  options:
    transform: output.toUpperCase()
  assert:
    - type: contains
      value: YES
tests:
  - vars: {q: hi}
    assert:
      - type: icontains
        value: info
"""

WEAKENED = """\
prompts: ["{{q}}"]
tests:
  - vars: {q: "file:///etc/passwd"}
    assert:
      - type: contains-any
        value: []
      - type: icontains
        value: info
        weight: 0
      - type: equals
        value: exact
      - type: regex
        value: "^(a+)+$"
"""


def test_promptfoo_assertions_on_transformed_output_are_not_mapped(tmp_path):
    scenarios, lines = _promptfoo(tmp_path, TRANSFORMED)
    assert "expect" not in scenarios[0]  # no check meant for transformed output runs on raw
    assert any(line.startswith("f: defaultTest.options.transform:") for line in lines)
    assert any(line.startswith("f: defaultTest.assert[0]: contains: it checks") for line in lines)
    assert any(line.startswith("f: tests[0].assert[0]: icontains: it checks") for line in lines)
    assert any(line.startswith("f: defaultTest.threshold: promptfoo passes") for line in lines)


def test_promptfoo_parts_that_change_what_is_checked_are_named(tmp_path):
    scenarios, lines = _promptfoo(tmp_path, WEAKENED)
    expect = scenarios[0]["expect"]
    assert scenarios[0]["prompt"] == "file:///etc/passwd"
    assert any("tests[0].vars.q" in line and "not read" in line for line in lines)
    assert any("tests[0].assert[0]: contains-any: " in line for line in lines)
    assert any("tests[0].assert[1]: icontains: weight 0" in line for line in lines)
    assert any("tests[0].assert[2]: equals:" in line and "whitespace" in line for line in lines)
    assert any("tests[0].assert[3]: regex: its pattern nests" in line for line in lines)
    assert expect == {"equals": "exact"}


def test_a_nested_quantifier_pattern_is_not_mapped(tmp_path):
    text = 'prompts: ["{{q}}"]\ntests:\n  - vars: {q: hi}\n    assert:\n'
    for pattern in ["^(a+)+$", "(\\\\w*x)*", "(a|b+){2,}", "^[a-z]+$", "(ab)+"]:
        text += f"      - type: regex\n        value: '{pattern}'\n"
    scenarios, lines = _promptfoo(tmp_path, text)
    assert scenarios[0]["expect"]["regex"] == ["^[a-z]+$", "(ab)+"]
    assert sum("nests a quantifier" in line for line in lines) == 3
