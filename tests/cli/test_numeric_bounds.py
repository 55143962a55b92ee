"""Every number a run is given has one upper bound: command line, configuration, archives.

A small archived report claiming ``samples = 10**15`` is refused by its field, in work in
proportion to the file, never by building the plan it claims.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.limits import BOUNDS
from assay_agents.report import archive

SPEC = str(Path(__file__).resolve().parents[2] / "examples" / "support_eval.py")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(autouse=True)
def _no_database_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The JSON report of a completed run of the example suite, and its history's URL."""
    folder = tmp_path_factory.mktemp("job")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.delenv("ASSAY_DATABASE_URL", raising=False)
        patch.setenv("AGENT_REVISION", "reference")
        assert invoke("run", SPEC, "--quiet").exit_code in (0, 1)
        assert invoke("report", "--format", "json", "--output", "r.json").exit_code == 0
        data = dict(json.loads((folder / "r.json").read_text()))
    return data, f"sqlite:///{folder / '.assay' / 'assay.db'}"


@pytest.fixture
def archived(job: tuple[dict[str, Any], str]) -> dict[str, Any]:
    return job[0]


def _with_settings(data: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {**data, "settings": {**data["settings"], **settings}}


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"samples": 10**15}, "settings.samples"),
        ({"samples": 10**7}, "settings.samples"),
        ({"models": [f"m{n}" for n in range(5_000)]}, "settings.models"),
        ({"concurrency": 10**20}, "settings.concurrency"),
        ({"votes": 10**6}, "settings.votes"),
        ({"timeout": 1e300}, "settings.timeout"),
    ],
)
def test_an_archived_report_past_a_bound_exits_2_naming_the_setting(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    job: tuple[dict[str, Any], str],
    settings: dict[str, Any],
    field: str,
) -> None:
    archived, history = job
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(_with_settings({**archived, "id": "claims"}, **settings)))
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    for args in (
        ["compare", str(path), str(path)],
        ["import", str(path), "--db", fresh],
        ["report", archived["id"], "--baseline", str(path), "--db", history],
    ):
        tracemalloc.start()
        try:
            done = invoke(*args)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert done.exit_code == 2, (args, done.output)
        assert str(path) in done.stderr and field in done.stderr, (args, done.stderr)
        assert peak < 200 * 1024 * 1024, args  # the plan it claims was never built
    listed = invoke("history", "--db", fresh, "--format", "json")
    assert listed.exit_code in (0, 2) and "claims" not in listed.stdout  # nothing imported


def test_a_wide_plan_within_bounds_is_counted_not_built(archived: dict[str, Any]) -> None:
    # The most a report may claim: 10,000 samples on 100 models per case; the file holds
    # one sample, so the run is refused as incomplete, naming the first missing sample.
    most = {
        "samples": BOUNDS["samples"].high,
        "models": [f"m{n:03}" for n in range(int(BOUNDS["models"].high))],
    }
    data = _with_settings(archived, **most)
    data["samples"] = [{**data["samples"][0], "model": "m000", "sample": 0}]
    tracemalloc.start()
    try:
        with pytest.raises(archive.SpecError) as refused:
            archive.run_from_report(data, "wide.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.field == "samples"
    assert "missing, the first" in refused.value.detail
    assert "on 'm000' #1" in refused.value.detail  # the gap after the one it holds
    assert peak < 50 * 1024 * 1024


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--concurrency", "99999999999999999999"),
        ("--samples", "10001"),
        ("--votes", "101"),
        ("--timeout", "1e300"),
        ("--judge-timeout", "inf"),
        ("--sample-concurrency", "10001"),
        ("--store-retry", "1e9"),
        ("--lease-timeout", "1e9"),
        ("--judge-limit", "10001"),
    ],
)
def test_assay_run_refuses_a_number_past_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["run", SPEC, "--quiet", option, value])
    assert done.exit_code == 2, done.output
    assert option in done.output
    assert not (tmp_path / ".assay").exists()


def test_the_project_configuration_has_the_same_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "assay.toml").write_text("concurrency = 99999999999999999999\n")
    done = CliRunner().invoke(app, ["run", SPEC, "--quiet"])
    assert done.exit_code == 2, done.output
    assert "assay.toml" in done.stderr and "concurrency" in done.stderr
    assert "10,000" in done.stderr
    assert not (tmp_path / ".assay").exists()


@pytest.mark.parametrize(
    "setting",
    [
        "samples = 1000000000",
        "concurrency = 10001",
        "votes = 101",
        "sample_concurrency = 99999999999",
    ],
)
def test_a_suite_file_has_the_same_bound(tmp_path: Path, setting: str) -> None:
    (tmp_path / "suite.toml").write_text(f'agent = "x:y"\n{setting}\n')
    (tmp_path / "item.toml").write_text('id = "fixed"\n[input]\ntext = "hello"\n')
    done = CliRunner().invoke(app, ["validate", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert "suite.toml" in done.stderr and setting.split()[0] in done.stderr
