"""What the evaluation needs from a store: a small protocol that :class:`assay.Store` meets."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from assay.results import Run, RunSummary, SampleResult
from assay.results.baseline import BaselineChoice, RunOutcome
from assay.results.run import Lease, ModelVerdict


class RunStore(Protocol):
    """Runs, their samples and their leases, persisted."""

    display_url: str

    def create_run(self, run: Run) -> Run:
        """Insert a new run (running, with its lease) and its case snapshots."""
        ...

    def claim(
        self,
        run_id: str,
        owner: Lease,
        *,
        lease_timeout: float,
        owner_alive: Callable[[Lease], bool | None],
    ) -> Run:
        """Take an open run over for ``owner`` (a resume)."""
        ...

    def heartbeat(self, run_id: str, token: str) -> bool:
        """Refresh the lease; ``False`` once another owner holds the run."""
        ...

    def save_samples(
        self,
        run_id: str,
        samples: Sequence[SampleResult],
        *,
        token: str | None = None,
        skip_stored: bool = False,
    ) -> None:
        """Persist a batch of samples in one transaction."""
        ...

    def sample_keys(self, run_id: str) -> set[tuple[str, str | None, int]]:
        """Keys of the samples stored for a run."""
        ...

    def complete_run(
        self,
        run_id: str,
        *,
        summary: RunSummary,
        finished_at: datetime,
        comparison: dict[str, Any] | None = None,
        baseline_id: str | None = None,
        token: str | None = None,
        reload: bool = True,
        verdict: ModelVerdict | None = None,
        judge_usage: dict[str, Any] | None = None,
        outcome: RunOutcome | None = None,
        baseline_choice: BaselineChoice | None = None,
    ) -> Run | None:
        """Complete a run after verifying that every planned sample is stored."""
        ...

    def mark_interrupted(
        self,
        run_id: str,
        *,
        finished_at: datetime,
        error: str | None = None,
        token: str | None = None,
    ) -> None:
        """Keep a run resumable, recording why it stopped."""
        ...

    def get_run(self, ref: str) -> Run:
        """A run whole, by id or unique prefix."""
        ...

    def find_baseline(
        self, run: Run, *, same_judge: bool = False, where: Mapping[str, str] | None = None
    ) -> Run | None:
        """The automatic baseline of a run: the latest earlier passing run."""
        ...

    def pinned_baseline(self, suite: str, agent: str) -> Run | None:
        """The run pinned as the baseline of a suite and agent, if any."""
        ...

    def history(
        self, *, suite: str | None = None, agent: str | None = None, limit: int = 20
    ) -> list[Run]:
        """Runs newest first, without their samples."""
        ...

    def find_control_pair(self, run: Run) -> tuple[Run, Run] | None:
        """The latest control pair of a run's definition."""
        ...
