"""Mapping between domain objects and rows: the only place that knows both shapes."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import RowMapping

from assay_agents.agent import Usage
from assay_agents.errors import StoreError
from assay_agents.record import (
    RecordError,
    read,
    read_comparison,
    read_sample,
    read_settings,
    read_summary,
    write,
    write_comparison,
    write_settings,
    write_summary,
)
from assay_agents.results import (
    CaseSnapshot,
    GradedSample,
    JudgeUsage,
    MetricResult,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    Traces,
)
from assay_agents.results.baseline import BaselineChoice, RunOutcome
from assay_agents.results.pacing import PACING_KEY
from assay_agents.results.run import ModelVerdict
from assay_agents.results.sample import DIAGNOSIS_KEY
from assay_agents.spec import JSON
from assay_agents.store._lease import lease_from

Row = dict[str, Any]


def run_row(run: Run, status: RunStatus) -> Row:
    """Build the ``runs`` row of a new run (the database assigns ``sequence``)."""
    return {
        "id": run.id,
        "suite": run.suite,
        "suite_version": run.suite_version,
        "agent": run.agent,
        "fingerprint": run.fingerprint,
        "status": status.value,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "settings": write_settings(run.settings),
        "metadata": dict(run.metadata),
        "summary": None if run.summary is None else write_summary(run.summary),
        "comparison": None if run.comparison is None else write_comparison(run.comparison),
        "baseline_id": run.baseline_id,
        "links": dict(run.links),
        "owner_host": None if run.lease is None else run.lease.host,
        "owner_pid": None if run.lease is None else run.lease.pid,
        "owner_token": None if run.lease is None else run.lease.token,
        "heartbeat_at": None if run.lease is None else run.lease.heartbeat_at,
        "owner_started": None if run.lease is None else run.lease.started,
        "error": run.error,
        "verdict": write(run.verdict),
        "judge_usage": write(run.judge_usage),
        "outcome": write(run.outcome),
        "baseline_choice": write(run.baseline_choice),
        "traces": write(run.traces),
    }


def case_rows(sequence: int, cases: Iterable[CaseSnapshot]) -> list[Row]:
    """One ``run_cases`` row per snapshot."""
    return [
        {
            "run": sequence,
            "case_id": case.case_id,
            "name": case.name,
            "position": case.position,
            "fingerprint": case.fingerprint,
            "definition": case.definition,
        }
        for case in cases
    ]


def sample_rows(
    sequence: int, samples: Iterable[SampleResult], created_at: datetime
) -> tuple[list[Row], list[Row]]:
    """Build the ``samples`` rows and their ``metrics`` rows, linked by client-made ids."""
    sample_values: list[Row] = []
    metric_values: list[Row] = []
    for sample in samples:
        # Generated here so metrics reference their sample without a round trip.
        sample_id = new_sample_id()
        sample_values.append(_sample_row(sequence, sample_id, sample, created_at))
        metric_values.extend(
            _metric_row(sample_id, position, metric)
            for position, metric in enumerate(sample.metrics)
        )
    return sample_values, metric_values


def new_sample_id() -> str:
    """A sample row's id: 32 hex digits, the time in milliseconds first, then 80 random bits.

    Ids that grow with time are added at the end of the primary key's index (and of the
    metrics' key that holds them), where random ones would rewrite pages all over both:
    a batch of samples then commits a few pages, not hundreds.
    """
    return f"{time.time_ns() // 1_000_000:012x}{os.urandom(10).hex()}"


def _sample_row(sequence: int, sample_id: str, sample: SampleResult, created_at: datetime) -> Row:
    usage = sample.usage or Usage()
    return {
        "id": sample_id,
        "run": sequence,
        "case_id": sample.case_id,
        "model": model_column(sample.model),
        "sample": sample.sample,
        "status": sample.status.value,
        "answer": sample.answer,
        "actions": write(sample.actions),
        "observation": write(sample.observation),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "cost_source": usage.cost_source,
        "duration_ms": sample.duration_ms,
        "error": sample.error,
        "metadata": _metadata_with_diagnosis(sample),
        "fault": sample.fault,
        "recommendation": sample.recommendation,
        "judge_usage": write(sample.judge_usage),
        "traces": write(sample.traces),
        "created_at": created_at,
    }


def _metadata_with_diagnosis(sample: SampleResult) -> dict[str, JSON]:
    # The tools involved and a judge's refinement travel in the metadata, under one key;
    # so do the sample's rate-limit retries and adjustments.
    stored = dict(sample.metadata)
    if sample.diagnosis is not None:
        stored[DIAGNOSIS_KEY] = write(sample.diagnosis)
    if sample.pacing is not None:
        stored[PACING_KEY] = write(sample.pacing)
    return stored


def _metric_row(sample_id: str, position: int, metric: MetricResult) -> Row:
    return {
        "sample": sample_id,
        "position": position,
        "name": metric.name,
        "kind": metric.kind,
        "category": metric.category,
        "threshold": metric.threshold,
        "score": metric.score,
        "passed": metric.passed,
        "reason": metric.reason,
        "error": metric.error,
        "votes": write(metric.votes),
    }


def model_column(model: str | None) -> str:
    """Store "no model matrix" as '': NULLs never collide, so the unique key would not hold."""
    return "" if model is None else model


def model_value(column: str) -> str | None:
    """Map a stored model label back to the domain ('' is ``None``)."""
    return column or None


def run_from(
    row: RowMapping, cases: Sequence[CaseSnapshot] = (), samples: Sequence[SampleResult] = ()
) -> Run:
    """Build a run from its row, holding whichever cases and samples were loaded.

    A stored record that does not read (damaged, or of a form this version cannot upgrade)
    is a :class:`StoreError` naming the run and the field.
    """
    try:
        settings = read_settings(row["settings"])
        # With every sample loaded, figures an older version did not store are counted.
        whole = samples if row["status"] == RunStatus.COMPLETED.value and samples else None
        verdict = read(ModelVerdict | None, row["verdict"], "verdict")
        judge_usage = cast(
            JudgeUsage | None, read(JudgeUsage | None, row["judge_usage"], "judge_usage")
        )
        summary = (
            None
            if row["summary"] is None
            else read_summary(row["summary"], samples=whole, run_judge_usage=judge_usage)
        )
        outcome = read(RunOutcome | None, row["outcome"], "outcome")
        choice = read(BaselineChoice | None, row["baseline_choice"], "baseline_choice")
        traces = read(Traces | None, row["traces"], "traces")
        comparison = read_comparison(row["comparison"])
        links = _object(row["links"] or {}, "links")
        metadata = _object(row["metadata"], "metadata")
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None
    return Run(
        id=row["id"],
        suite=row["suite"],
        agent=row["agent"],
        fingerprint=row["fingerprint"],
        status=RunStatus(row["status"]),
        started_at=row["started_at"],
        suite_version=row["suite_version"],
        sequence=row["sequence"],
        finished_at=row["finished_at"],
        settings=settings,
        metadata=metadata,
        cases=tuple(cases),
        samples=tuple(samples),
        summary=summary,
        comparison=comparison,
        baseline_id=row["baseline_id"],
        links=links,
        lease=lease_from(row),
        error=row["error"],
        verdict=cast(ModelVerdict | None, verdict),
        judge_usage=judge_usage,
        outcome=cast(RunOutcome | None, outcome),
        baseline_choice=cast(BaselineChoice | None, choice),
        traces=cast(Traces | None, traces),
    )


def settings_of(row: RowMapping) -> RunSettings:
    """The settings of a ``runs`` row; a damaged one is a StoreError naming the run."""
    try:
        return read_settings(row["settings"])
    except RecordError as error:
        raise StoreError(f"run {row['id']}: stored {error}") from None


def case_from(row: RowMapping, alike: CaseSnapshot | None = None) -> CaseSnapshot:
    """Build a case snapshot from its row; one defined exactly as ``alike`` shares its definition.

    Exactly: the same fingerprint (the definition's canonical JSON, provenance aside) and an
    equal definition (provenance included), so the shared one reads as the stored one would.
    """
    definition = row["definition"]
    if not isinstance(definition, dict):  # edited by hand: a list would even read as pairs
        raise StoreError(f"case {row['case_id']!r}: stored definition: expected an object")
    fingerprint = row["fingerprint"]
    if alike is not None and alike.fingerprint == fingerprint and alike.definition == definition:
        definition = alike.definition
    else:
        definition = dict(definition)
    return CaseSnapshot(row["case_id"], row["name"], row["position"], fingerprint, definition)


def sample_from(row: RowMapping, metrics: Sequence[MetricResult]) -> SampleResult:
    """Build a sample result from its row and its metrics (already in position order).

    The row is read as the sample's stored form, so a value that does not read (damaged,
    or edited by hand) is a :class:`StoreError` naming the sample and the field.
    """
    metadata = row["metadata"]
    diagnosis = pacing = None
    if isinstance(metadata, dict):
        metadata = dict(metadata)
        diagnosis = metadata.pop(DIAGNOSIS_KEY, None)
        pacing = metadata.pop(PACING_KEY, None)
    stored = {
        **_grading(row, metrics),
        "answer": row["answer"],
        "actions": row["actions"],
        "observation": row["observation"],
        "usage": _usage_from(row),
        "duration_ms": row["duration_ms"],
        "metadata": metadata,
        "judge_usage": row["judge_usage"],
        "fault": row["fault"],
        "recommendation": row["recommendation"],
        "diagnosis": diagnosis,
        "traces": row["traces"],
        "pacing": pacing,
    }
    try:
        return read_sample(stored, "")
    except RecordError as error:
        raise _unreadable_sample(row, error) from None


def graded_from(row: RowMapping, metrics: Sequence[MetricResult]) -> GradedSample:
    """How a sample was graded, from the grading columns of its row and its metrics.

    Read through the same codec as a whole sample: a value that does not read is a
    :class:`StoreError` naming the sample and the field.
    """
    try:
        return cast(GradedSample, read(GradedSample, _grading(row, metrics), ""))
    except RecordError as error:
        raise _unreadable_sample(row, error) from None


def _grading(row: RowMapping, metrics: Sequence[MetricResult]) -> dict[str, object]:
    """The stored form of how a sample was graded: its key, status, error and metrics."""
    return {
        "case_id": row["case_id"],
        "model": model_value(row["model"]),
        "sample": row["sample"],
        "status": row["status"],
        "error": row["error"],
        "metrics": tuple(metrics),  # read already: each is used as it is
    }


def _unreadable_sample(row: RowMapping, error: RecordError) -> StoreError:
    model = "" if not row["model"] else f" on {row['model']!r}"
    return StoreError(f"sample {row['case_id']!r}{model} #{row['sample']}: stored {error}")


def _usage_from(row: RowMapping) -> dict[str, Any] | None:
    names = ("input_tokens", "output_tokens", "cost_usd", "cost_source")
    # Usage is flattened into columns; all-NULL means there was none. (A normalised Usage
    # always has a cost source, so no real usage is all-NULL.)
    if all(row[name] is None for name in names):
        return None
    return {name: row[name] for name in names}


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(path, "expected an object")
    return dict(value)


class MetricRows:
    """Metric rows read into results, one result for each distinct row among recent ones.

    A value that does not read is a :class:`StoreError`. Most samples of a run are graded
    alike: a read of 100,000 samples of three checks would otherwise decode 300,000 rows into
    as many equal results, and hold them all. A row is shared only when it is the same as
    stored, value and type (0.0 is not -0.0, 1 not 1.0); one with votes is read afresh. At
    most :data:`SHARED_METRICS` are remembered.
    """

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[tuple[object, ...], MetricResult] = {}

    def __call__(self, row: RowMapping) -> MetricResult:
        values = tuple(row[name] for name in _METRIC_COLUMNS)
        key = _shareable(values)
        if key is None:
            return _metric_read(values)
        found = self._seen.get(key)
        if found is None:
            found = _metric_read(values)  # a row that does not read raises, never remembered
            if len(self._seen) >= SHARED_METRICS:
                self._seen.clear()
            self._seen[key] = found
        return found


#: How many distinct metric rows a :class:`MetricRows` remembers before starting afresh.
SHARED_METRICS = 1024


def _shareable(values: tuple[object, ...]) -> tuple[object, ...] | None:
    """The key of a metric row as stored, or ``None`` when it is to be read afresh."""
    if values[_VOTES] is not None:
        return None
    for number in (values[_THRESHOLD], values[_SCORE]):
        if type(number) is float and math.copysign(1.0, number) < 0:
            return None
    return (values, tuple(map(type, values)))


def _metric_read(values: tuple[object, ...]) -> MetricResult:
    stored = dict(zip(_METRIC_COLUMNS, values, strict=True))
    for column in _RECURRING:
        value = stored[column]
        if type(value) is str:
            # The same few names recur in every sample: a run read back, or a baseline read
            # to compare, holds each once rather than once per sample (at 100,000 samples
            # of three metrics, a hundred megabytes).
            stored[column] = sys.intern(value)
    if type(stored["passed"]) is int and stored["passed"] in (0, 1):  # SQLite's booleans
        stored["passed"] = bool(stored["passed"])
    try:
        return cast(MetricResult, read(MetricResult, stored, ""))
    except RecordError as error:
        raise StoreError(f"metric {stored['name']!r} {error}") from None


_RECURRING = ("name", "kind", "category")

_METRIC_COLUMNS = (
    "name",
    "kind",
    "category",
    "threshold",
    "score",
    "passed",
    "reason",
    "error",
    "votes",
)
_THRESHOLD, _SCORE, _VOTES = (
    _METRIC_COLUMNS.index(name) for name in ("threshold", "score", "votes")
)
