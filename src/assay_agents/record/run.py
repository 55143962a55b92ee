"""A run's detached evidence (the JSON report's top level), its settings and its samples."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from assay_agents.errors import SpecError
from assay_agents.record import upgrades
from assay_agents.record._typed import RecordError, read, write
from assay_agents.record._version import SCHEMA_KEY, SCHEMA_VERSION, version_of
from assay_agents.record.summary import write_summary
from assay_agents.results import (
    CaseSnapshot,
    JudgeUsage,
    Run,
    RunSettings,
    RunStatus,
    SampleResult,
    Traces,
)
from assay_agents.results.baseline import BaselineChoice, RunOutcome
from assay_agents.results.run import ModelVerdict
from assay_agents.spec.json_data import JSON


@dataclass(frozen=True, kw_only=True)
class RunRecord:
    """The detached, JSON-portable evidence of a run: the JSON report's top level.

    Its fields are stored in this order under their own names. ``summary`` is kept in its
    stored form (:func:`~assay_agents.record.write_summary`) as the file states it: a completed
    run's is checked figure by figure against its samples, which a typed read would not
    leave room for (a figure an older version did not write is counted, not missing).
    """

    schema_version: int = SCHEMA_VERSION
    id: str
    sequence: int | None = None
    number: int | None = field(default=None, metadata={"omit_none": True})
    suite: str
    suite_version: str | None = None
    agent: str
    fingerprint: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None = None
    settings: RunSettings
    metadata: Mapping[str, JSON] = field(default_factory=dict)
    #: Relations to other runs (a control pair, the run a rescore grades again).
    links: Mapping[str, JSON] = field(default_factory=dict, metadata={"omit_empty": True})
    baseline_id: str | None = None
    baseline: BaselineChoice | None = None
    outcome: RunOutcome | None = None
    error: str | None = None
    verdict: ModelVerdict | None = None
    judge_usage: JudgeUsage | None = None
    traces: Traces | None = field(default=None, metadata={"omit_none": True})
    summary: Mapping[str, JSON] | None
    cases: tuple[CaseSnapshot, ...]
    samples: tuple[SampleResult, ...]

    def __post_init__(self) -> None:
        for name in ("id", "suite", "agent", "fingerprint"):
            if not getattr(self, name):
                raise SpecError("is empty; a run always has one", field=name)
        if self.sequence is not None and self.sequence < 0:
            raise SpecError(f"must be 0 or more, not {self.sequence!r}", field="sequence")
        if self.schema_version < 1:
            raise SpecError(
                f"expected an integer of at least 1, not {self.schema_version!r}",
                field=SCHEMA_KEY,
            )

    @classmethod
    def of(cls, run: Run) -> RunRecord:
        """The record of ``run``, in this version's form."""
        return cls(
            id=run.id,
            sequence=run.sequence,
            number=run.number,
            suite=run.suite,
            suite_version=run.suite_version,
            agent=run.agent,
            fingerprint=run.fingerprint,
            status=run.status,
            started_at=run.started_at,
            finished_at=run.finished_at,
            settings=run.settings,
            metadata=run.metadata,
            links=run.links,
            baseline_id=run.baseline_id,
            baseline=run.baseline_choice,
            outcome=run.outcome,
            error=run.error,
            verdict=run.verdict,
            judge_usage=run.judge_usage,
            traces=run.traces,
            summary=None if run.summary is None else write_summary(run.summary),
            cases=run.cases,
            samples=tuple(run.samples),
        )


def snapshot(run: Run) -> dict[str, Any]:
    """The detached, JSON-portable evidence of the run (the JSON report's top level)."""
    return cast(dict[str, Any], write(RunRecord.of(run)))


def read_run_record(data: object) -> RunRecord:
    """The record a report's top level holds, older forms upgraded.

    :class:`RecordError` names the first field that does not read (``samples[2].status``).
    A record without ``schema_version`` is of the first version.
    """
    version = version_of(data, "")
    given = cast(Mapping[str, Any], data)
    upgraded = {**given, SCHEMA_KEY: version}
    samples = given.get("samples")
    if isinstance(samples, list):
        upgraded["samples"] = [_reported_sample(sample) for sample in samples]
    return cast(RunRecord, read(RunRecord, upgraded, ""))


def _reported_sample(data: object) -> object:
    """A report's sample, upgraded; a usage that holds nothing at all is none, as stored."""
    data = upgrades.sample(data)
    usage = data.get("usage") if isinstance(data, Mapping) else None
    if isinstance(usage, Mapping) and usage and all(value is None for value in usage.values()):
        return {**cast(Mapping[str, Any], data), "usage": None}
    return data


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
    return cast(SampleResult, read(SampleResult, upgrades.sample(data), path))
