"""Other tools' datasets as suites: the mappings the fixtures do not show."""

from __future__ import annotations

import json

import pytest

from assay import SpecError
from assay.load.datasets import import_dataset

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
