"""A run's detached evidence: the JSON report's top level, and its settings in the store."""

from __future__ import annotations

from typing import Any, cast

from assay.record._typed import RecordError, read, write
from assay.record.summary import write_summary
from assay.results import Run, RunSettings


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
        "baseline": None if run.baseline_choice is None else run.baseline_choice.to_json(),
        "outcome": None if run.outcome is None else run.outcome.value,
        "error": run.error,
        "verdict": None if run.verdict is None else run.verdict.to_json(),
        "judge_usage": None if run.judge_usage is None else write(run.judge_usage),
        "summary": None if run.summary is None else write_summary(run.summary),
        "cases": [case.to_json() for case in run.cases],
        "samples": [sample.to_json() for sample in run.samples],
    }


def write_settings(settings: RunSettings) -> dict[str, Any]:
    """The stored form of a run's settings."""
    return cast(dict[str, Any], write(settings))


def read_settings(data: object, path: str = "settings") -> RunSettings:
    """The settings a stored form holds; :class:`RecordError` naming a damaged field."""
    if data is None:
        raise RecordError(path, "missing")
    return cast(RunSettings, read(RunSettings, data, path))
