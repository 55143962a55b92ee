"""A run's detached evidence (the JSON report's top level), its settings and its samples."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from assay.record import upgrades
from assay.record._typed import RecordError, read, write
from assay.record.summary import write_summary
from assay.results import Run, RunSettings, SampleResult


def snapshot(run: Run) -> dict[str, Any]:
    """The detached, JSON-portable evidence of the run (the JSON report's top level)."""
    return {
        "id": run.id,
        "sequence": run.sequence,
        "suite": run.suite,
        "suite_version": run.suite_version,
        "agent": run.agent,
        "fingerprint": run.fingerprint,
        "status": run.status.value,
        "started_at": run.started_at.isoformat(),
        "finished_at": None if run.finished_at is None else run.finished_at.isoformat(),
        "settings": write_settings(run.settings),
        "metadata": dict(run.metadata),
        "baseline_id": run.baseline_id,
        "baseline": write(run.baseline_choice),
        "outcome": None if run.outcome is None else run.outcome.value,
        "error": run.error,
        "verdict": write(run.verdict),
        "judge_usage": write(run.judge_usage),
        "summary": None if run.summary is None else write_summary(run.summary),
        "cases": write(run.cases),
        "samples": write(run.samples),
    }


def write_settings(settings: RunSettings) -> dict[str, Any]:
    """The stored form of a run's settings."""
    return cast(dict[str, Any], write(settings))


def read_settings(data: object, path: str = "settings") -> RunSettings:
    """The settings a stored form holds; :class:`RecordError` naming a damaged field."""
    if data is None:
        raise RecordError(path, "missing")
    return cast(RunSettings, read(RunSettings, data, path))


def read_sample(data: object, path: str) -> SampleResult:
    """A sample's stored form, older forms upgraded; :class:`RecordError` naming the field."""
    if isinstance(data, Mapping) and "judge_usage" in data:
        data = {**data, "judge_usage": upgrades.judge_usage(data["judge_usage"])}
    return cast(SampleResult, read(SampleResult, data, path))
