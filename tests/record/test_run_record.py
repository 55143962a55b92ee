"""The JSON report's top level as one typed record, written and read by the codec."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, NamedTuple

import pytest

from assay_agents.record import RecordError, RunRecord, read, read_run_record, snapshot, write
from assay_agents.results import Run, RunSettings, RunStatus, SampleResult, SampleStatus, summarise
from assay_agents.results.fixes import Also, FixItem, FixTool
from assay_agents.results.metric import scored
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION

STARTED = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def _run() -> Run:
    metric = scored("contains", "check", "content", 1.0, 1.0, "why")
    sample = SampleResult("refund", None, 0, SampleStatus.PASSED, answer="a", metrics=(metric,))
    return Run(
        id="run-1",
        suite="support",
        agent="bot",
        fingerprint="fp",
        status=RunStatus.COMPLETED,
        started_at=STARTED,
        finished_at=STARTED.replace(minute=31),
        sequence=4,
        settings=RunSettings(samples=1),
        metadata={"branch": "main"},
        samples=(sample,),
        summary=summarise((sample,)),
    )


def test_the_snapshot_is_the_record_written_in_the_order_of_its_keys() -> None:
    written = snapshot(_run())
    assert written == write(RunRecord.of(_run()))
    assert list(written)[:4] == [SCHEMA_KEY, "id", "sequence", "suite"]
    assert written[SCHEMA_KEY] == SCHEMA_VERSION
    assert written["started_at"] == "2026-05-01T09:30:00+00:00"
    assert written["summary"][SCHEMA_KEY] == SCHEMA_VERSION


def test_the_record_reads_back_as_it_was_written() -> None:
    record = RunRecord.of(_run())
    assert read_run_record(write(record)) == record


def test_a_record_without_a_version_reads_as_the_first() -> None:
    written = snapshot(_run())
    del written[SCHEMA_KEY]
    assert read_run_record(written).schema_version == 1


def _changed(**changes: Any) -> dict[str, Any]:
    return {**snapshot(_run()), **changes}


@pytest.mark.parametrize(
    ("data", "path", "detail"),
    [
        (_changed(started_at="yesterday"), "started_at", "ISO 8601"),
        (_changed(finished_at=5), "finished_at", "ISO 8601"),
        (_changed(id=""), "id", "empty"),
        (_changed(suite=""), "suite", "empty"),
        (_changed(agent=""), "agent", "empty"),
        (_changed(fingerprint=""), "fingerprint", "empty"),
        (_changed(sequence=-1), "sequence", "-1"),
        (_changed(status="done"), "status", "'running', 'completed', 'interrupted'"),
        (_changed(schema_version=0), "schema_version", "at least 1"),
        (_changed(metadata=[1]), "metadata", "expected an object"),
        (_changed(samples=[{"case_id": "x"}]), "samples[0].model", "missing"),
        ({k: v for k, v in snapshot(_run()).items() if k != "summary"}, "summary", "missing"),
    ],
)
def test_a_damaged_top_level_field_is_named(data: Any, path: str, detail: str) -> None:
    with pytest.raises(RecordError) as raised:
        read_run_record(data)
    assert raised.value.path == path
    assert detail in raised.value.detail


def test_a_sample_of_an_older_form_is_upgraded_as_it_is_read() -> None:
    written = snapshot(_run())
    written["samples"][0]["usage"] = {"input_tokens": None, "output_tokens": None}
    assert read_run_record(written).samples[0].usage is None


def test_a_timestamp_is_written_and_read_in_iso_8601() -> None:
    assert write(STARTED) == "2026-05-01T09:30:00+00:00"
    assert read(datetime, "2026-05-01T09:30:00+00:00", "at") == STARTED


class _Pair(NamedTuple):
    text: str
    ids: tuple[str, ...]


def test_a_named_tuple_is_an_object_by_its_field_names() -> None:
    assert write(_Pair("t", ("a",))) == {"text": "t", "ids": ["a"]}
    assert read(_Pair, {"text": "t", "ids": ["a"]}, "pair") == _Pair("t", ("a",))
    with pytest.raises(RecordError, match=r"pair\.ids: missing"):
        read(_Pair, {"text": "t"}, "pair")


def test_a_fix_item_is_written_by_the_codec_in_the_report_s_form() -> None:
    item = FixItem(
        "fault",
        "expected_tool_not_called",
        2,
        ("refund",),
        ("gpt-x",),
        "Call lookup.",
        tools=(FixTool("lookup", server={"url": "http://tools"}),),
        also=(Also("Retry.", ("refund", "cancel")),),
    )
    assert json.dumps(write(item)) == json.dumps(
        {
            "kind": "fault",
            "fault": "expected_tool_not_called",
            "count": 2,
            "case_ids": ["refund"],
            "models": ["gpt-x"],
            "recommendation": "Call lookup.",
            "quote": None,
            "tools_label": None,
            "tools": [{"name": "lookup", "note": None, "server": {"url": "http://tools"}}],
            "also": [{"recommendation": "Retry.", "case_ids": ["refund", "cancel"]}],
            "server": None,
            "note": None,
            "action": None,
        }
    )
