"""A stored value edited by hand that parses but is wrong is refused, never read silently.

Each test edits a real SQLite history the way a person would (``sqlite3``, triggers dropped),
then runs ``assay-agents history`` and ``assay-agents report``: exit 2, a message naming the run and
the field, and nothing stored changed by reading it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay_agents.errors import StoreError
from assay_agents.record import write
from assay_agents.results import (
    BaselineChoice,
    CaseSnapshot,
    JudgeUsage,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    SampleStatus,
    summarise,
)
from assay_agents.results.baseline import BaselineReason, RunOutcome
from assay_agents.results.metric import scored
from assay_agents.store import Store
from commandline import Cli

RUN = "run-edited-0001"
CASE = CaseSnapshot("refund", "Refund", 0, "fp-refund", {"input": "refund order 42"})
USAGE = JudgeUsage(calls=1, attempts=1, input_tokens=90, output_tokens=8, cost_usd=0.001)


def _sample() -> SampleResult:
    metrics = (
        scored("contains", "check", "content", 1.0, 1.0, "found"),
        scored("helpful", "judge", "quality", 0.5, 0.75, "clear"),
    )
    return SampleResult(
        "refund",
        None,
        0,
        SampleStatus.PASSED,
        answer="ok",
        duration_ms=12.0,
        metrics=metrics,
        judge_usage=USAGE,
    )


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """A completed run in ``tmp_path/.assay/assay.db``, its triggers dropped for editing."""
    path = tmp_path / ".assay" / "assay.db"
    path.parent.mkdir(parents=True)
    with Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = store.create_run(
            Run(
                id=RUN,
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
        store.complete_run(
            run.id,
            summary=summarise([_sample()]),
            finished_at=run.started_at,
            outcome=RunOutcome.PASSED,
            baseline_choice=BaselineChoice(BaselineReason.NONE, note="the first run"),
        )
    with sqlite3.connect(path) as connection:
        triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            connection.execute(f"DROP TRIGGER {name}")
    return path


def _edit(path: Path, statement: str, *values: object) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(statement, values)


def _everything(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as connection:
        return {
            table: sorted(map(tuple, connection.execute(f"SELECT * FROM {table}")), key=repr)
            for table in ("runs", "run_cases", "samples", "metrics")
        }


def _refused(path: Path, command: list[str], message: str) -> None:
    before = _everything(path)
    done = Cli(path.parent.parent)(*command)
    assert done.exit_code == 2, done.output
    assert message in done.output, done.output
    assert "Traceback" not in done.output
    assert _everything(path) == before


def _judge_usage_with(**edits: object) -> str:
    return json.dumps({**write(USAGE), **edits})  # type: ignore[dict-item]


RUN_EDITS = {
    "baseline reason": (
        "UPDATE runs SET baseline_choice = ?",
        json.dumps({"reason": "zzz", "run_id": None, "where": {}, "note": None}),
        f"run {RUN}: stored baseline_choice.reason: expected one of",
    ),
    "baseline where": (
        "UPDATE runs SET baseline_choice = ?",
        json.dumps({"reason": "latest_passing", "run_id": "x", "where": {"branch": 3}}),
        f"run {RUN}: stored baseline_choice.where.branch: expected text",
    ),
    "outcome": (
        "UPDATE runs SET outcome = ?",
        "maybe",
        f"run {RUN}: stored outcome: expected one of",
    ),
}


@pytest.mark.parametrize(("statement", "value", "message"), RUN_EDITS.values(), ids=RUN_EDITS)
@pytest.mark.parametrize("command", [["history"], ["report", RUN]], ids=["history", "report"])
def test_a_hand_edited_run_value_is_refused_naming_the_run_and_field(
    history: Path, statement: str, value: object, message: str, command: list[str]
) -> None:
    _edit(history, statement, value)
    _refused(history, command, message)


SAMPLE = f"run {RUN}: sample 'refund' #0: stored"

SAMPLE_EDITS = {
    "judge calls": (
        "UPDATE samples SET judge_usage = ?",
        _judge_usage_with(calls=-1),
        f"{SAMPLE} judge_usage.calls: must be a non-negative",
    ),
    "judge tokens": (
        "UPDATE samples SET judge_usage = ?",
        _judge_usage_with(input_tokens=-90),
        f"{SAMPLE} judge_usage.input_tokens: must be a non-negative",
    ),
    "judge cost": (
        "UPDATE samples SET judge_usage = ?",
        _judge_usage_with(cost_usd=-0.5),
        f"{SAMPLE} judge_usage.cost_usd: must be a non-negative",
    ),
    "judge source": (
        "UPDATE samples SET judge_usage = ?",
        _judge_usage_with(source="guessed"),
        f"{SAMPLE} judge_usage.source: expected one of",
    ),
    "latency": (
        "UPDATE samples SET duration_ms = ?",
        -5.0,
        f"{SAMPLE} duration_ms: must be a non-negative",
    ),
    "fault": (
        "UPDATE samples SET fault = ?",
        "gremlins",
        f"{SAMPLE} fault: expected one of",
    ),
    "cost source": (
        "UPDATE samples SET cost_source = ?",
        "rumoured",
        f"{SAMPLE} usage.cost_source: expected one of",
    ),
}


@pytest.mark.parametrize(("statement", "value", "message"), SAMPLE_EDITS.values(), ids=SAMPLE_EDITS)
def test_a_hand_edited_sample_value_is_refused_naming_the_run_and_field(
    history: Path, statement: str, value: object, message: str
) -> None:
    _edit(history, statement, value)
    _refused(history, ["report", RUN], message)


def test_a_negative_sample_index_is_refused(history: Path) -> None:
    _edit(history, "UPDATE samples SET sample = -1")
    _refused(history, ["report", RUN], f"run {RUN}: sample 'refund' #-1: stored sample: must be")


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("score", 1.5, "score: must be a number in [0, 1], not 1.5"),
        ("score", -0.25, "score: must be a number in [0, 1], not -0.25"),
        ("threshold", 7.0, "threshold: must be a number in [0, 1], not 7.0"),
    ],
)
def test_a_metric_figure_outside_its_range_is_refused(
    history: Path, column: str, value: float, message: str
) -> None:
    _edit(history, f"UPDATE metrics SET {column} = ? WHERE name = 'helpful'", value)
    _refused(history, ["report", RUN], f"run {RUN}: metric 'helpful' {message}")


@pytest.mark.parametrize(("value", "shown"), [("yes", "'yes'"), (2, "2"), (0.5, "0.5")])
def test_a_hand_edited_pass_flag_is_refused_not_coerced(
    history: Path, value: object, shown: str
) -> None:
    _edit(history, "UPDATE metrics SET passed = ? WHERE name = 'helpful'", value)
    _refused(
        history,
        ["report", RUN],
        f"run {RUN}: metric 'helpful' passed: expected true or false, not {shown}",
    )


@pytest.mark.parametrize("value", ["[1]", '[["input", "x"]]', '"a text"', "7"])
def test_a_case_definition_that_is_not_an_object_is_refused(history: Path, value: str) -> None:
    # A list of pairs would even read as an object of them, were it taken as one.
    _edit(history, "UPDATE run_cases SET definition = ? WHERE case_id = 'refund'", value)
    _refused(
        history, ["report", RUN], f"run {RUN}: case 'refund': stored definition: expected an object"
    )


def test_every_edit_left_unmade_still_reads(history: Path) -> None:
    # The fixture's own history reads: the refusals above are the edits, not the setup.
    done = Cli(history.parent.parent)("report", RUN)
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize(
    ("table", "column"),
    [("runs", "settings"), ("runs", "baseline_choice"), ("samples", "judge_usage")],
)
def test_malformed_json_names_the_column(history: Path, table: str, column: str) -> None:
    _edit(history, f"UPDATE {table} SET {column} = 'notjson'")
    before = _everything(history)
    done = Cli(history.parent.parent)("report", RUN)
    assert done.exit_code == 2, done.output
    assert RUN in done.output
    assert f"stored {column}: malformed JSON" in done.output
    assert _everything(history) == before


def test_malformed_json_in_a_listing_names_the_run_and_the_column(history: Path) -> None:
    _edit(history, "UPDATE runs SET summary = 'notjson'")
    done = Cli(history.parent.parent)("history")
    assert done.exit_code == 2, done.output
    assert f"run {RUN}: stored summary: malformed JSON" in done.output


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("UPDATE samples SET sample = -1", "sample 'refund' #-1: stored sample: must be 0"),
        ("UPDATE samples SET case_id = ''", "sample '' #0: stored case_id: must not be empty"),
        ("UPDATE metrics SET score = 'high'", "metric 'contains' score: expected a number"),
    ],
)
def test_a_baseline_read_only_as_graded_refuses_a_hand_edited_grading(
    history: Path, statement: str, message: str
) -> None:
    _edit(history, statement)
    before = _everything(history)
    refusal = pytest.raises(StoreError, match=re.escape(f"run {RUN}: "))
    with Store.open(f"sqlite:///{history}") as store, refusal as refused:
        list(store.graded_samples(RUN))
    assert message in str(refused.value)
    assert _everything(history) == before
