"""The dataset fixtures, loaded by the tools that write them, read as Assay imports them.

Inspect AI and DeepEval live in ``.venv-datasets`` and promptfoo in ``.node-datasets``, apart
from the test environment (their pins would move its packages); ``scripts/dataset_tools.sh``
builds both. Each tool runs as a subprocess without network: what it read is compared with
the suite :func:`import_dataset` makes of the same file. Out of CI a missing environment
skips these tests, saying how to build it; in CI (``CI=true``) it fails them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_agents.load.datasets import import_dataset

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ROOT / "tests" / "fixtures" / "datasets"
TOOLS = ROOT / ".venv-datasets" / "bin"
PYTHON = TOOLS / "python"
PROMPTFOO = ROOT / ".node-datasets" / "node_modules" / ".bin" / "promptfoo"

#: Inspect AI and DeepEval read their fixtures in one process: importing each costs seconds.
#: Each tool's reading (or its traceback) is printed under the tool's name.
BOTH_READ = """\
import json, sys, traceback

def inspect_reads(path):
    from inspect_ai.dataset import json_dataset

    def text(value):
        return value if isinstance(value, str) else [message.text for message in value]

    return [
        {"id": s.id, "input": text(s.input), "target": s.target, "choices": s.choices}
        for s in json_dataset(path)
    ]

def deepeval_reads(path):
    from deepeval.dataset import EvaluationDataset

    dataset = EvaluationDataset()
    dataset.add_goldens_from_json_file(file_path=path)
    return [golden.model_dump(mode="json") for golden in dataset.goldens]

read = {}
tools = {"inspect": inspect_reads, "deepeval": deepeval_reads}
for (tool, reads), path in zip(tools.items(), sys.argv[1:]):
    try:
        read[tool] = {"read": reads(path)}
    except Exception:
        read[tool] = {"error": traceback.format_exc()}
print(json.dumps(read))
"""

pytestmark = pytest.mark.process
#: The tests reading through ``tools_read`` run on one worker, which reads once.
one_reading = pytest.mark.xdist_group("dataset-tools")


def _needed(tool: Path) -> None:
    if tool.exists():
        return
    message = f"{tool} is not built (scripts/dataset_tools.sh builds it; .ci/run runs that)"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _quiet(tmp_path: Path) -> dict[str, str]:
    """The tools' environment: no telemetry, no update check, their files in ``tmp_path``."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
        "DEEPEVAL_RESULTS_FOLDER": str(tmp_path),
        "INSPECT_LOG_DIR": str(tmp_path),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
    }


def _run(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=_quiet(tmp_path),
        timeout=180,
    )


@pytest.fixture(scope="module")
def tools_read(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What Inspect AI and DeepEval read of their fixtures, each under its tool's name."""
    _needed(PYTHON)
    home = tmp_path_factory.mktemp("tools")
    inspect, deepeval = DATASETS / "inspect_samples.jsonl", DATASETS / "deepeval_goldens.json"
    done = _run([str(PYTHON), "-c", BOTH_READ, str(inspect), str(deepeval)], home)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _read_by(tool: str, tools_read: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    _needed(TOOLS / tool)  # the tool's own command, installed with it
    read = tools_read[tool]
    assert "error" not in read, read.get("error")
    return read["read"]


def _scenarios(path: Path) -> list[dict[str, Any]]:
    imported = import_dataset(path, action_group="orders")
    return imported.document["groups"][0]["scenarios"]  # type: ignore[index]


@one_reading
def test_inspect_reads_each_sample_assay_imports_with_the_same_input_and_target(tools_read):
    path = DATASETS / "inspect_samples.jsonl"
    samples = _read_by("inspect", tools_read)
    assert [s["id"] for s in samples] == ["return-window", "order-status", 3]
    imported = import_dataset(path)
    scenarios = _scenarios(path)
    # The one sample left out is the one the import names, by its line.
    left_out = [i for i, s in enumerate(samples) if s["choices"]]
    assert [u.path for u in imported.unmapped if u.path.endswith("choices")] == [
        f"line {i + 1}: choices" for i in left_out
    ]
    read = [s for i, s in enumerate(samples) if i not in left_out]
    assert [s["key"] for s in scenarios] == [s["id"].replace("-", "_") for s in read]
    assert [s["prompt"] for s in scenarios] == [s["input"] for s in read]
    one, several = scenarios
    assert one["expect"]["answer"] == read[0]["target"]
    assert several["expect"]["icontains_any"] == read[1]["target"]


@one_reading
def test_deepeval_reads_each_golden_assay_imports_with_its_tools_and_context(tools_read):
    path = DATASETS / "deepeval_goldens.json"
    goldens = _read_by("deepeval", tools_read)
    scenarios = _scenarios(path)
    assert len(goldens) == len(scenarios) == 2
    for golden, scenario in zip(goldens, scenarios, strict=True):
        assert scenario["prompt"] == golden["input"]
        assert scenario["expect"]["answer"] == golden["expected_output"]
        assert scenario["facts"] == golden["context"]
        assert scenario.get("params") == golden["additional_metadata"]
        assert scenario.get("notes") == golden["comments"]
    first, second = goldens
    assert scenarios[0]["expect"]["actions"] == [
        {"group": "orders", "name": t["name"], "arguments": t["input_parameters"]}
        for t in first["expected_tools"]
    ]
    assert scenarios[1]["expect"]["tools"] == [t["name"] for t in second["expected_tools"]]


def _promptfoo_accepts(path: Path, tmp_path: Path) -> tuple[bool, str]:
    """Whether ``promptfoo validate`` finds the config valid, and what it said.

    A config that does not match promptfoo's schema is reported ("Invalid configuration
    file ... at tests") and still ends "Configuration is valid." with exit 0, so the output
    is read as well as the exit code.
    """
    _needed(PROMPTFOO)
    done = _run([str(PROMPTFOO), "validate", "-c", str(path)], tmp_path)
    said = done.stdout + done.stderr
    accepted = (
        done.returncode == 0 and "Configuration is valid." in done.stdout and "Invalid" not in said
    )
    return accepted, said


def test_promptfoo_validates_the_config_assay_imports_a_scenario_per_test(tmp_path):
    path = DATASETS / "promptfooconfig.yaml"
    accepted, said = _promptfoo_accepts(path, tmp_path)
    assert accepted, said
    tests = yaml.safe_load(path.read_text())["tests"]
    assert [s["notes"] for s in _scenarios(path)] == [t["description"] for t in tests]


def test_promptfoo_validate_refuses_a_config_of_the_wrong_shape(tmp_path):
    # The check above could fail: a config whose tests are not a list is not accepted.
    broken = tmp_path / "promptfooconfig.yaml"
    shutil.copy(DATASETS / "promptfooconfig.yaml", broken)
    broken.write_text(broken.read_text().replace("\ntests:\n", "\ntests: 5\nunused:\n", 1))
    accepted, said = _promptfoo_accepts(broken, tmp_path)
    assert not accepted
    assert "at tests" in said
