"""A sample and the values it holds, in the forms stored before they were typed."""

from __future__ import annotations

import pytest

from assay_agents.agent import Action, Observation, Usage
from assay_agents.record import RecordError, read, read_sample, write
from assay_agents.results import (
    BaselineChoice,
    BaselineReason,
    CaseSnapshot,
    Diagnosis,
    JudgeUsage,
    MetricResult,
    Refinement,
    SampleResult,
    SampleStatus,
    Vote,
)
from assay_agents.results.fault import Fault
from assay_agents.results.metric import scored

JUDGED = MetricResult(
    "tone",
    "judge",
    "quality",
    0.5,
    0.75,
    True,
    "clear",
    None,
    (Vote(score=0.75, raw=4.0, reason="clear"), Vote(error="invalid verdict", reply="yes")),
)
USAGE = JudgeUsage(2, 3, 400, 60, 0.0002, False, {"score": 2}, "judge", "reported")
SAMPLE = SampleResult(
    "refund",
    "gpt-4o",
    1,
    SampleStatus.FAILED,
    answer="Refunded.",
    actions=(Action("refund", {"id": 42}, group="billing", result={"ok": True}),),
    observation=Observation({"commands": [{"type": "Refund"}]}, truncated=False),
    usage=Usage(120, 30, 0.0015, "reported"),
    duration_ms=812.5,
    metadata={"trace": "t-1"},
    metrics=(scored("contains", "check", "content", 1.0, 0.0, "absent"), JUDGED),
    judge_usage=USAGE,
    fault=Fault.EXPECTED_TOOL_NOT_CALLED,
    recommendation="Call lookup_order.",
    diagnosis=Diagnosis(
        ("lookup_order",),
        "expected tools",
        Refinement("Call lookup_order first.", judge="judge"),
    ),
)

#: The form every version since judge usage and diagnoses were kept wrote for ``SAMPLE``.
STORED = {
    "case_id": "refund",
    "model": "gpt-4o",
    "sample": 1,
    "status": "failed",
    "answer": "Refunded.",
    "actions": [
        {
            "group": "billing",
            "name": "refund",
            "arguments": {"id": 42},
            "result": {"ok": True},
            "error": None,
            "result_bytes": 11,
        }
    ],
    "observation": {"channels": {"commands": [{"type": "Refund"}]}, "truncated": False},
    "usage": {
        "input_tokens": 120,
        "output_tokens": 30,
        "cost_usd": 0.0015,
        "cost_source": "reported",
    },
    "duration_ms": 812.5,
    "error": None,
    "metadata": {"trace": "t-1"},
    "metrics": [
        {
            "name": "contains",
            "kind": "check",
            "category": "content",
            "threshold": 1.0,
            "score": 0.0,
            "passed": False,
            "reason": "absent",
            "error": None,
            "votes": None,
        },
        {
            "name": "tone",
            "kind": "judge",
            "category": "quality",
            "threshold": 0.5,
            "score": 0.75,
            "passed": True,
            "reason": "clear",
            "error": None,
            "votes": [
                {"score": 0.75, "raw": 4.0, "reason": "clear"},
                {"error": "invalid verdict", "reply": "yes"},
            ],
        },
    ],
    "judge_usage": {
        "calls": 2,
        "attempts": 3,
        "input_tokens": 400,
        "output_tokens": 60,
        "cost_usd": 0.0002,
        "cost_estimated": False,
        "by_kind": {"score": 2},
        "model": "judge",
        "source": "reported",
    },
    "fault": "expected_tool_not_called",
    "recommendation": "Call lookup_order.",
    "diagnosis": {
        "tools": ["lookup_order"],
        "tools_label": "expected tools",
        "refinement": {
            "recommendation": "Call lookup_order first.",
            "tool_name": None,
            "tool_description": None,
            "instruction": None,
            "judge": "judge",
        },
    },
}


def test_a_sample_is_written_with_the_keys_and_values_stored_before() -> None:
    assert write(SAMPLE) == STORED


def test_a_sample_reads_back_from_its_stored_form() -> None:
    assert read_sample(STORED, "sample") == SAMPLE


def test_missing_tools_are_stored_only_when_there_are_some() -> None:
    diagnosis = Diagnosis(("refund",), "missing tools", missing_tools=("cancel",))
    assert write(diagnosis)["missing_tools"] == ["cancel"]  # type: ignore[index]
    assert read(Diagnosis, write(diagnosis), "diagnosis") == diagnosis


def test_judge_usage_from_before_attempts_and_cost_bases_reads_upgraded() -> None:
    first = {"calls": 2, "input_tokens": 10, "output_tokens": 2, "cost_usd": None, "by_kind": {}}
    usage = read_sample({**STORED, "judge_usage": first}, "sample").judge_usage
    assert usage == JudgeUsage(
        calls=2, attempts=2, input_tokens=10, output_tokens=2, source="unpriced"
    )
    priced = {"calls": 1, "attempts": 1, "cost_usd": 0.01, "cost_estimated": True}
    upgraded = read_sample({**STORED, "judge_usage": priced}, "sample").judge_usage
    assert upgraded is not None and upgraded.source == "estimated"


def test_a_failed_vote_kept_with_its_null_score_still_reads() -> None:
    assert read(Vote, {"score": None, "error": "x"}, "vote") == Vote(error="x")


def test_a_baseline_choice_keeps_its_metadata_restriction_as_an_object() -> None:
    choice = BaselineChoice(BaselineReason.LATEST_PASSING, "run-1", {"branch": "main"})
    stored = {
        "reason": "latest_passing",
        "run_id": "run-1",
        "where": {"branch": "main"},
        "note": None,
        "hint": None,
    }
    assert write(choice) == stored
    assert read(BaselineChoice, stored, "baseline_choice") == choice
    without_hint = {key: value for key, value in stored.items() if key != "hint"}
    assert read(BaselineChoice, without_hint, "baseline_choice") == choice


def test_a_case_snapshot_is_stored_under_its_id() -> None:
    case = CaseSnapshot("refund", "Refund", 0, "fp", {"input": "refund 42"})
    stored = {
        "id": "refund",
        "name": "Refund",
        "position": 0,
        "fingerprint": "fp",
        "definition": {"input": "refund 42"},
    }
    assert write(case) == stored
    assert read(CaseSnapshot, stored, "cases[0]") == case


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        ({"sample": -1}, "sample.sample: must be 0 or more"),
        ({"duration_ms": -3.0}, "sample.duration_ms: must be a non-negative"),
        ({"status": "maybe"}, "sample.status: expected one of"),
        ({"fault": "gremlins"}, "sample.fault: expected one of"),
        ({"judge_usage": {**STORED["judge_usage"], "calls": -1}}, "sample.judge_usage.calls"),
        (
            {"judge_usage": {**STORED["judge_usage"], "by_kind": {"score": -2}}},
            "sample.judge_usage.by_kind: counts -2 'score' calls",
        ),
        ({"usage": {"input_tokens": -5}}, "sample.usage.input_tokens: must not be negative"),
        (
            {"diagnosis": {"refinement": {"tool_name": "x"}}},
            "sample.diagnosis.refinement.recommendation: missing",
        ),
    ],
)
def test_a_stored_sample_that_is_wrong_is_refused_naming_the_field(
    edit: dict[str, object], path: str
) -> None:
    with pytest.raises(RecordError, match=path.replace("(", r"\(")):
        read_sample({**STORED, **edit}, "sample")


def test_a_vote_score_outside_zero_to_one_is_refused() -> None:
    votes = [{"score": 4.0, "raw": 4.0, "reason": "r"}]
    metric = {**STORED["metrics"][1], "votes": votes}  # type: ignore[index]
    with pytest.raises(RecordError, match=r"metric.votes\[0\].score: must be a number in \[0, 1\]"):
        read(MetricResult, metric, "metric")
