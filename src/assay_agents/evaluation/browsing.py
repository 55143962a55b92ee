"""Browsing the history: runs a page at a time, one case with its baseline and its history.

The dashboard asks these (and :mod:`assay_agents.evaluation.queries` and
:func:`assay_agents.evaluation.comparing.compare`); each answer is read from stored summaries and
from the one case asked about, never from whole runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Protocol

from assay_agents.errors import StoreError
from assay_agents.evaluation.queries import run_state
from assay_agents.results import Run, RunStatus
from assay_agents.store.browse import CaseRun, Names, RunFilter, RunLine, RunOverview, RunsPage

#: The statuses a list may be filtered by.
STATES = ("running", "stale", "interrupted", "completed")


class HistoryBrowser(Protocol):
    """What browsing reads from a store (:class:`assay.Store` implements it)."""

    def runs_page(self, where: RunFilter, *, offset: int = 0, limit: int = 50) -> RunsPage:
        """Runs matching ``where``, newest first, as their stored summaries say."""
        ...

    def run_overview(self, ref: str, *, offset: int = 0, limit: int = 100) -> RunOverview:
        """A run for its page, without its samples, with one page of its cases."""
        ...

    def run_head(self, ref: str) -> Run:
        """A run with its summary, without samples."""
        ...

    def run_case(self, ref: str, case_id: str) -> Run | None:
        """A run holding only one case's snapshot and samples."""
        ...

    def case_history(self, run: Run, case_id: str, *, limit: int = 30) -> list[CaseRun]:
        """The case's statuses in the latest runs of the run's suite and agent."""
        ...

    def progress(self, run: Run | RunLine) -> tuple[int, int]:
        """How many samples the run has stored, and how many it plans."""
        ...

    def names(self) -> Names:
        """The suites, agents and models the history holds."""
        ...

    def history(
        self, *, suite: str | None = None, agent: str | None = None, limit: int = 20
    ) -> list[Run]:
        """Runs newest first, without their samples."""
        ...


@dataclass(frozen=True, kw_only=True)
class ListedRun:
    """A run in a list: its state (``stale`` included) and, while it runs, its progress."""

    run: RunLine
    state: str
    stored: int | None
    planned: int | None


@dataclass(frozen=True, kw_only=True)
class RunList:
    """A page of runs, newest first, and whether more follow."""

    runs: tuple[ListedRun, ...]
    offset: int
    more: bool
    now: datetime


def list_runs(
    store: HistoryBrowser, where: RunFilter, *, offset: int = 0, limit: int = 50
) -> RunList:
    """The runs matching ``where`` (``status`` may be ``stale``), ``limit`` from ``offset``."""
    wanted = where.status
    if wanted not in (None, *STATES):
        raise ValueError(f"status {wanted!r}: use one of {', '.join(STATES)}")
    now = _clock(store)
    if wanted in ("running", "stale"):
        # The lease is read in the query: a running run whose heartbeat lapsed is stale.
        from assay_agents.evaluation.options import DEFAULT_LEASE_TIMEOUT

        lapsed = now - timedelta(seconds=DEFAULT_LEASE_TIMEOUT)
        if wanted == "stale":
            where = replace(where, status="running", beat_before=lapsed)
        else:
            where = replace(where, status="running", beat_from=lapsed)
    page = store.runs_page(where, offset=offset, limit=limit)
    listed = []
    for run in page.runs:
        # The query tells by the heartbeat alone; the state also asks the owner process when
        # it runs on this host (one busy in C code cannot beat), as every command does.
        state = run_state(run, now)
        stored = planned = None
        if run.status is RunStatus.RUNNING:
            stored, planned = store.progress(run)
        listed.append(ListedRun(run=run, state=state, stored=stored, planned=planned))
    return RunList(runs=tuple(listed), offset=page.offset, more=page.more, now=now)


@dataclass(frozen=True, kw_only=True)
class CaseDetail:
    """One case of a run, the same case in the run's baseline, and its history.

    ``baseline`` is ``None`` when the run has no baseline or the baseline lacks the case;
    ``history`` is newest first; ``flaky`` says the case flipped with one definition (see
    :func:`is_flaky`).
    """

    run: Run
    baseline: Run | None
    history: tuple[CaseRun, ...]
    flaky: bool


def case_detail(store: HistoryBrowser, ref: str, case_id: str, *, limit: int = 30) -> CaseDetail:
    """The case ``case_id`` of run ``ref``; :class:`LookupError` when the run lacks it.

    An unknown run is the store's :class:`~assay_agents.errors.StoreError`.
    """
    run = store.run_case(ref, case_id)
    if run is None:
        raise LookupError(f"run {ref} has no case {case_id!r}")
    baseline = None
    if run.baseline_id is not None:
        try:
            baseline = store.run_case(run.baseline_id, case_id)
        except StoreError:
            baseline = None  # a baseline named but not stored here (an archived report)
    history = tuple(store.case_history(run, case_id, limit=limit))
    return CaseDetail(run=run, baseline=baseline, history=history, flaky=is_flaky(history))


def is_flaky(history: tuple[CaseRun, ...]) -> bool:
    """Whether a case flips with one definition, its history given newest first.

    Flaky: it passed and failed within one run, or went from one result to the other and
    back across runs. One flip is a change (a regression, a fix), not noise.
    """
    flips: dict[str | None, int] = {}
    last: dict[str | None, str] = {}
    for entry in reversed(history):  # oldest first
        if {"passed", "failed"} <= set(entry.statuses):
            return True
        result = next((s for s in ("failed", "passed") if s in entry.statuses), None)
        if result is None:
            continue
        before = last.get(entry.fingerprint)
        if before is not None and before != result:
            flips[entry.fingerprint] = flips.get(entry.fingerprint, 0) + 1
        last[entry.fingerprint] = result
    return any(count >= 2 for count in flips.values())


def trend_runs(
    store: HistoryBrowser, suite: str, agent: str | None = None, *, limit: int = 50
) -> tuple[RunLine, ...]:
    """The latest ``limit`` completed runs of ``suite`` (and ``agent``), oldest first."""
    page = store.runs_page(
        RunFilter(suite=suite, agent=agent, status=RunStatus.COMPLETED.value), limit=limit
    )
    return tuple(reversed(page.runs))


def _clock(store: object) -> datetime:
    """The store's own clock (heartbeats are stamped by it), else this process's."""
    clock = getattr(store, "clock", None)
    return clock() if callable(clock) else datetime.now(UTC)
