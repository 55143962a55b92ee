"""What a CI job archives (the JSON report) and what compare, report and import read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.errors import ReadOnlyRunError
from assay_agents.record import write_summary
from assay_agents.report import archive
from assay_agents.results import SampleResult, SampleStatus
from assay_agents.spec.json_data import digest
from assay_agents.store import Store

SPEC = str(Path(__file__).resolve().parents[2] / "examples" / "support_eval.py")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def job(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    revision: str = "reference",
    name: str = "report.json",
) -> tuple[str, Path]:
    """One CI job in a fresh folder: run the suite, archive its JSON report; (run id, file)."""
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("AGENT_REVISION", revision)
    done = invoke("run", SPEC, "--quiet")
    assert done.exit_code in (0, 1), done.output
    path = folder / name
    assert invoke("report", "--format", "json", "--output", str(path)).exit_code == 0
    return json.loads(path.read_text())["id"], path


def comparison(*args: str) -> dict[str, Any]:
    done = invoke("compare", *args, "--format", "json")
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


@pytest.fixture(autouse=True)
def _no_database_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)


@pytest.fixture(scope="module")
def earlier_job(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The text of the JSON report an earlier job archived: one run, read by every test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("ASSAY_DATABASE_URL", raising=False)
        _, path = job(tmp_path_factory.mktemp("earlier-job"), patch)
    return path.read_text()


@pytest.fixture
def archived(earlier_job: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The JSON report of a completed run, as an earlier job archived it (a copy to tamper with)."""
    monkeypatch.chdir(tmp_path)
    return dict(json.loads(earlier_job))


def renamed(data: dict[str, Any], suite: str) -> dict[str, Any]:
    """The report of a run of another suite: its run fingerprint follows its name."""
    items = sorted([case["id"], case["fingerprint"]] for case in data["cases"])
    identity = {"suite": suite, "version": data["suite_version"], "items": items}
    return {**data, "suite": suite, "fingerprint": digest(identity)}


def write(folder: Path, data: Any, name: str = "old.json") -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# -- compare and report read an archived report as either run ------------------------------


def test_a_ci_job_compares_with_the_artefact_of_an_earlier_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_id, old = job(tmp_path / "job-1", monkeypatch)
    new_job = tmp_path / "job-2"  # a new, empty folder: no history of the earlier job
    new_id, _ = job(new_job, monkeypatch, "regressed", name="new.json")
    (new_job / "old.json").write_bytes(old.read_bytes())

    against_id = comparison("old.json", new_id)
    against_file = comparison("old.json", "new.json")
    assert against_file == against_id
    assert against_id["baseline_id"] == old_id and against_id["current_id"] == new_id
    assert against_id["regressions"] == 2 and against_id["signal_regressions"] == 2

    # The same two runs compared inside one history give the same comparison.
    assert invoke("import", "old.json").exit_code == 0
    assert comparison(old_id, new_id) == against_id
    gated = invoke("compare", "old.json", "new.json", "--fail-on-regression")
    assert gated.exit_code == 1 and "2 signal regression(s)" in gated.output


def test_two_archived_reports_need_no_database_and_an_unchanged_run_has_no_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, first = job(tmp_path / "job-1", monkeypatch)
    _, second = job(tmp_path / "job-2", monkeypatch)
    elsewhere = tmp_path / "reviewer"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    done = invoke("compare", str(first), str(second), "--fail-on-regression")
    assert done.exit_code == 0, done.output  # the seed's `!has_signal_regression()`
    assert "0 regression(s)" in done.stdout
    same = invoke("compare", str(first), str(first))  # one file on both sides: no database
    assert same.exit_code == 0 and "0 regression(s)" in same.stdout, same.output
    assert not (elsewhere / ".assay").exists()  # nothing read or created a history


def test_report_baseline_reads_an_archived_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_id, old = job(tmp_path / "job-1", monkeypatch)
    new_id, _ = job(tmp_path / "job-2", monkeypatch, "regressed")
    (tmp_path / "job-2" / "old.json").write_bytes(old.read_bytes())
    from_file = invoke("report", new_id, "--baseline", "old.json")
    assert from_file.exit_code == 0, from_file.output
    assert f"Baseline {old_id}: 2 regression(s)" in from_file.stdout
    as_json = invoke("report", new_id, "--baseline", "old.json", "--format", "json")
    assert json.loads(as_json.stdout)["comparison"]["baseline_id"] == old_id

    assert invoke("import", "old.json").exit_code == 0
    assert invoke("report", new_id, "--baseline", old_id).stdout == from_file.stdout


def test_a_missing_report_file_is_a_missing_file_not_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, new = job(tmp_path, monkeypatch)
    done = invoke("compare", "gone.json", str(new))
    assert done.exit_code == 2 and "gone.json: no such file" in done.output
    refused = invoke("report", "--baseline", "gone.json")
    assert refused.exit_code == 2 and "gone.json: no such file" in refused.output


def test_a_report_of_another_suite_is_refused_as_a_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archived: dict[str, Any]
) -> None:
    job(tmp_path / "job", monkeypatch)
    other = renamed(archived, "Billing")
    write(tmp_path / "job", other)
    done = invoke("report", "--baseline", "old.json")
    assert done.exit_code == 2 and "suite 'Billing'" in done.output


# -- import --------------------------------------------------------------------------------


def test_import_keeps_the_id_is_read_only_and_idempotent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_url: str, archived: dict[str, Any]
) -> None:
    Store.open(store_url, migrate=True).close()
    path = write(tmp_path, archived)
    first = invoke("import", str(path), "--db", store_url)
    assert first.exit_code == 0, first.output
    assert f"imported run {archived['id']}" in first.stdout and "read-only" in first.stdout
    again = invoke("import", str(path), "--db", store_url)
    assert again.exit_code == 0, again.output
    assert "already in the history, identical: nothing changed" in again.stdout

    history = json.loads(invoke("history", "--format", "json", "--db", store_url).stdout)
    assert [run["id"] for run in history] == [archived["id"]]
    with Store.open(store_url) as store:
        stored = store.get_run(archived["id"])
        assert stored.status.value == "completed" and len(stored.samples) == 3
        assert archive.same_run(stored, archive.read_report(path))
        extra = SampleResult("returns", None, 7, SampleStatus.PASSED)
        with pytest.raises(ReadOnlyRunError):
            store.save_samples(stored.id, [extra])
    shown = invoke("report", archived["id"], "--db", store_url)
    assert shown.exit_code == 0 and "3/3" in shown.stdout


def test_an_imported_run_is_the_next_runs_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, archived: dict[str, Any]
) -> None:
    folder = tmp_path / "next-job"
    folder.mkdir()
    write(folder, archived)
    monkeypatch.chdir(folder)
    assert invoke("import", "old.json").exit_code == 0  # starts the history here
    monkeypatch.setenv("AGENT_REVISION", "regressed")
    done = invoke("run", SPEC, "--quiet", "--fail-on-regression")
    assert done.exit_code == 1
    assert f"Baseline: {archived['id'][:8]} (latest passing run)" in done.stdout


def test_the_same_id_with_other_evidence_is_refused_and_nothing_changes(
    tmp_path: Path, archived: dict[str, Any]
) -> None:
    assert invoke("import", str(write(tmp_path, archived))).exit_code == 0
    edited = {**archived, "metadata": {"revision": "rewritten"}}
    done = invoke("import", str(write(tmp_path, edited, "edited.json")))
    assert done.exit_code == 2
    assert "already in the history with different evidence (metadata differs)" in done.output
    with Store.open(None, create=False) as store:
        assert store.get_run(archived["id"]).metadata == archived["metadata"]


def test_only_a_completed_run_is_imported(tmp_path: Path, archived: dict[str, Any]) -> None:
    unfinished = {**archived, "status": "interrupted"}
    done = invoke("import", str(write(tmp_path, unfinished)))
    assert done.exit_code == 2 and "status: the run is interrupted" in done.output
    assert not (tmp_path / ".assay").exists()


def test_an_honest_report_is_stored_with_its_summary_recomputed(
    tmp_path: Path, archived: dict[str, Any]
) -> None:
    # An older report lacks figures a newer version adds: they are computed, never defaulted.
    stated = dict(archived["summary"])
    for name in ("faults", "latency_p95_ms", "total_cost_usd", "no_usage"):
        del archived["summary"][name]
    done = invoke("import", str(write(tmp_path, archived)))
    assert done.exit_code == 0, done.output
    with Store.open(f"sqlite:///{tmp_path}/.assay/assay.db") as store:
        stored = store.get_run(archived["id"]).summary
    assert stored is not None and write_summary(stored) == stated


def test_keys_a_newer_version_adds_are_ignored(tmp_path: Path, archived: dict[str, Any]) -> None:
    newer = {**archived, "schema_version": 99, "dashboard_url": "https://ci.example/9"}
    newer["samples"] = [{**sample, "trace_id": "abc"} for sample in archived["samples"]]
    newer["summary"] = {**archived["summary"], "carbon_g": 1.5}
    done = invoke("import", str(write(tmp_path, newer)))
    assert done.exit_code == 0, done.output
    again = invoke("import", str(write(tmp_path, archived, "plain.json")))
    assert "identical" in again.stdout  # what was ignored is not part of the evidence


def _tamper_status(data: dict[str, Any]) -> None:
    data["samples"][0]["status"] = "failed"


def _tamper_summary(data: dict[str, Any]) -> None:
    data["summary"]["passed"] = 2


def _tamper_fingerprint(data: dict[str, Any]) -> None:
    data["fingerprint"] = "0" * 64


def _tamper_case_definition(data: dict[str, Any]) -> None:
    data["cases"][0]["definition"]["input"] = "another question"


def _tamper_rate(data: dict[str, Any]) -> None:
    data["summary"]["pass_rate"] = 0.5


def _drop_sample(data: dict[str, Any]) -> None:
    data["samples"].pop()


def _repeat_sample(data: dict[str, Any]) -> None:
    data["samples"][1] = dict(data["samples"][0])


def _drop_cases(data: dict[str, Any]) -> None:
    del data["cases"]


def _wrong_type(data: dict[str, Any]) -> None:
    data["samples"][0]["metrics"][0]["score"] = "1.0"


def _unknown_status(data: dict[str, Any]) -> None:
    data["samples"][2]["status"] = "great"


def _nul_in_name(data: dict[str, Any]) -> None:
    data["cases"][0]["name"] = "ret\x00urns"


def _bad_timestamp(data: dict[str, Any]) -> None:
    data["started_at"] = "yesterday"


def _bad_comparison(data: dict[str, Any]) -> None:
    data["comparison"] = {"pairing": {}}


def _forge(path: str, value: Any) -> Any:
    """A tamper that writes ``value`` at the dotted ``path`` of the report."""

    def tamper(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for part in parents:
            data = data[part]
        data[last] = value

    tamper.__name__ = f"forge {path}"
    return tamper


def _forged_verdict(data: dict[str, Any]) -> None:
    data["verdict"] = {"model": "gpt-forged", "rationale": "best by far", "judge": "j"}


@pytest.mark.parametrize(
    ("tamper", "field", "detail"),
    [
        (
            _forge("summary.input_tokens", 5000),
            "summary.input_tokens",
            "is 5000, but the run's samples give 0",
        ),
        (_forge("summary.cost_usd", 0.0001), "summary.cost_usd", "samples give None"),
        (_forge("summary.latency_p95_ms", 1.0), "summary.latency_p95_ms", "is 1.0, but"),
        (
            _forge("summary.faults", {"run_error": 2}),
            "summary.faults.run_error",
            "is 2, but the run's samples give None",
        ),
        (_forge("summary.agent_error_rate", 0.5), "summary.agent_error_rate", "is 0.5"),
        (
            _forge("summary.failing_by_category.content", 1),
            "summary.failing_by_category.content",
            "is 1, but the run's samples give 0",
        ),
        (_forge("summary.judge", {"tone": {"mean": 1.0}}), "summary.judge.tone", "samples give"),
        (
            _forge("summary.by_model", {"gpt-x": {"samples": 3}}),
            "summary.by_model.gpt-x",
            "samples give",
        ),
        (_forged_verdict, "verdict.model", "'gpt-forged' is not a model the run compared"),
        (_tamper_status, "samples[0].status", "its error and metrics make it 'passed'"),
        (_tamper_summary, "summary.passed", "is 2, but the run's samples give 3"),
        (_tamper_rate, "summary.pass_rate", "is 0.5, but the run's samples give 1.0"),
        (_tamper_fingerprint, "fingerprint", "does not match the run's cases"),
        (_tamper_case_definition, "cases[0].fingerprint", "does not match the case's definition"),
        (_drop_sample, "samples", "1 planned sample(s) missing"),
        (_repeat_sample, "samples[1]", "repeats sample"),
        (_drop_cases, "cases", "missing"),
        (_wrong_type, "samples[0].metrics[0].score", "expected a number"),
        (_unknown_status, "samples[2].status", "'passed', 'failed', 'error', 'not_evaluated'"),
        (_nul_in_name, "cases[0].name", "NUL character"),
        (_bad_timestamp, "started_at", "expected an ISO 8601 timestamp"),
        (_bad_comparison, "comparison.baseline_id", "missing"),
        (_forge("settings.gate.tolerance", 5), "settings.gate.tolerance", "outside 0.0–1.0"),
        (_forge("settings.gate", [1]), "settings.gate", "object"),
        (
            _forge("settings.gate.thresholds", {"min_pass_rate": 2}),
            "settings.gate.thresholds.min_pass_rate",
            "not a number in [0, 1]",
        ),
        (_forge("settings.gate.allow_unchecked", "yes"), "settings.gate.allow_unchecked", "not"),
    ],
)
def test_a_tampered_or_invalid_report_exits_2_naming_the_file_and_the_field(
    tmp_path: Path, archived: dict[str, Any], tamper: Any, field: str, detail: str
) -> None:
    tamper(archived)
    path = write(tmp_path, archived)
    for command in (["import", str(path)], ["compare", str(path), str(path)]):
        done = invoke(*command)
        assert done.exit_code == 2, done.output
        assert f"error: {path}: {field}: " in done.output and detail in done.output, done.output
        assert "Traceback" not in done.output
    assert not (tmp_path / ".assay").exists()


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("{not json", "is not valid JSON"),
        ('{"id": "a", "id": "b"}', "duplicate key 'id'"),
        ('{"score": NaN}', "NaN is not a JSON number"),
        ("[" * 5000 + "]" * 5000, "nested more than 100 levels deep"),
        ('{"a":' * 150 + "1" + "}" * 150, "nested more than 100 levels deep"),
        ('{"suite": "x", "samples": [], "big": 99999999999999999999}', "beyond 64 bits"),
        ('{"name": "not a run"}', "is not a JSON report of a run"),
        ("[]", "is not a JSON report of a run"),
    ],
)
def test_a_file_that_is_not_a_report_exits_2_naming_it(
    tmp_path: Path, content: str, detail: str
) -> None:
    path = write(tmp_path, content)
    done = invoke("import", str(path))
    assert done.exit_code == 2 and f"error: {path}" in done.output
    assert detail in done.output, done.output


def test_a_huge_or_binary_file_is_refused_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_REPORT_BYTES", 1000)
    huge = write(tmp_path, "[" + "0," * 1000 + "0]")
    done = invoke("compare", str(huge), str(huge))
    assert done.exit_code == 2 and "more than a report may be (1,000 bytes)" in done.output
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    refused = invoke("import", str(binary))
    assert refused.exit_code == 2 and "is not UTF-8 text" in refused.output
    folder = tmp_path / "folder.json"
    folder.mkdir()
    assert "is not a regular file" in invoke("import", str(folder)).output


def test_control_characters_in_names_are_shown_not_obeyed(
    tmp_path: Path, archived: dict[str, Any]
) -> None:
    hostile = renamed(archived, "Support\x1b]0;pwned\x07")
    done = invoke("import", str(write(tmp_path, hostile)))
    assert done.exit_code == 0, done.output
    assert "\x1b" not in done.output and "Support\\x1b]0;pwned\\x07" in done.output


# -- what a report claims beyond its samples ------------------------------------------------


def _sample_field(index: int, value: Any, *keys: str) -> Any:
    """A tamper that writes ``value`` at ``samples[index].<keys...>``."""

    def tamper(data: dict[str, Any]) -> None:
        target = data["samples"][index]
        for key in keys[:-1]:
            target = target[key] if not isinstance(target, list) else target[int(key)]
        target[keys[-1]] = value

    tamper.__name__ = f"samples[{index}].{'.'.join(keys)} = {value!r}"
    return tamper


def _usage_source(data: dict[str, Any]) -> None:
    data["samples"][0]["usage"] = {
        "input_tokens": 1,
        "output_tokens": 1,
        "cost_usd": None,
        "cost_source": "guess",
    }


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (_sample_field(0, "tool", "fault"), "samples[0].fault"),
        (_sample_field(0, "great", "status"), "samples[0].status"),
        (_sample_field(0, "vibe", "metrics", "0", "kind"), "samples[0].metrics[0].kind"),
        (_sample_field(0, "", "metrics", "0", "category"), "samples[0].metrics[0].category"),
        (_usage_source, "samples[0].usage.cost_source"),
        (_forge("outcome", "great"), "outcome"),
    ],
)
def test_an_unknown_name_in_a_named_field_exits_2_naming_it(
    tmp_path: Path, archived: dict[str, Any], tamper: Any, field: str
) -> None:
    tamper(archived)
    path = write(tmp_path, archived)
    for command in (["import", str(path)], ["compare", str(path), str(path)]):
        done = CliRunner().invoke(app, command)
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
        assert done.exit_code == 2, done.output
        assert f"error: {path}: {field}: " in done.output, done.output
    assert not (tmp_path / ".assay").exists()


def test_a_failing_run_forged_as_passing_is_refused_and_never_a_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_url: str
) -> None:
    _, path = job(tmp_path / "failing-job", monkeypatch, "regressed")
    data = json.loads(path.read_text())
    assert data["outcome"] in ("regressed", "failed") and data["summary"]["failed"] == 1
    forged = {**data, "outcome": "passed", "id": "forged-run"}
    Store.open(store_url, migrate=True).close()
    done = invoke("import", str(write(tmp_path, forged, "forged.json")), "--db", store_url)
    assert done.exit_code == 2, done.output
    assert "forged.json: outcome: " in done.output and "1 failed" in done.output
    shown = invoke("baseline", "show", SPEC, "--db", store_url)
    assert "forged-run" not in shown.output and "latest passing run" not in shown.output


def test_an_errored_outcome_follows_the_samples(tmp_path: Path, archived: dict[str, Any]) -> None:
    claimed = {**archived, "outcome": "errored"}
    done = invoke("import", str(write(tmp_path, claimed)))
    assert done.exit_code == 2 and "outcome: " in done.output, done.output


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"calls": 5, "cost_usd": 99.0}, "judge_usage"),
        ({"calls": -1}, "judge_usage.calls"),
        ({"calls": "five"}, "judge_usage.calls"),
        ({"calls": 0, "cost_usd": -3.0}, "judge_usage.cost_usd"),
    ],
)
def test_a_judge_usage_without_a_verdict_is_refused(
    tmp_path: Path, archived: dict[str, Any], usage: Any, field: str
) -> None:
    assert archived["verdict"] is None
    path = write(tmp_path, {**archived, "judge_usage": usage})
    done = invoke("import", str(path))
    assert done.exit_code == 2, done.output
    assert f"error: {path}: {field}: " in done.output, done.output
    assert not (tmp_path / ".assay").exists()


@pytest.mark.parametrize(
    ("specs", "field"),
    [
        ("garbage", "settings.model_specs"),
        (["garbage"], "settings.model_specs[0]"),
        ([{"model": "m"}] * 200_000, "settings.model_specs"),
    ],
)
def test_model_specs_are_read_like_models(
    tmp_path: Path, archived: dict[str, Any], specs: Any, field: str
) -> None:
    archived["settings"]["model_specs"] = specs
    path = write(tmp_path, archived)
    for command in (["import", str(path)], ["compare", str(path), str(path)]):
        done = invoke(*command)
        assert done.exit_code == 2, (command, done.output)
        assert f"error: {path}: {field}: " in done.output, done.output
    assert not (tmp_path / ".assay").exists()


# -- what a run decided with is kept with it -------------------------------------------------


def test_a_run_keeps_its_gate_and_regression_settings_in_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "gated-job"
    folder.mkdir()
    monkeypatch.chdir(folder)
    done = invoke(
        "run", SPEC, "--quiet", "--gate", "min_pass_rate=0.5", "--tolerance", "0.1",
        "--fail-on-regression",
    )  # fmt: skip
    assert done.exit_code in (0, 1), done.output
    report = json.loads(invoke("report", "--format", "json").stdout)
    assert report["settings"]["gate"] == {
        "thresholds": {
            "min_pass_rate": 0.5,
            "max_side_effect_failures": 0,
            "min_judge_score": None,
        },
        "fail_on_regression": True,
        "allow_unchecked": False,
        "tolerance": 0.1,
        "drift_tolerance": 0.025,
    }


# -- import decides again what a run says about other runs -----------------------------------


@pytest.fixture
def compared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], ...]:
    """Two archived reports of one history: a passing run, then a regressed run compared to it."""
    folder = tmp_path / "earlier-jobs"
    _, first = job(folder, monkeypatch, name="first.json")
    _, second = job(folder, monkeypatch, "regressed", name="second.json")
    monkeypatch.chdir(tmp_path)
    return json.loads(first.read_text()), json.loads(second.read_text())


def test_an_archived_comparison_is_recomputed_against_its_baseline_here(
    tmp_path: Path, compared: tuple[dict[str, Any], ...]
) -> None:
    first, second = compared
    assert second["baseline_id"] == first["id"] and second["comparison"]["signal_regressions"] == 2
    forged = json.loads(json.dumps(second))
    forged["comparison"].update(changes=[], regressions=0, signal_regressions=0)
    assert invoke("import", str(write(tmp_path, first, "first.json"))).exit_code == 0
    done = invoke("import", str(write(tmp_path, forged, "second.json")))
    assert done.exit_code == 0, done.output
    assert "no comparison" not in done.output
    with Store.open(None, create=False) as store:
        stored = store.get_run(second["id"])
    assert stored.baseline_id == first["id"] and stored.outcome is not None
    assert stored.outcome.value == "regressed"
    assert stored.comparison is not None
    assert stored.comparison.baseline is not None
    assert len(stored.comparison.baseline.signal_regressions) == 2
    assert len(stored.comparison.baseline.changes) == 2
    again = invoke("import", str(write(tmp_path, second, "honest.json")))
    assert "identical" in again.stdout, again.output


def test_without_its_baseline_a_run_is_imported_without_a_comparison_and_says_so(
    tmp_path: Path, compared: tuple[dict[str, Any], ...]
) -> None:
    first, second = compared
    done = invoke("import", str(write(tmp_path, second, "second.json")))
    assert done.exit_code == 0, done.output
    assert f"no comparison: its baseline {first['id']} is not in this history" in done.stdout
    with Store.open(None, create=False) as store:
        stored = store.get_run(second["id"])
    assert stored.comparison is None and stored.baseline_id is None
    # What no baseline here can deny is kept: a regressed run is never a baseline.
    assert stored.outcome is not None and stored.outcome.value == "regressed"
    assert stored.baseline_choice is not None and stored.baseline_choice.run_id is None


def test_a_gated_outcome_is_decided_again_from_the_stored_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "gated-job"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("AGENT_REVISION", "regressed")
    assert invoke("run", SPEC, "--quiet", "--gate", "min_pass_rate=0.5").exit_code == 0
    data = json.loads(invoke("report", "--format", "json").stdout)
    assert data["outcome"] == "passed" and data["summary"]["failed"] == 1
    monkeypatch.chdir(tmp_path)
    forged = json.loads(json.dumps(data))
    forged["settings"]["gate"]["thresholds"]["min_pass_rate"] = 0.9
    done = invoke("import", str(write(tmp_path, forged, "forged.json")))
    assert done.exit_code == 2, done.output
    assert "forged.json: outcome: is 'passed', but the run's samples and its gate make it " \
        "'failed'" in done.output  # fmt: skip
    assert not (tmp_path / ".assay").exists()
    honest = invoke("import", str(write(tmp_path, data, "honest.json")))
    assert honest.exit_code == 0, honest.output  # failed samples within its gate: a pass


def _two_models(data: dict[str, Any]) -> dict[str, Any]:
    """The report as a run of two models with a judge that picked one (summary left to be
    recomputed: a figure a report leaves out is never refused)."""
    samples = [{**sample, "model": model} for sample in data["samples"] for model in "ab"]
    settings = {**data["settings"], "models": ["a", "b"], "judge": "j"}
    settings.pop("model_specs", None)
    return {
        **data,
        "settings": settings,
        "samples": samples,
        "summary": {},
        "verdict": {"model": "a", "rationale": "steadier", "judge": "j"},
        "judge_usage": {
            "calls": 1,
            "attempts": 2,
            "input_tokens": 900,
            "output_tokens": 80,
            "cost_usd": 0.002,
            "by_kind": {"verdict": 1},
            "model": "j",
        },
    }


def test_a_verdict_with_its_one_judge_call_is_imported(
    tmp_path: Path, archived: dict[str, Any]
) -> None:
    done = invoke("import", str(write(tmp_path, _two_models(archived))))
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"judge_usage": None}, "judge_usage"),
        ({"judge_usage.calls": 7}, "judge_usage.calls"),
        ({"judge_usage.attempts": 0}, "judge_usage.attempts"),
        ({"judge_usage.attempts": 10**9}, "judge_usage.attempts"),
        ({"judge_usage.input_tokens": 10**15}, "judge_usage.input_tokens"),
        ({"judge_usage.output_tokens": 10**15}, "judge_usage.output_tokens"),
        ({"judge_usage.cost_usd": 1e12}, "judge_usage.cost_usd"),
        ({"judge_usage.cost_usd": -1.0}, "judge_usage.cost_usd"),
        ({"judge_usage.by_kind": {"verdict": 40}}, "judge_usage.by_kind"),
        ({"judge_usage.model": "another"}, "judge_usage.model"),
        ({"judge_usage.cost_estimated": "yes"}, "judge_usage.cost_estimated"),
        ({"judge_usage.source": 5}, "judge_usage.source"),
        ({"settings.judge": None, "verdict": None}, "judge_usage"),
    ],
)
def test_a_forged_run_level_judge_usage_is_refused(
    tmp_path: Path, archived: dict[str, Any], change: dict[str, Any], field: str
) -> None:
    data = _two_models(archived)
    for path, value in change.items():
        _forge(path, value)(data)
    path = write(tmp_path, data)
    done = invoke("import", str(path))
    assert done.exit_code == 2, done.output
    assert f"error: {path}: {field}: " in done.output, done.output
    assert not (tmp_path / ".assay").exists()
