"""Reading the history: the runs of a suite and agent, and one run with its baseline.

``assay-agents history`` and ``assay-agents report`` (and the baseline commands) ask these; each
answer is a frozen value with a :class:`~assay_agents.evaluation.verdict.Verdict` (a query that
found what it was asked for passes).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from assay_agents.compare import NoiseFloor
from assay_agents.errors import BaselineError, ConfigurationError
from assay_agents.evaluation.comparing import (
    RunRef,
    RunSource,
    find_run,
    noise_floor,
    require_completed,
)
from assay_agents.evaluation.verdict import Verdict
from assay_agents.results import Run, RunStatus
from assay_agents.results.run import Lease


class RunReader(RunSource, Protocol):
    """What the queries read from a store (SQL or in memory)."""

    def latest_run(self, *, suite: str | None = None) -> Run | None:
        """The most recent run, whole, of any status."""
        ...

    def history(
        self,
        *,
        suite: str | None = None,
        agent: str | None = None,
        limit: int = 20,
        revision: str | None = None,
        label: str | None = None,
    ) -> list[Run]:
        """Runs newest first, without their samples (of a release: a revision prefix, a label)."""
        ...


@dataclass(frozen=True, kw_only=True)
class History:
    """Runs newest first, each with its state, and why none matched when none did.

    ``states`` are ``running``, ``stale`` (its owner died or stopped beating) or the stored
    status, one per run; ``missing`` names the filter that matched nothing and the names that
    do have runs; ``now`` is the store's clock, by which staleness was judged.
    """

    runs: tuple[Run, ...]
    states: tuple[str, ...]
    missing: str | None
    now: datetime
    verdict: Verdict


@dataclass(frozen=True, kw_only=True)
class RunLookup:
    """One run, and the baseline it is to be compared with now, if one was named.

    ``noise_floor`` is that of the latest control pair of the run's definition, measured
    only when a baseline was named (the run's stored comparison carries its own).
    """

    run: Run
    baseline: Run | None
    noise_floor: NoiseFloor | None
    verdict: Verdict


def history(
    store: RunReader,
    *,
    suite: str | None = None,
    agent: str | None = None,
    limit: int = 20,
    revision: str | None = None,
    label: str | None = None,
) -> History:
    """The latest ``limit`` runs, of ``suite``, ``agent`` and a release when given, newest first.

    ``revision`` is a prefix (in any case) of the revision a run measured; ``label`` its
    release's label, exactly.
    """
    release = {"revision": revision, "label": label}
    asked = {key: value for key, value in release.items() if value is not None}
    runs = tuple(store.history(suite=suite, agent=agent, limit=limit, **asked))
    missing = None if runs or (suite is None and agent is None) else no_match(store, suite, agent)
    if not runs and asked:
        missing = "no runs of " + " and ".join(f"{k} {v!r}" for k, v in asked.items())
        missing += "".join(f" of {k} {v!r}" for k, v in (("suite", suite), ("agent", agent)) if v)
    now = _clock(store)
    return History(
        runs=runs,
        states=tuple(run_state(run, now) for run in runs),
        missing=missing,
        now=now,
        verdict=Verdict(failed=False, regressed=False),
    )


def lookup(
    store: RunReader, ref: str | None = None, *, baseline: RunRef | None = None
) -> RunLookup:
    """The run ``ref`` names (the latest when ``None``), with the ``baseline`` named, if any.

    The baseline (a run, or the id of a stored one) must be completed and of the same suite:
    items pair by their own fingerprints, and what changed is excluded loudly.
    """
    run = store.get_run(ref) if ref else store.latest_run()
    if run is None:
        raise ConfigurationError("the store holds no run yet")
    if baseline is None:
        return RunLookup(
            run=run, baseline=None, noise_floor=None, verdict=Verdict(failed=False, regressed=False)
        )
    base = find_run(store, baseline)
    require_completed(base)
    floor = noise_floor(store, run)
    _require_same_suite(run, base)
    return RunLookup(
        run=run, baseline=base, noise_floor=floor, verdict=Verdict(failed=False, regressed=False)
    )


def _clock(store: RunReader) -> datetime:
    """The store's own clock, if it keeps one, else this process's.

    Heartbeats are stamped by a database's clock: staleness is judged by it too. A store in
    this process's memory stamps them with this process's.
    """
    clock = getattr(store, "clock", None)
    return clock() if callable(clock) else datetime.now(UTC)


class Leased(Protocol):
    """What tells a run's state: its stored status, its lease and its start."""

    @property
    def status(self) -> RunStatus: ...  # noqa: D102

    @property
    def lease(self) -> Lease | None: ...  # noqa: D102

    @property
    def started_at(self) -> datetime: ...  # noqa: D102


def run_state(run: Leased, now: datetime) -> str:
    """``running``, ``stale`` (its owner died or stopped beating), or the stored status."""
    if run.status is not RunStatus.RUNNING:
        return run.status.value
    from assay_agents.evaluation.lease import owner_alive
    from assay_agents.evaluation.options import DEFAULT_LEASE_TIMEOUT
    from assay_agents.results.run import lease_lapsed

    lapsed = lease_lapsed(run.lease, run.started_at, now, DEFAULT_LEASE_TIMEOUT, owner_alive)
    return "stale" if lapsed else "running"


def no_match(store: RunReader, suite: str | None, agent: str | None) -> str:
    """Why a filtered history is empty: name the filter, and the names that do have runs."""
    from assay_agents.text import suggestion

    known = store.history(limit=500)
    parts = []
    for label, wanted, names in (
        ("suite", suite, {run.suite for run in known}),
        ("agent", agent, {run.agent for run in known}),
    ):
        if wanted is not None and wanted not in names:
            listed = ", ".join(repr(name) for name in sorted(names)[:10]) or "none"
            parts.append(
                f"no runs of {label} {wanted!r}{suggestion(wanted, names)}; "
                f"{label}s with runs: {listed}"
            )
    return "; ".join(parts) or f"no runs of suite {suite!r} with agent {agent!r}"


def _require_same_suite(run: Run, baseline: Run) -> None:
    # Any completed run of the suite will do: items pair by their own fingerprints, and
    # what changed is excluded loudly, never compared.
    if baseline.suite != run.suite:
        raise BaselineError(
            f"baseline {baseline.id} is a run of suite {baseline.suite!r}, "
            f"not of {run.suite!r} like run {run.id}"
        )
