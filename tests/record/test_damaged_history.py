"""A stored run that does not read is an error naming the run and the field, never a traceback."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.errors import StoreError
from assay_agents.record import write, write_summary
from assay_agents.results import (
    CaseSnapshot,
    JudgeUsage,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    SampleStatus,
    summarise,
)
from assay_agents.results.metric import scored
from assay_agents.store import Store

CASE = CaseSnapshot("refund", "Refund", 0, "fp-refund", {"input": "refund order 42"})


def _sample() -> SampleResult:
    metric = scored("contains", "check", "content", 1.0, 1.0, "found")
    return SampleResult("refund", None, 0, SampleStatus.PASSED, answer="ok", metrics=(metric,))


def _history(folder: Path) -> tuple[Path, str]:
    path = folder / ".assay" / "assay.db"
    path.parent.mkdir(parents=True)
    with Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = store.create_run(
            Run(
                id="run-damaged-0001",
                suite="support",
                agent="bot",
                fingerprint="fp",
                status=RunStatus.RUNNING,
                started_at=datetime(2026, 1, 1, tzinfo=UTC),
                settings=RunSettings(samples=1),
                cases=(CASE,),
            )
        )
        store.save_samples(run.id, [_sample()])
        store.complete_run(run.id, summary=summarise([_sample()]), finished_at=run.started_at)
    return path, run.id


def _damage(path: Path, column: str, value: object) -> None:
    # A completed run never changes through Assay: only a hand edit can damage it.
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER runs_append_only_update")
        connection.execute(f"UPDATE runs SET {column} = ?", (json.dumps(value),))


def _summary_without(key: str) -> dict[str, object]:
    stored = write_summary(summarise([_sample()]))
    del stored[key]
    return stored


def _baseline_form() -> dict[str, object]:
    # The stored form of a comparison with its baseline (as version 2 writes it).
    pairing = {"paired": 1, "compared": 1, "excluded": 0, "only_in_baseline": 0}
    headline = {"status": "measured", "before_passed": 1, "before_evaluated": 1}
    return {
        "baseline_id": "run-before",
        "current_id": "run-damaged-0001",
        "pairing": {**pairing, "only_in_current": 0},
        "corpus_defects": [],
        "headline": {**headline, "after_passed": 1, "after_evaluated": 1, "noise": "unmeasured"},
        "excluded": [],
        "intended_changes": [],
        "policy": {"tolerance": 0.0},
        "noise_floor": None,
        "changes": [],
    }


def _models_form() -> dict[str, object]:
    interval = {"model": "small", "cases": 1, "pass_rate": 1.0, "interval": [1.0, 1.0]}
    figures = {"resamples": 100, "seed": 0, "confidence": 0.95, "power": 0.8}
    return {**figures, "models": [interval, {**interval, "model": "large"}], "pairs": []}


def _comparison(baseline: object = None, models: object = None) -> dict[str, object]:
    return {"schema_version": 2, "baseline": baseline, "models": models}


def _baseline_with(**damage: object) -> dict[str, object]:
    form = {**_baseline_form(), **damage}
    return _comparison(baseline={key: value for key, value in form.items() if value != "-"})


def _models_with_cases(cases: object) -> dict[str, object]:
    form = _models_form()
    first = {**form["models"][0], "cases": cases}  # type: ignore[index]
    return _comparison(models={**form, "models": [first]})


DAMAGE = {
    "settings": ("settings", {"samples": "one"}, "settings.samples: expected an integer"),
    "summary": ("summary", _summary_without("cases_passed"), "summary.cases_passed: missing"),
    "comparison": (
        "comparison",
        {"schema_version": 2, "baseline": {"pairing": "x"}},
        "comparison.baseline.baseline_id: missing",
    ),
    "judge_usage": (
        "judge_usage",
        {"calls": "one", "by_kind": {"verdict": 1}},
        "judge_usage.calls: expected an integer",
    ),
    "comparison policy": (
        "comparison",
        _baseline_with(policy="-"),
        "comparison.baseline.policy: missing",
    ),
    "comparison policy share": (
        "comparison",
        _baseline_with(policy={"tolerance": 2.0}),
        "comparison.baseline.policy.tolerance: must be a number in [0, 1], not 2.0",
    ),
    "comparison pairing": (
        "comparison",
        _baseline_with(pairing="x"),
        "comparison.baseline.pairing: expected an object",
    ),
    "comparison headline": (
        "comparison",
        _baseline_with(headline={"status": "measured"}),
        "comparison.baseline.headline.before_passed: missing",
    ),
    "comparison change": (
        "comparison",
        _baseline_with(changes=[{"case_id": "refund"}]),
        "comparison.baseline.changes[0].kind: missing",
    ),
    "comparison models": (
        "comparison",
        _models_with_cases("one"),
        "comparison.models.models[0].cases: expected an integer",
    ),
    "comparison object": ("comparison", ["x"], "comparison: expected an object"),
}


def test_a_whole_stored_comparison_reads(tmp_path: Path) -> None:
    path, run_id = _history(tmp_path)
    _damage(path, "comparison", _comparison(_baseline_form(), _models_form()))
    with Store.open(f"sqlite:///{path}") as store:
        stored = store.get_run(run_id).comparison
    assert stored is not None
    baseline, models = stored.baseline, stored.models
    assert baseline is not None and baseline.policy.tolerance == 0.0
    assert models is not None and [m.model for m in models.models] == ["small", "large"]


@pytest.mark.parametrize(("column", "value", "message"), DAMAGE.values(), ids=DAMAGE.keys())
def test_the_store_names_the_run_and_the_field(
    tmp_path: Path, column: str, value: object, message: str
) -> None:
    path, run_id = _history(tmp_path)
    _damage(path, column, value)
    with Store.open(f"sqlite:///{path}") as store:
        with pytest.raises(StoreError, match=re.escape(f"run {run_id}: stored {message}")):
            store.history()
        with pytest.raises(StoreError, match=re.escape(message)):
            store.get_run(run_id)


@pytest.mark.parametrize(("column", "value", "message"), DAMAGE.values(), ids=DAMAGE.keys())
@pytest.mark.parametrize(
    "command",
    [
        ["history"],
        ["report", "run-damaged-0001"],
        ["report", "run-damaged-0001", "--format", "json"],
    ],
)
def test_every_command_exits_2_with_the_field(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    column: str,
    value: object,
    message: str,
    command: list[str],
) -> None:
    path, _ = _history(tmp_path)
    _damage(path, column, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert "Traceback" not in done.output


def test_a_damaged_model_verdict_is_an_error_not_dropped(tmp_path: Path) -> None:
    path, run_id = _history(tmp_path)
    _damage(path, "verdict", {"model": "m1", "rationale": 3, "judge": "j"})
    expected = f"run {run_id}: stored verdict.rationale: expected"
    with Store.open(f"sqlite:///{path}") as store, pytest.raises(StoreError, match=expected):
        store.get_run(run_id)


def test_a_runs_judge_usage_reads_as_a_typed_value(tmp_path: Path) -> None:
    path, run_id = _history(tmp_path)
    stored = {
        "calls": 1,
        "attempts": 2,
        "input_tokens": 900,
        "output_tokens": 80,
        "cost_usd": 0.002,
        "cost_estimated": False,
        "by_kind": {"verdict": 1},
        "model": "j",
        "source": "reported",
    }
    _damage(path, "judge_usage", stored)
    with Store.open(f"sqlite:///{path}") as store:
        usage = store.get_run(run_id).judge_usage
    assert usage == JudgeUsage(1, 2, 900, 80, 0.002, False, {"verdict": 1}, "j", "reported")
    assert write(usage) == stored


def test_a_damaged_links_or_metric_value_is_an_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, run_id = _history(tmp_path)
    _damage(path, "links", 5)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    done = CliRunner().invoke(app, ["report", run_id])
    assert done.exit_code == 2, done.output
    assert f"run {run_id}: stored links: expected an object" in done.output


def test_a_damaged_metric_score_is_an_error_naming_the_metric(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, run_id = _history(tmp_path)
    with sqlite3.connect(path) as connection:
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'metrics'"
        ).fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute("UPDATE metrics SET score = 'abc'")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    done = CliRunner().invoke(app, ["report", run_id])
    assert done.exit_code == 2, done.output
    assert "metric 'contains' score: expected a number" in done.output


def test_malformed_json_in_a_history_is_bad_input_not_an_outage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = _history(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER runs_append_only_update")
        connection.execute("UPDATE runs SET settings = 'notjson'")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_DATABASE_URL", raising=False)
    (tmp_path / "spec.py").write_text(
        "import assay_agents as assay\nfrom assay_agents import checks\n"
        "suite = assay.Suite('support', agent=lambda q, ctx: 'ok',\n"
        "    checks=[checks.contains('ok')])\n"
        "suite.case('refund order 42', id='refund')\n",
        encoding="utf-8",
    )
    done = CliRunner().invoke(app, ["run", "spec.py", "--quiet", "--store-retry", "30"])
    # The damaged run (of another agent) is read only to say why there is no baseline: it is
    # named there as bad input, at once, never retried as if the database were down, and the
    # new run is stored and decided without a baseline.
    assert done.exit_code == 0, done.output
    assert "retrying" not in done.output
    assert "Baseline: none (no earlier run could be the baseline; one does not read" in (
        done.output
    )
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM runs").fetchone() == (2,)
    assert "run run-damaged-0001: stored settings: malformed JSON" in done.output
    assert "(the history was edited or damaged" in done.output
