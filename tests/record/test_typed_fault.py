"""A sample's fault is the Fault it is, from the run to the store and back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from record_builders import completed_history

from assay_agents.errors import StoreError
from assay_agents.results import SampleResult, SampleStatus, errored, scored
from assay_agents.results.diagnosis import Fault
from assay_agents.results.storable import with_store_refusal
from assay_agents.store import Store

PASSED = scored("contains", "check", "content", 1.0, 1.0, "found")
FAILED = SampleResult(
    "refund",
    None,
    0,
    SampleStatus.ERROR,
    error="boom",
    metrics=(errored("contains", "check", "content", 1.0, "boom"),),
    fault=Fault.RUN_ERROR,
    recommendation="Fix the agent.",
)


def test_a_stored_fault_reads_back_as_the_enum(tmp_path: Path) -> None:
    path, run_id = completed_history(tmp_path, [FAILED])
    with Store.open(f"sqlite:///{path}") as store:
        sample = store.get_run(run_id).samples[0]
    assert sample.fault is Fault.RUN_ERROR


def test_a_refused_sample_is_a_run_error() -> None:
    assert with_store_refusal(FAILED, "no").fault is Fault.RUN_ERROR


def test_a_fault_this_version_does_not_know_is_an_error_naming_the_sample(tmp_path: Path) -> None:
    path, run_id = completed_history(tmp_path, [FAILED])
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TRIGGER samples_append_only_update")
        connection.execute("UPDATE samples SET fault = ?", ("gremlins",))
    with Store.open(f"sqlite:///{path}") as store, pytest.raises(StoreError) as raised:
        store.get_run(run_id)
    message = str(raised.value)
    assert f"run {run_id}" in message and "refund" in message and "fault" in message
    assert "gremlins" in message
    assert json.dumps(message)  # one line of text, no traceback


@pytest.mark.parametrize(
    ("column", "value", "path"),
    [
        ("actions", [{"arguments": {}}], "actions[0].name: missing"),
        ("actions", {"name": "x"}, "actions: expected a list"),
        ("observation", {"channels": {"events": "x"}}, "observation.channels.events"),
        ("observation", {"channels": {}, "truncated": "no"}, "observation.truncated"),
    ],
)
def test_a_damaged_sample_part_is_an_error_naming_its_path(
    tmp_path: Path, column: str, value: object, path: str
) -> None:
    stored = SampleResult("refund", None, 0, SampleStatus.PASSED, answer="ok", metrics=(PASSED,))
    history, run_id = completed_history(tmp_path, [stored])
    with sqlite3.connect(history) as connection:
        connection.execute("DROP TRIGGER samples_append_only_update")
        connection.execute(f"UPDATE samples SET {column} = ?", (json.dumps(value),))
    with Store.open(f"sqlite:///{history}") as store, pytest.raises(StoreError) as raised:
        store.get_run(run_id)
    assert f"run {run_id}: sample 'refund' #0: stored {path}" in str(raised.value)
