"""``assay-agents import-dataset``: other tools' datasets become suites that validate and run."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml

DATASETS = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"

AGENT = """\
import assay_agents as assay


ANSWERS = {
    "return": "You have 30 days to return an item for a full refund.",
    "order": "Your order 4821 has shipped.",
    "hello": "Hello",
    "broken": "I am sorry it arrived broken; we will send a replacement.",
}


def agent(text, ctx):
    for word, answer in ANSWERS.items():
        if word in text:
            called = [assay.Action("lookup_order", {"order_id": "4821"})]
            return assay.Outcome(answer=answer, actions=called if word == "order" else [])
    return assay.Outcome(answer="I do not know.", actions=[])
"""


def _copied(cli: Any, name: str) -> Path:
    (cli.cwd / "support_agent.py").write_text(AGENT)
    return Path(shutil.copy(DATASETS / name, cli.cwd / name))


def _scenarios(path: Path) -> dict[str, Any]:
    document = yaml.safe_load(path.read_text())
    return {s["key"]: s for group in document["groups"] for s in group["scenarios"]}


def _ran(cli: Any, suite: str) -> dict[str, str]:
    done = cli("run", suite, "--agent", "support_agent.py:agent", "--quiet")
    assert done.returncode in (0, 1), done.output
    report = cli.json_report()
    return {sample["case_id"]: sample["status"] for sample in report["samples"]}


def test_a_promptfoo_config_becomes_a_suite_that_validates_and_runs(cli):
    _copied(cli, "promptfooconfig.yaml")
    done = cli("import-dataset", "promptfooconfig.yaml", "--output", "support.yaml")
    assert done.returncode == 0, done.output
    assert "wrote 4 scenario(s) from promptfoo to support.yaml" in done.stdout
    # Each part it could not map is its own line, naming where it is.
    assert "promptfooconfig.yaml: tests[1].assert[2]: similar:" in done.stderr
    assert "promptfooconfig.yaml: tests[3].assert[1]: javascript:" in done.stderr
    scenarios = _scenarios(cli.cwd / "support.yaml")
    returns = scenarios["return_window"]
    # The one prompt is the template the vars fill.
    assert returns["prompt"].endswith("Answer the customer: How long do I have to return an item?")
    assert returns["expect"] == {
        "not_contains": ["As an AI"],
        "contains": ["30 days"],
        "icontains": ["refund"],
        "max_latency_ms": 5000,
    }
    assert scenarios["order_status"]["expect"]["contains"] == ["order", "shipped"]
    assert scenarios["order_status"]["expect"]["regex"] == [r"\b4821\b"]
    assert scenarios["greeting"]["expect"]["equals"] == "Hello"
    assert scenarios["tone"]["rubrics"] == ["Apologises once and offers a replacement or a refund"]
    assert cli("validate", "support.yaml").returncode == 0
    statuses = _ran(cli, "support.yaml")
    assert statuses["return_window"] == "passed"
    assert statuses["order_status"] == "passed"
    assert statuses["greeting"] == "passed"


def test_inspect_samples_map_targets_as_includes_and_a_list_as_any_of(cli):
    _copied(cli, "inspect_samples.jsonl")
    done = cli("import-dataset", "inspect_samples.jsonl")
    assert done.returncode == 0, done.output
    assert "from inspect to inspect_samples.assay.yaml" in done.stdout
    assert "line 3: choices: a multiple-choice sample" in done.stderr
    assert "scorer lives in its Python" in done.stderr
    scenarios = _scenarios(cli.cwd / "inspect_samples.assay.yaml")
    assert set(scenarios) == {"return_window", "order_status"}
    assert scenarios["return_window"]["expect"] == {"answer": "30 days", "icontains": ["30 days"]}
    assert scenarios["return_window"]["params"] == {"topic": "returns"}
    assert scenarios["order_status"]["expect"] == {"icontains_any": ["shipped", "on its way"]}
    statuses = _ran(cli, "inspect_samples.assay.yaml")
    assert statuses == {"return_window": "passed", "order_status": "passed"}


def test_a_pydantic_evals_dataset_the_library_loads_maps_its_evaluators(cli):
    from pydantic_evals import Dataset

    path = _copied(cli, "pydantic_evals_cases.yaml")
    loaded = Dataset[str, str, Any].from_file(path)  # the file is one pydantic-evals reads
    assert [case.name for case in loaded.cases] == ["return_window", "greeting", "broken_parcel"]
    done = cli("import-dataset", path.name, "--output", "cases.yaml")
    assert done.returncode == 0, done.output
    # A dataset-level evaluator it cannot map is named once, not once per case.
    assert done.stderr.count("evaluators[1]: IsInstance") == 1
    scenarios = _scenarios(cli.cwd / "cases.yaml")
    assert scenarios["return_window"]["expect"] == {
        "max_latency_ms": 5000,
        "contains": ["30 days"],
        "answer": "30 days",
    }
    assert scenarios["greeting"]["expect"] == {"max_latency_ms": 5000, "equals": "Hello"}
    assert scenarios["broken_parcel"]["expect"]["icontains"] == ["sorry"]
    assert scenarios["broken_parcel"]["rubrics"] == [
        "Apologises once and offers a replacement or a refund"
    ]
    statuses = _ran(cli, "cases.yaml")
    assert statuses == {"return_window": "passed", "greeting": "passed", "broken_parcel": "passed"}


def test_deepeval_goldens_map_expected_tools_to_actions_and_context_to_facts(cli):
    _copied(cli, "deepeval_goldens.json")
    done = cli(
        "import-dataset",
        "deepeval_goldens.json",
        "--output",
        "goldens.yaml",
        "--action-group",
        "orders",
    )
    assert done.returncode == 0, done.output
    assert "[1].retrieval_context" in done.stderr
    assert "name no group" not in done.stderr  # --action-group named it
    scenarios = _scenarios(cli.cwd / "goldens.yaml")
    first, second = scenarios["deepeval_1"], scenarios["deepeval_2"]
    assert first["expect"]["actions"] == [
        {"group": "orders", "name": "lookup_order", "arguments": {"order_id": "4821"}}
    ]
    assert first["facts"] == ["Order 4821 shipped on 3 March.", "Orders ship within 2 days."]
    # A tool named without its arguments: that it is called, as DeepEval compares names.
    assert second["expect"]["tools"] == ["search_policies"]
    assert second["notes"] == "Policy question"
    assert cli("validate", "goldens.yaml").returncode == 0


def test_deepeval_expected_actions_without_a_group_are_refused(cli):
    _copied(cli, "deepeval_goldens.json")
    done = cli("import-dataset", "deepeval_goldens.json", "--output", "goldens.yaml")
    assert done.returncode == 2, done.output
    assert "deepeval_goldens.json" in done.stderr and "--action-group" in done.stderr
    assert not (cli.cwd / "goldens.yaml").exists()


def test_the_tool_is_told_from_the_file_where_only_one_writes_it(cli):
    for name, tool in [
        ("promptfooconfig.yaml", "promptfoo"),
        ("pydantic_evals_cases.yaml", "pydantic-evals"),
        ("deepeval_goldens.json", "deepeval"),
        ("inspect_samples.jsonl", "inspect"),
    ]:
        _copied(cli, name)
        # DeepEval's exact calls name no group: the import is told which one.
        grouped = ["--action-group", "orders"] if tool == "deepeval" else []
        done = cli("import-dataset", name, "--output", f"{tool}.yaml", *grouped)
        assert done.returncode == 0, done.output
        assert f"from {tool} to" in done.stdout


def test_a_file_two_tools_could_have_written_is_refused(cli):
    (cli.cwd / "bare.json").write_text(json.dumps([{"input": "Where is my order?"}]))
    done = cli("import-dataset", "bare.json")
    assert done.returncode == 2
    assert "bare.json: cannot tell which tool wrote it (it reads as deepeval or inspect)" in (
        done.stderr
    )
    assert not list(cli.cwd.glob("*.assay.yaml"))
    done = cli("import-dataset", "bare.json", "--from", "inspect", "--output", "bare.yaml")
    assert done.returncode == 0, done.output


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        (
            "tests.yaml",
            "tests:\n  - vars: {q: hi}\n    assert:\n      - value: x\n",
            "tests.yaml: tests[0].assert[0].type: is missing",
        ),
        ("cases.yaml", "cases:\n  - name: one\n", "cases.yaml: cases[0].inputs: is missing"),
        ("goldens.json", '[{"expected_output": "x"}]', "goldens.json: [0].input: is missing"),
        ("samples.jsonl", '{"input": "a", "target": "b"}\n{"input": ', "samples.jsonl: line 2:"),
        ("samples.jsonl", '{"target": "b"}\n', "samples.jsonl: line 1: input: is missing"),
        ("broken.yaml", "tests: [\n", "broken.yaml: invalid YAML"),
        ("notes.csv", "input,target\n", "notes.csv: is a .csv file"),
        (
            "meta.yaml",
            "cases:\n  - inputs: hi\n    metadata: {1: x}\n",
            "meta.yaml: groups[0].scenarios[0].params[1].[key]: the suite it makes does not load",
        ),
    ],
)
def test_bad_datasets_exit_2_naming_the_file_and_field(cli, name, text, said):
    (cli.cwd / name).write_text(text)
    done = cli("import-dataset", name, "--output", "out.yaml")
    assert done.returncode == 2, done.output
    assert said in done.stderr
    assert not (cli.cwd / "out.yaml").exists()


def test_an_unknown_source_is_refused(cli):
    _copied(cli, "promptfooconfig.yaml")
    done = cli("import-dataset", "promptfooconfig.yaml", "--from", "ragas")
    assert done.returncode == 2
    assert "--from: unknown source 'ragas'; one of promptfoo, inspect, pydantic-evals" in (
        done.stderr
    )


def test_the_dataset_itself_is_never_overwritten(cli):
    path = _copied(cli, "pydantic_evals_cases.yaml")
    before = path.read_text()
    done = cli("import-dataset", path.name, "--output", path.name)
    assert done.returncode == 2
    assert "is the dataset being imported" in done.stderr
    assert path.read_text() == before


def test_an_output_in_a_missing_folder_is_refused_naming_it(cli):
    _copied(cli, "deepeval_goldens.json")
    done = cli(
        "import-dataset",
        "deepeval_goldens.json",
        "--output",
        "gone/goldens.yaml",
        "--action-group",
        "orders",
    )
    assert done.returncode == 2
    assert "--output gone/goldens.yaml: its folder does not exist" in done.stderr


def test_deepeval_tools_some_with_arguments_say_which_arguments_are_not_checked(cli):
    goldens = [
        {
            "input": "Where is order 4821?",
            "expected_tools": [
                {"name": "lookup_order", "input_parameters": {"order_id": "4821"}},
                "notify",
            ],
        }
    ]
    (cli.cwd / "mixed.json").write_text(json.dumps(goldens))
    done = cli("import-dataset", "mixed.json", "--from", "deepeval")
    assert done.returncode == 0, done.output
    assert "[0].expected_tools[0].input_parameters" in done.stderr
    assert "arguments are not checked" in done.stderr
    scenario = _scenarios(cli.cwd / "mixed.assay.yaml")["deepeval_1"]
    assert scenario["expect"]["tools"] == ["lookup_order", "notify"]


def test_the_default_output_is_beside_the_dataset_named_from_its_whole_stem(cli):
    (cli.cwd / "sub").mkdir()
    shutil.copy(DATASETS / "pydantic_evals_cases.yaml", cli.cwd / "sub" / "a.v1.yaml")
    done = cli("import-dataset", "sub/a.v1.yaml")
    assert done.returncode == 0, done.output
    written = cli.cwd / "sub" / "a.v1.assay.yaml"
    assert written.exists()
    assert not (cli.cwd / "a.assay.yaml").exists()
    # The written file's mode follows the umask, as any new file's does.
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask


def test_an_existing_output_is_refused_unless_forced(cli):
    _copied(cli, "pydantic_evals_cases.yaml")
    precious = cli.cwd / "precious.yaml"
    precious.write_text("hand written\n")
    done = cli("import-dataset", "pydantic_evals_cases.yaml", "--output", "precious.yaml")
    assert done.returncode == 2
    assert "--output precious.yaml: exists; give --force to replace it" in done.stderr
    assert precious.read_text() == "hand written\n"
    forced = cli(
        "import-dataset", "pydantic_evals_cases.yaml", "--output", "precious.yaml", "--force"
    )
    assert forced.returncode == 0, forced.output
    assert precious.read_text() != "hand written\n"


def test_the_written_path_is_printed_escaped(cli):
    _copied(cli, "pydantic_evals_cases.yaml")
    done = cli("import-dataset", "pydantic_evals_cases.yaml", "--output", "x\x1b[31m.yaml")
    assert done.returncode == 0, done.output
    assert "\x1b" not in done.stdout
    assert (cli.cwd / "x\x1b[31m.yaml").exists()
