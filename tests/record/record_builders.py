"""A small history to damage: one completed run of one case, holding the samples given."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from assay_agents.results import CaseSnapshot, Run, RunSettings, RunStatus, SampleResult, summarise
from assay_agents.store import Store

CASE = CaseSnapshot("refund", "Refund", 0, "fp-refund", {"input": "refund order 42"})
RUN_ID = "run-damaged-0001"


def completed_history(folder: Path, samples: Sequence[SampleResult]) -> tuple[Path, str]:
    """A project history (``.assay/assay.db`` under ``folder``) and its one run's id."""
    path = folder / ".assay" / "assay.db"
    path.parent.mkdir(parents=True)
    with Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = store.create_run(
            Run(
                id=RUN_ID,
                suite="support",
                agent="bot",
                fingerprint="fp",
                status=RunStatus.RUNNING,
                started_at=datetime(2026, 1, 1, tzinfo=UTC),
                settings=RunSettings(samples=len(samples)),
                cases=(CASE,),
            )
        )
        store.save_samples(run.id, list(samples))
        store.complete_run(run.id, summary=summarise(samples), finished_at=run.started_at)
    return path, run.id
