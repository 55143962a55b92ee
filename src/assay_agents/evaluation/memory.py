"""A run store in memory: the SQL store's guarantees, without a database.

For tests and for applications that embed Assay and keep results themselves:
``await assay.run_async(suite, db=MemoryRunStore())``. It keeps what the SQL store keeps
(leases, idempotent creation, completion only when every planned sample is stored,
append-only completed runs, pinned and automatic baselines), for as long as the object
lives. It holds the values it is given; they are frozen, so nothing it returns can change
what it holds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, final

from assay_agents.errors import BaselineError, LeaseError, ReadOnlyRunError, StoreError
from assay_agents.results import (
    CaseSnapshot,
    GradedSample,
    JudgeUsage,
    Run,
    RunStatus,
    RunSummary,
    SampleResult,
    StoredComparison,
    Traces,
)
from assay_agents.results.baseline import (
    BaselineChoice,
    Pin,
    RunOutcome,
    legacy_outcome,
    metadata_matches,
)
from assay_agents.results.cache import CacheStats
from assay_agents.results.release import release_matches
from assay_agents.results.run import Lease, ModelVerdict, lease_lapsed, split_handle

SampleKey = tuple[str, str | None, int]
#: A prefix shorter than this is too likely to match by accident (as in the SQL store).
MIN_PREFIX = 4


@dataclass
class _Stored:
    """One run as kept: the run without its samples, and its samples by key."""

    run: Run
    samples: dict[SampleKey, SampleResult] = field(default_factory=dict)


@final
class MemoryRunStore:
    """A :class:`~assay_agents.evaluation.RunStore` in this process's memory, thread-safe."""

    display_url = "memory"

    def __init__(self) -> None:
        self._runs: dict[str, _Stored] = {}
        self._pins: dict[tuple[str, str], Pin] = {}
        self._sequence = 0
        self._lock = threading.RLock()
        self._cache: dict[str, tuple[str, str, Any, datetime]] = {}

    def __repr__(self) -> str:
        return f"MemoryRunStore({len(self._runs)} runs)"

    # -- the cache of judge and model calls ------------------------------------------------

    def cache_get(self, key: str) -> Any:
        """The reply kept under ``key``, or ``None``."""
        with self._lock:
            found = self._cache.get(key)
            return None if found is None else found[2]

    def cache_entries(self, kind: str, source: str, limit: int) -> dict[str, Any] | None:
        """Every reply kept for ``kind`` and ``source``, by key; ``None`` past ``limit``."""
        with self._lock:
            found = {
                key: reply
                for key, (k, s, reply, _) in self._cache.items()
                if (k, s) == (kind, source)
            }
        return None if len(found) > limit else found

    def cache_put(self, key: str, reply: Any, *, kind: str, source: str) -> None:
        """Keep ``reply`` under ``key``; a key already kept keeps its first reply."""
        with self._lock:
            self._cache.setdefault(key, (kind, source, reply, _now()))

    def cache_stats(self) -> list[CacheStats]:
        """What the cache holds, per kind and source."""
        with self._lock:
            grouped: dict[tuple[str, str], list[datetime]] = {}
            for kind, source, _, kept in self._cache.values():
                grouped.setdefault((kind, source), []).append(kept)
        return [
            CacheStats(kind, source, len(times), min(times), max(times))
            for (kind, source), times in sorted(grouped.items())
        ]

    def cache_clear(self, *, kind: str | None = None, source: str | None = None) -> int:
        """Delete cached replies (of ``kind`` and ``source`` when given); how many."""
        with self._lock:
            gone = [
                key
                for key, (k, s, _, _) in self._cache.items()
                if kind in (None, k) and source in (None, s)
            ]
            for key in gone:
                del self._cache[key]
        return len(gone)

    # -- writes ----------------------------------------------------------------------------

    def create_run(self, run: Run) -> Run:
        """Keep a new run (and any samples on it); idempotent for its owner, as the SQL store."""
        with self._lock:
            before = self._runs.get(run.id)
            if before is not None:
                if run.lease is None or before.run.lease is None:
                    raise StoreError(f"run {run.id} already exists; a new run needs a new id")
                if before.run.lease.token != run.lease.token:
                    raise StoreError(f"run {run.id} already exists; a new run needs a new id")
                return replace(run, sequence=before.run.sequence)
            if run.lease is not None:
                run = replace(run, lease=replace(run.lease, heartbeat_at=_now()))
            # Its number in its suite's history: runs are never removed, so it never moves.
            number = 1 + sum(1 for other in self._runs.values() if other.run.suite == run.suite)
            stored = _Stored(replace(run, samples=(), sequence=self._sequence + 1, number=number))
            _add(stored, run.samples)
            if run.status is RunStatus.COMPLETED:
                if run.summary is None:
                    raise StoreError(f"run {run.id} is given as completed without a summary")
                _verify_complete(stored, run.summary)
            self._sequence += 1
            self._runs[run.id] = stored
            return replace(run, sequence=self._sequence, number=number)

    def save_samples(
        self,
        run_id: str,
        samples: Sequence[SampleResult],
        *,
        token: str | None = None,
        skip_stored: bool = False,
    ) -> None:
        """Keep a batch of samples, all or none; a stored key is refused unless skipped."""
        if not samples:
            return
        with self._lock:
            stored = self._open(run_id, token)
            if skip_stored:
                samples = [sample for sample in samples if sample.key not in stored.samples]
            _add(stored, samples)

    def complete_run(
        self,
        run_id: str,
        *,
        summary: RunSummary,
        finished_at: datetime,
        comparison: StoredComparison | None = None,
        baseline_id: str | None = None,
        token: str | None = None,
        reload: bool = True,
        verdict: ModelVerdict | None = None,
        judge_usage: JudgeUsage | None = None,
        outcome: RunOutcome | None = None,
        baseline_choice: BaselineChoice | None = None,
        traces: Traces | None = None,
    ) -> Run | None:
        """Complete a run once every planned sample is stored, as summarised."""
        with self._lock:
            stored = self._open(run_id, token)
            _verify_complete(stored, summary)
            lease = stored.run.lease
            stored.run = replace(
                stored.run,
                status=RunStatus.COMPLETED,
                finished_at=finished_at,
                summary=summary,
                comparison=comparison,
                baseline_id=baseline_id,
                lease=None if lease is None else replace(lease, heartbeat_at=None),
                error=None,
                verdict=verdict,
                judge_usage=judge_usage,
                outcome=outcome,
                baseline_choice=baseline_choice,
                traces=traces,
            )
            return self.get_run(run_id) if reload else None

    def mark_interrupted(
        self,
        run_id: str,
        *,
        finished_at: datetime,
        error: str | None = None,
        token: str | None = None,
    ) -> None:
        """Keep an open run resumable, recording why it stopped; a completed one refuses."""
        with self._lock:
            stored = self._open(run_id, token)
            stored.run = replace(
                stored.run, status=RunStatus.INTERRUPTED, finished_at=finished_at, error=error
            )

    def claim(
        self,
        run_id: str,
        owner: Lease,
        *,
        lease_timeout: float,
        owner_alive: Callable[[Lease], bool | None],
    ) -> Run:
        """Take an open run over for ``owner`` (a resume), under the SQL store's rules."""
        with self._lock:
            stored = self._runs[self._resolve(run_id)]
            run = stored.run
            if run.status is RunStatus.COMPLETED:
                raise ReadOnlyRunError(
                    f"run {run.id} is completed and read-only; nothing to resume"
                )
            now = _now()
            if run.status is RunStatus.RUNNING and not lease_lapsed(
                run.lease, run.started_at, now, lease_timeout, owner_alive
            ):
                raise LeaseError(_held(run, now, lease_timeout, owner_alive))
            stored.run = replace(
                run,
                status=RunStatus.RUNNING,
                finished_at=None,
                error=None,
                lease=replace(owner, heartbeat_at=now),
            )
            return self.get_run(run.id)

    def heartbeat(self, run_id: str, token: str) -> bool:
        """Say that ``token``'s owner is alive; ``False`` when it no longer holds the run."""
        with self._lock:
            stored = self._runs.get(run_id)
            lease = None if stored is None else stored.run.lease
            if stored is None or lease is None or lease.token != token:
                return False
            if stored.run.status is not RunStatus.RUNNING:
                return False
            stored.run = replace(stored.run, lease=replace(lease, heartbeat_at=_now()))
            return True

    def pin_baseline(self, ref: str) -> tuple[Run, str | None]:
        """Pin a completed run of a whole suite as the baseline of its suite and agent."""
        with self._lock:
            try:
                run = self._runs[self._resolve(ref)].run
            except StoreError as error:
                raise BaselineError(f"cannot pin {ref!r}: {error}") from None
            if run.status is not RunStatus.COMPLETED:
                raise BaselineError(
                    f"run {run.id} is {run.status.value}, not completed; "
                    "only a completed run can be pinned"
                )
            if run.settings.selection is not None:
                raise BaselineError(
                    f"run {run.id} ran a selection of suite {run.suite!r} "
                    "(--case or --group); pin a run of the whole suite"
                )
            before = self._pins.get((run.suite, run.agent))
            self._pins[(run.suite, run.agent)] = Pin(run.suite, run.agent, run.id, _now())
            return run, None if before is None else before.run_id

    def clear_pin(self, suite: str, agent: str) -> bool:
        """Unpin the baseline of ``suite`` and ``agent``; whether one was pinned."""
        with self._lock:
            return self._pins.pop((suite, agent), None) is not None

    # -- reads -----------------------------------------------------------------------------

    def get_run(self, ref: str) -> Run:
        """A run whole, by id or unique prefix (4+ characters), samples in report order."""
        with self._lock:
            stored = self._runs[self._resolve(ref)]
            return stored.run.with_samples(_in_report_order(stored))

    def sample_pages(self, run_id: str, *, size: int = 1000) -> Iterator[list[SampleResult]]:
        """The run's stored samples in report order, about ``size`` at a time."""
        with self._lock:
            ordered = _in_report_order(self._exact(run_id))
        for start in range(0, len(ordered), max(1, size)):
            yield list(ordered[start : start + size])

    def sample_keys(self, run_id: str) -> set[SampleKey]:
        """Keys of the samples stored for a run."""
        with self._lock:
            return set(self._exact(run_id).samples)

    def history(
        self,
        *,
        suite: str | None = None,
        agent: str | None = None,
        limit: int = 20,
        revision: str | None = None,
        label: str | None = None,
    ) -> list[Run]:
        """Runs newest first, without their cases or samples (of a release, as the SQL store)."""
        with self._lock:
            found = [
                replace(stored.run, cases=())
                for stored in self._newest_first()
                if (suite is None or stored.run.suite == suite)
                and (agent is None or stored.run.agent == agent)
                and release_matches(
                    stored.run.settings.release,
                    stored.run.metadata,
                    revision=revision,
                    label=label,
                )
            ]
            return found[:limit]

    def latest_run(self, *, suite: str | None = None) -> Run | None:
        """The most recent run (any status), optionally of a suite."""
        with self._lock:
            latest = next(
                (s for s in self._newest_first() if suite is None or s.run.suite == suite), None
            )
            return None if latest is None else self.get_run(latest.run.id)

    def find_baseline(
        self,
        run: Run,
        *,
        same_judge: bool = False,
        where: Mapping[str, str] | None = None,
        samples: bool = True,
        alike: Run | None = None,
    ) -> Run | None:
        """The latest earlier passing full run of the same suite and agent (as the SQL store).

        ``alike`` changes nothing here: the runs are in memory, each definition held once.
        """
        with self._lock:
            for stored in self._newest_first():
                if _may_be_baseline(stored.run, run, same_judge, where or {}):
                    return self._read(stored.run.id, samples=samples)
            return None

    def pinned_baseline(
        self, suite: str, agent: str, *, samples: bool = True, alike: Run | None = None
    ) -> Run | None:
        """The run pinned as the baseline of a suite and agent, if any (``alike``: as above)."""
        with self._lock:
            pin = self._pins.get((suite, agent))
            return None if pin is None else self._read(pin.run_id, samples=samples)

    def baseline_run(self, ref: str, *, alike: Sequence[CaseSnapshot] = ()) -> Run:
        """A run by id or unique prefix, with its cases, without its samples (as the SQL store).

        ``alike`` changes nothing here: the runs are in memory, each definition held once.
        """
        with self._lock:
            return self._runs[self._resolve(ref)].run.with_samples(())

    def graded_samples(self, run_id: str) -> list[GradedSample]:
        """How each of a run's samples was graded, in report order."""
        with self._lock:
            return [GradedSample.of(sample) for sample in _in_report_order(self._exact(run_id))]

    def _read(self, run_id: str, *, samples: bool) -> Run:
        # Without samples, as the SQL store: the run with its cases.
        return self.get_run(run_id) if samples else self._runs[run_id].run.with_samples(())

    def pins(self) -> list[Pin]:
        """Every pinned baseline, by suite and agent."""
        with self._lock:
            return [self._pins[key] for key in sorted(self._pins)]

    def find_control_pair(self, run: Run) -> tuple[Run, Run] | None:
        """The latest completed control pair of the run's suite, agent and definition."""
        with self._lock:
            second = next(
                (s.run for s in self._newest_first() if _second_of_pair(s.run, run)), None
            )
            if second is None:
                return None
            control = second.links.get("control")
            pair = control.get("pair") if isinstance(control, dict) else None
            first_id = pair[0] if isinstance(pair, list) and pair else None
            first = self._runs.get(first_id) if isinstance(first_id, str) else None
            if first is None or first.run.status is not RunStatus.COMPLETED:
                return None
            return self.get_run(first.run.id), self.get_run(second.id)

    # -- plumbing --------------------------------------------------------------------------

    def _newest_first(self) -> Iterator[_Stored]:
        return iter(sorted(self._runs.values(), key=lambda s: -(s.run.sequence or 0)))

    def _exact(self, run_id: str) -> _Stored:
        stored = self._runs.get(run_id)
        if stored is None:
            raise StoreError(f"no run {run_id!r}")
        return stored

    def _open(self, run_id: str, token: str | None) -> _Stored:
        """A run that may still change for ``token``'s owner, or why it may not."""
        stored = self._exact(run_id)
        run = stored.run
        if run.status is RunStatus.COMPLETED:
            raise ReadOnlyRunError(f"run {run_id} is completed; completed runs never change")
        lease = run.lease
        if token is not None and (lease is None or lease.token != token):
            where = "" if lease is None else f" ({lease.host}, pid {lease.pid})"
            raise LeaseError(
                f"run {run_id} was taken over by another process{where}; it is theirs to finish"
            )
        return stored

    def _resolve(self, ref: str) -> str:
        if ref in self._runs:
            return ref
        handle = split_handle(ref)
        if handle is not None:
            return self._by_number(*handle)
        if len(ref) < MIN_PREFIX:
            raise StoreError(f"no run {ref!r} (a prefix needs at least {MIN_PREFIX} characters)")
        found = [run_id for run_id in self._runs if run_id.startswith(ref)]
        if not found:
            raise StoreError(f"no run {ref!r}")
        if len(found) > 1:
            raise StoreError(f"run prefix {ref!r} is ambiguous: it matches {', '.join(found)}")
        return found[0]

    def _by_number(self, suite: str, number: int) -> str:
        found = [stored.run for stored in self._runs.values() if stored.run.suite == suite]
        match = next((run.id for run in found if run.number == number), None)
        if match is None:
            raise StoreError(
                f"no run {suite}#{number}: "
                + (
                    f"suite {suite!r} has runs #1 to #{len(found)}"
                    if found
                    else f"no runs of suite {suite!r} are stored"
                )
            )
        return match


def _add(stored: _Stored, samples: Sequence[SampleResult]) -> None:
    """Add every sample or none: a key stored already (or twice in the batch) is refused."""
    keys = [sample.key for sample in samples]
    repeated = [key for key in keys if key in stored.samples] or (
        keys if len(set(keys)) != len(keys) else []
    )
    if repeated:
        raise StoreError(f"run {stored.run.id}: save samples: sample {repeated[0]} is stored once")
    stored.samples.update(zip(keys, samples, strict=True))


def _verify_complete(stored: _Stored, summary: RunSummary) -> None:
    """Every planned sample stored, once, and the summary counts what is stored."""
    run = stored.run
    planned = set(_planned(run))
    inside = sum(1 for key in stored.samples if key in planned)
    if len(stored.samples) != len(planned) or inside != len(planned):
        raise StoreError(
            f"run {run.id} cannot be completed: {inside} of {len(planned)} planned "
            f"samples are stored ({len(stored.samples) - inside} outside the plan)"
        )
    expected = {
        "passed": summary.passed,
        "failed": summary.failed,
        "error": summary.errors,
        "not_evaluated": summary.not_evaluated,
    }
    statuses = [sample.status.value for sample in stored.samples.values()]
    found = {status: statuses.count(status) for status in expected}
    if found != expected:
        raise StoreError(
            f"run {run.id} cannot be completed: its summary counts {expected} "
            f"but the store holds {found}"
        )


def _planned(run: Run) -> Iterator[SampleKey]:
    """The run's own plan: its cases × its models (or none) × its samples, in report order."""
    models: list[str | None] = list(run.settings.models) or [None]
    per_case = run.settings.samples
    for case in sorted(run.cases, key=lambda case: (case.position, case.case_id)):
        for model in models:
            for index in range(per_case):
                yield (case.case_id, model, index)


def _in_report_order(stored: _Stored) -> tuple[SampleResult, ...]:
    order = {key: rank for rank, key in enumerate(_planned(stored.run))}
    unplanned = len(order)
    return tuple(
        sorted(
            stored.samples.values(),
            key=lambda s: (order.get(s.key, unplanned), s.case_id, s.model or "", s.sample),
        )
    )


def _may_be_baseline(candidate: Run, run: Run, same_judge: bool, where: Mapping[str, str]) -> bool:
    """The SQL store's rule: completed, passing, a whole suite, earlier, same suite and agent."""
    if (
        candidate.suite != run.suite
        or candidate.agent != run.agent
        or candidate.id == run.id
        or candidate.status is not RunStatus.COMPLETED
        or candidate.settings.selection is not None
    ):
        return False
    if run.sequence is not None and (candidate.sequence or 0) >= run.sequence:
        return False  # never from the future
    if same_judge and candidate.settings.judge != run.settings.judge:
        return False
    outcome = candidate.outcome or legacy_outcome(candidate.summary)
    return outcome is RunOutcome.PASSED and metadata_matches(candidate.metadata, where)


def _second_of_pair(candidate: Run, run: Run) -> bool:
    control = candidate.links.get("control")
    return (
        candidate.suite == run.suite
        and candidate.agent == run.agent
        and candidate.fingerprint == run.fingerprint
        and candidate.id != run.id
        and candidate.status is RunStatus.COMPLETED
        and isinstance(control, dict)
        and control.get("role") == "second"
    )


def _held(
    run: Run, now: datetime, timeout: float, owner_alive: Callable[[Lease], bool | None]
) -> str:
    lease = run.lease
    if lease is not None and owner_alive(lease) is True:
        return (
            f"run {run.id} is still running in process {lease.pid} on this host; "
            "it can be resumed once that process has ended"
        )
    if lease is None:
        return (
            f"run {run.id} is running; it can be resumed once it has run for "
            f"{timeout:g} s without finishing"
        )
    age = lease.age(now)
    since = "never" if age is None else f"{max(age, 0.0):.0f} s ago"
    return (
        f"run {run.id} is running on {lease.host} (pid {lease.pid}; last heartbeat "
        f"{since}); it can be resumed when that process is gone or its heartbeat is "
        f"older than {timeout:g} s"
    )


def _now() -> datetime:
    return datetime.now(UTC)


if TYPE_CHECKING:
    from assay_agents.evaluation.ports import RunStore

    # Checked by the type checker: the memory store offers everything the lifecycle asks for.
    _CONFORMS: type[RunStore] = MemoryRunStore
