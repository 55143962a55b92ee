"""A pasted-scenario file that is really another document is refused, not read as prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_agents import SpecError
from assay_agents.load.pasted import load_pasted

DATASETS = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_a_promptfoo_config_saved_as_text_is_refused_saying_what_it_is(tmp_path, suffix):
    path = tmp_path / f"evals{suffix}"
    path.write_text((DATASETS / "promptfooconfig.yaml").read_text())
    with pytest.raises(SpecError) as raised:
        load_pasted(path)
    assert str(raised.value) == (
        f"{path}: is not a list of pasted scenarios: it looks like a promptfoo configuration "
        f"(assay-agents import-dataset {path} --from promptfoo makes an Assay suite of it)"
    )


def test_a_structured_yaml_mapping_is_refused_with_its_keys(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("model:\n  name: gpt\n  settings:\n    temperature: 0\nowner: me\n")
    with pytest.raises(SpecError, match="looks like a YAML mapping with keys model, owner"):
        load_pasted(path)


def test_a_json_mapping_that_is_no_scenario_is_refused(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text('{"cases": [{"inputs": "hi"}]}')
    with pytest.raises(SpecError, match="looks like a pydantic-evals dataset"):
        load_pasted(path)


@pytest.mark.parametrize(
    "text",
    [
        "Orders:\n- Refund: order 42 arrived broken\n- Where is my parcel?\n",
        "Where is my order 4821? | tools: lookup_order\n",
        "Billing: why was I charged twice?\nShipping: where is my parcel?\n",
        '{"prompt": "Where is my order?", "key": "order"}',
        "suite: support\ngroups:\n  - key: orders\n    scenarios:\n      - Where is my order?\n",
    ],
)
def test_prompts_that_read_as_yaml_and_scenario_documents_still_load(tmp_path, text):
    path = tmp_path / "paste.md"
    path.write_text(text)
    assert load_pasted(path).cases


def test_a_catalog_import_refuses_the_same_file_and_standard_input(tmp_path):
    from assay_agents.load.merging import read_paste

    path = tmp_path / "new_questions.txt"
    text = (DATASETS / "pydantic_evals_cases.yaml").read_text()
    path.write_text(text)
    with pytest.raises(SpecError, match="looks like a pydantic-evals dataset"):
        read_paste(path)
    with pytest.raises(SpecError, match="<stdin>: is not a list of pasted scenarios"):
        read_paste(None, text)
