"""The history store: runs, their case snapshots and every sample, in SQLite or PostgreSQL."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self, final

from sqlalchemy import Connection, Engine, RowMapping, func, insert, select, tuple_, update
from sqlalchemy.exc import (
    DisconnectionError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from assay_agents.errors import (
    AssayError,
    BaselineError,
    ConfigurationError,
    LeaseError,
    ReadOnlyRunError,
    StoreError,
    StoreUnavailableError,
)
from assay_agents.load.history import embedded_url
from assay_agents.record import write, write_comparison, write_summary
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
from assay_agents.results.baseline import BaselineChoice, Pin, RunOutcome
from assay_agents.results.cache import CacheStats
from assay_agents.results.run import Lease, ModelVerdict
from assay_agents.store import (
    _baselines,
    _cache,
    _lease,
    _migrate,
    _overview,
    _reads,
    _rows,
    browse,
)
from assay_agents.store._bulk import BulkInserts
from assay_agents.store._engine import WRITE, connect, unusable_file
from assay_agents.store._tables import MalformedJSON, metrics, run_cases, runs, samples
from assay_agents.store._urls import normalise, redact, refuse_unusable, scrub, sqlite_path
from assay_agents.store.browse import CaseRun, Names, RunFilter, RunLine, RunOverview, RunsPage
from assay_agents.store.revisions import Upgrade

_OPEN = (RunStatus.RUNNING.value, RunStatus.INTERRUPTED.value)
# The database triggers' message (see migrations): how a refused write is recognised.
_TRIGGER_MARK = "run is completed and read-only"


@final
class Store:
    """Persisted run history, behind domain objects: rows never leave this package.

    Completed runs are append-only, enforced here and by database triggers. Open a store with
    :meth:`open`; close it (or use it as a context manager) to release connections.

    A host application that already has a SQLAlchemy engine passes it:
    ``Store(engine=app_engine)`` (or ``Store(url, engine=app_engine)``) uses that engine's
    pool as it is, and never disposes it: closing the store leaves the host's connections to
    the host. Nothing is migrated then; run ``assay-agents db migrate`` (or :meth:`migrate`) once.
    """

    def __init__(self, url: str | None = None, engine: Engine | None = None) -> None:
        owns = engine is None
        if engine is None:
            if url is None:
                raise ConfigurationError("a Store needs a database URL or an engine")
            url = normalise(url)
            engine = connect(url)
        elif url is None:
            url = engine.url.render_as_string(hide_password=False)
        self.url = url
        self.display_url = redact(url)
        self._engine = engine
        #: Only an engine the store made is the store's to dispose of.
        self._owns_engine = owns
        #: Batches of rows go in through statements compiled once for this engine.
        self._inserts = BulkInserts()
        self._file = sqlite_path(url)
        self._identity = _file_identity(self._file)
        #: Completed runs' heads, decoded once for their pages (a completed run never changes).
        self._heads = browse.Heads()
        #: The names the history holds, by the latest run's sequence.
        self._names: dict[int, Names] = {}

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        migrate: bool = False,
        create: bool = True,
        on_upgrade: Callable[[Upgrade], None] | None = None,
        upgrade: bool = True,
    ) -> Self:
        """Open the store at ``url``; ``None`` is the project's own history.

        That is the project configuration's ``database`` when it sets one, else the SQLite
        file of the nearest ``.assay/`` folder from the working directory upwards; with
        ``create`` (a run), a new ``.assay/assay.db`` here when there is none. An embedded
        (SQLite) history migrates itself. Any other database must already be at the head
        revision unless ``migrate`` is true; otherwise
        :class:`~assay_agents.errors.ConfigurationError` says which command to run. A database
        migrated by a newer Assay is refused, whatever is asked, naming both revisions.
        ``on_upgrade`` hears what an upgrade will do before it is done (see :meth:`migrate`).
        Without ``upgrade`` (a reader that must not write) an older embedded history is
        refused like any other database, with the command that migrates it.

        A SQLite file's revision is read before anything is written to it, even the switch to
        WAL: a file that is refused, or whose backup fails, is left byte for byte as it was.
        """
        default = url is None
        target = normalise(_project_url(create=create or migrate) if url is None else url)
        _refuse_unusable(target)
        default = default and target.startswith("sqlite") and upgrade
        _prepare_sqlite_file(target, create=(default and create) or migrate)
        _upgrade_file_first(cls, target, migrate=migrate or default, on_upgrade=on_upgrade)
        engine = connect(target)
        store = cls(target, engine)
        store._owns_engine = True
        try:
            # The embedded default migrates itself; a shared database changes only on request.
            if migrate:
                store._require_intact()
            if migrate or default:
                store.migrate(on_upgrade)
            else:
                with store._errors("open"):
                    _migrate.require_current(engine, store.display_url)
        except BaseException:
            store.close()
            raise
        return store

    def migrate(self, on_upgrade: Callable[[Upgrade], None] | None = None) -> Upgrade | None:
        """Upgrade the schema to the head revision; ``None`` (a no-op) when it is there already.

        What the upgrade will do (from which revision, its steps, where an older SQLite
        history is backed up first) is handed to ``on_upgrade`` before anything changes, and
        returned. A database migrated by a newer Assay is refused with
        :class:`~assay_agents.errors.ConfigurationError`, never downgraded.
        """
        with self._errors("migrate"):
            return _migrate.upgrade(
                self._engine, self.display_url, file=self._file, announce=on_upgrade
            )

    def _require_intact(self) -> None:
        """Refuse a damaged SQLite file before migrating it (``assay-agents db migrate`` checks)."""
        if self._file is None or not self._file.exists():
            return
        with self._errors("check"), self._engine.connect() as connection:
            found = connection.exec_driver_sql("PRAGMA quick_check(1)").scalar()
        if found != "ok":
            raise ConfigurationError(
                f"database file {self._file} is damaged ({found}); "
                "restore it from a backup, or move it aside to start a "
                "new history"
            )

    def close(self) -> None:
        """Release every connection of an engine the store made; a host's engine is left be."""
        if self._owns_engine:
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.display_url!r})"

    # -- writes ----------------------------------------------------------------------------

    def create_run(self, run: Run) -> Run:
        """Insert a run and its case snapshots; return it with its database ``sequence``.

        Samples already on ``run`` are stored too. A run given as completed is written open
        and completed in the same transaction, so its rows pass the append-only guard. A
        running run's ``lease`` (its owner) is stored with a first heartbeat.

        Idempotent for its owner: when a first attempt committed but its acknowledgement was
        lost, the retry (same id, same lease token) finds the row it wrote and returns it.
        """
        with self._write(f"create run {run.id}") as connection:
            written = _written_before(connection, run)
            if written is not None:
                return replace(run, sequence=written, number=_number(connection, run, written))
            if run.lease is not None:
                run = replace(run, lease=replace(run.lease, heartbeat_at=_lease_clock(connection)))
            initial = RunStatus.RUNNING if run.status is RunStatus.COMPLETED else run.status
            result = connection.execute(insert(runs).values(_rows.run_row(run, initial)))
            key = result.inserted_primary_key
            assert key is not None  # every insert into runs yields its sequence
            sequence = int(key[0])
            for start in range(0, len(run.cases), _CASES_AT_ONCE):
                # In batches: the rows of 100,000 cases, built at once, would be held twice.
                chunk = run.cases[start : start + _CASES_AT_ONCE]
                self._inserts.insert(connection, run_cases, _rows.case_rows(sequence, chunk))
            self._insert_samples(connection, sequence, run.samples)
            if initial is not run.status:
                # The same guarantee as complete_run, in the same transaction.
                if run.summary is None:
                    raise StoreError(f"run {run.id} is given as completed without a summary")
                row = _reads.resolve_exact(connection, run.id)
                _lease.verify_complete(connection, row, run.summary)
                connection.execute(
                    update(runs).where(runs.c.sequence == sequence).values(status=run.status.value)
                )
            return replace(run, sequence=sequence, number=_number(connection, run, sequence))

    def save_samples(
        self,
        run_id: str,
        samples: Sequence[SampleResult],
        *,
        token: str | None = None,
        skip_stored: bool = False,
    ) -> None:
        """Store a batch of samples with their metrics in one short transaction.

        A completed run refuses (:class:`ReadOnlyRunError`); with ``token``, a run no longer
        held by that owner refuses (:class:`LeaseError`). A (case, model, sample) key that is
        already stored raises :class:`StoreError` and stores nothing of the batch, unless
        ``skip_stored`` (a retry after a commit whose acknowledgement was lost) leaves out the
        samples stored already.
        """
        if not samples:
            return
        with self._write(f"run {run_id}: save samples") as connection:
            sequence = _open_sequence(connection, run_id, token)
            if skip_stored:
                samples = _unstored(connection, sequence, samples)
            self._insert_samples(connection, sequence, samples)

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
        """Mark a running or interrupted run completed, with its summary and comparison.

        ``verdict`` (the judge's pick of the best model), ``judge_usage`` (judge calls no
        sample owns), ``outcome`` (whether it may be an automatic baseline) and
        ``baseline_choice`` (which baseline it used and why) and ``traces`` (the run's trace
        ids) are stored with it.

        In the same transaction, every planned sample (cases × models × samples, from the
        run's own snapshot) must be stored exactly once and the summary's counts must match
        the stored statuses; otherwise :class:`StoreError` and the run stays open. Returns the
        completed run as stored; ``reload=False`` skips reading it back and returns ``None``.
        """
        with self._write(f"run {run_id}: complete") as connection:
            # Exclusive: a sample insert in flight (holding a shared lock) commits first and
            # is counted, or waits and then finds the run completed.
            row = _reads.resolve_exact(connection, run_id, exclusive=True)
            if row["status"] == RunStatus.COMPLETED.value:
                raise ReadOnlyRunError(f"run {run_id} is completed; completed runs never change")
            _require_holder(row, token)
            _lease.verify_complete(connection, row, summary)
            self._update_open(
                connection,
                run_id,
                RunStatus.COMPLETED,
                finished_at=finished_at,
                summary=write_summary(summary),
                comparison=None if comparison is None else write_comparison(comparison),
                baseline_id=baseline_id,
                heartbeat_at=None,
                error=None,
                verdict=write(verdict),
                judge_usage=write(judge_usage),
                outcome=write(outcome),
                baseline_choice=write(baseline_choice),
                traces=write(traces),
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
        """Mark an open run interrupted (resumable), recording why; a completed one refuses.

        With ``token``, only while that owner still holds it (a run taken over by another
        process is theirs to finish).
        """
        with self._write(f"run {run_id}: mark interrupted") as connection:
            row = _reads.resolve_exact(connection, run_id, lock=True)
            _require_holder(row, token)
            self._update_open(
                connection, run_id, RunStatus.INTERRUPTED, finished_at=finished_at, error=error
            )

    def claim(
        self,
        run_id: str,
        owner: Lease,
        *,
        lease_timeout: float,
        owner_alive: Callable[[Lease], bool | None],
    ) -> Run:
        """Take an open run over for ``owner`` so that it can be resumed; it is ``running``.

        An interrupted run can always be claimed; a running one only when its lease has
        expired (no heartbeat for ``lease_timeout`` seconds) or ``owner_alive`` says its
        owner process is gone. The claim is one conditional update on the state that was
        read, so of two concurrent resumers exactly one wins; the other gets
        :class:`LeaseError`, as does a run whose owner is alive.
        """
        with self._write(f"run {run_id}: claim") as connection:
            row = _reads.resolve(connection, run_id)
            if row["status"] == RunStatus.COMPLETED.value:
                raise ReadOnlyRunError(
                    f"run {row['id']} is completed and read-only; nothing to resume"
                )
            now = _lease_clock(connection)
            claimable = _lease.claimable(row, now, lease_timeout, owner_alive)
            query = (
                update(runs)
                .where(
                    runs.c.id == row["id"], runs.c.status == row["status"], _lease.same_owner(row)
                )
                .values(
                    status=RunStatus.RUNNING.value,
                    finished_at=None,
                    error=None,
                    **_lease.owner_values(owner, now),
                )
            )
            if not claimable or connection.execute(query).rowcount == 0:
                raise LeaseError(_lease.held_message(row, now, lease_timeout, owner_alive))
            return _reads.full_run(connection, _reads.resolve_exact(connection, row["id"]))

    def heartbeat(self, run_id: str, token: str) -> bool:
        """Say that ``token``'s owner is alive; ``False`` when it no longer holds the run."""
        query = update(runs).where(
            runs.c.id == run_id,
            runs.c.owner_token == token,
            runs.c.status == RunStatus.RUNNING.value,
        )
        with self._write(f"run {run_id}: heartbeat") as connection:
            stamped = query.values(heartbeat_at=_lease_clock(connection))
            return bool(connection.execute(stamped).rowcount)

    def clock(self) -> datetime:
        """The current time by which leases are judged: the database server's.

        Heartbeats are stamped, and compared, with one clock, so hosts whose clocks
        disagree never take a live run from each other. For SQLite, a file on this host,
        that is this host's clock.
        """
        with self._read("read the clock") as connection:
            return _lease_clock(connection)

    def _update_open(
        self, connection: Connection, run_id: str, status: RunStatus, **values: Any
    ) -> None:
        # Conditional on the run still being open: a completed run never changes.
        query = (
            update(runs)
            .where(runs.c.id == run_id, runs.c.status.in_(_OPEN))
            .values(status=status.value, **values)
        )
        if connection.execute(query).rowcount == 0:
            _open_sequence(connection, run_id)  # raises the precise reason
            raise StoreError(f"run {run_id} could not be marked {status.value}")

    # -- reads -----------------------------------------------------------------------------

    def get_run(self, ref: str) -> Run:
        """Return a run by full id or unique prefix (4+ characters), with everything in it."""
        with self._read(f"get run {ref}") as connection:
            return _reads.full_run(connection, _reads.resolve(connection, ref))

    def latest_run(self, *, suite: str | None = None) -> Run | None:
        """Return the most recent run (highest sequence, any status), optionally of a suite."""
        query = select(runs).order_by(runs.c.sequence.desc()).limit(1)
        if suite is not None:
            query = query.where(runs.c.suite == suite)
        with self._read("latest run") as connection:
            row = connection.execute(query).mappings().first()
            return None if row is None else _reads.full_run(connection, row)

    def history(
        self,
        *,
        suite: str | None = None,
        agent: str | None = None,
        limit: int = 20,
        revision: str | None = None,
        label: str | None = None,
    ) -> list[Run]:
        """List runs newest first, with summaries but without cases or samples (cheap).

        ``revision`` (a prefix, in any case) and ``label`` keep the runs of a release (see
        :func:`~assay_agents.results.release.release_matches`).
        """
        query = _reads.numbered(select(runs)).order_by(runs.c.sequence.desc()).limit(limit)
        if suite is not None:
            query = query.where(runs.c.suite == suite)
        if agent is not None:
            query = query.where(runs.c.agent == agent)
        query = query.where(*_reads.of_release(revision, label))
        with self._read("history") as connection:
            return [
                replace(_rows.run_from(row), number=row["number"])
                for row in connection.execute(query).mappings()
            ]

    def find_baseline(
        self,
        run: Run,
        *,
        same_judge: bool = False,
        where: Mapping[str, str] | None = None,
        samples: bool = True,
        alike: Run | None = None,
    ) -> Run | None:
        """Return the latest earlier passing run of the same suite and agent (the automatic one).

        Passing: completed with outcome ``passed`` (neither regressed, failed its gate nor
        errored); a run stored before outcomes were kept passes when no sample failed or
        errored. Its definition may differ: a comparison pairs the items both runs hold by
        their own fingerprints. A run of a selection is never taken: a selection is compared
        with the latest full run, on the cases it ran. With ``same_judge``, only a run graded
        by the same judge identity (model and endpoint) qualifies, since judge scores are
        compared. ``where`` restricts it to runs whose metadata has each ``KEY=VALUE``.
        "Earlier" is by database sequence, so a baseline never comes from the future, even
        when clocks tie or disagree. A run not stored yet (no sequence) may take any.
        Without ``samples``, the run comes with its cases only (see :meth:`graded_samples`);
        with ``alike`` too, a case defined as in ``alike`` shares that definition (see
        :func:`~assay_agents.store._reads.run_with_cases`).
        """
        with self._read(f"baseline of run {run.id}") as connection:
            sequence = _baselines.latest_passing(
                connection, run, same_judge=same_judge, where=where or {}
            )
            if sequence is None:
                return None
            row = connection.execute(select(runs).where(runs.c.sequence == sequence))
            return _run_read(connection, row.mappings().one(), samples=samples, alike=alike)

    def pinned_baseline(
        self, suite: str, agent: str, *, samples: bool = True, alike: Run | None = None
    ) -> Run | None:
        """Return the run pinned as the baseline of ``suite`` and ``agent``, if any.

        Without ``samples``, the run comes with its cases only (see :meth:`graded_samples`),
        sharing the definitions of ``alike``'s cases defined alike.
        """
        with self._read(f"pinned baseline of {suite!r} by {agent!r}") as connection:
            row = _baselines.pinned(connection, suite, agent)
            if row is None:
                return None
            return _run_read(connection, row, samples=samples, alike=alike)

    def baseline_run(self, ref: str, *, alike: Sequence[CaseSnapshot] = ()) -> Run:
        """A run by id, ``suite#number`` or unique prefix, with its cases, without its samples.

        What a named baseline (``--baseline``) is read as: its gradings follow
        (:meth:`graded_samples`). A case defined exactly as one of ``alike`` shares that
        one's definition (see :func:`~assay_agents.store._reads.run_with_cases`).
        """
        with self._read(f"run {ref}") as connection:
            return _reads.run_with_cases(connection, _reads.resolve(connection, ref), alike)

    def graded_samples(self, run_id: str, *, size: int = 1000) -> Iterator[GradedSample]:
        """How each of a run's samples was graded, in report order: what a comparison pools.

        Read without the answers, actions, observations, usage and metadata of the samples,
        about ``size`` at a time as they are iterated, from one read transaction (as
        :meth:`sample_pages`): pooling a baseline of any size holds one page of it. A run
        that does not exist is refused at once; the transaction lasts until the iterator is
        exhausted or closed.
        """
        with self._read(f"run {run_id}: read how its samples were graded") as connection:
            _reads.resolve_exact(connection, run_id)
        return self._graded_pages(run_id, size)

    def _graded_pages(self, run_id: str, size: int) -> Iterator[GradedSample]:
        with self._read(f"run {run_id}: read how its samples were graded") as connection:
            row = _reads.resolve_exact(connection, run_id)
            for page in _reads.graded_pages(connection, row, size):
                yield from page

    def pin_baseline(self, ref: str) -> tuple[Run, str | None]:
        """Pin a completed run as the baseline of its suite and agent.

        Returns the run (without its samples) and the id of the run it replaced, if any. A
        run that does not exist, is not completed or ran a selection of its suite raises
        :class:`~assay_agents.errors.BaselineError`.
        """
        with self._write(f"pin baseline {ref}") as connection:
            try:
                row = _reads.resolve(connection, ref)
            except StoreError as error:
                raise BaselineError(f"cannot pin {ref!r}: {error}") from None
            _require_pinnable(row)
            replaced = _baselines.pin(connection, row, _now())
            return replace(_rows.run_from(row), number=_reads.number_of(connection, row)), replaced

    def clear_pin(self, suite: str, agent: str) -> bool:
        """Unpin the baseline of ``suite`` and ``agent``; whether one was pinned."""
        with self._write(f"unpin baseline of {suite!r} by {agent!r}") as connection:
            return _baselines.unpin(connection, suite, agent)

    def pins(self) -> list[Pin]:
        """Every pinned baseline, by suite and agent."""
        with self._read("pinned baselines") as connection:
            return _baselines.all_pins(connection)

    def find_control_pair(self, run: Run) -> tuple[Run, Run] | None:
        """Return the latest completed control pair with the run's suite, agent and fingerprint.

        A control run (``assay-agents control``) executes a suite twice against the same code; both
        runs carry ``links["control"] = {"pair": [first, second], "role": ...}``. The pair is
        found by its second run, which completes last; ``None`` when there is none.
        """
        role = runs.c.links[("control", "role")].as_string()
        query = (
            select(runs)
            .where(
                runs.c.suite == run.suite,
                runs.c.agent == run.agent,
                runs.c.fingerprint == run.fingerprint,
                runs.c.id != run.id,
                runs.c.status == RunStatus.COMPLETED.value,
                role == "second",
            )
            .order_by(runs.c.sequence.desc())
            .limit(1)
        )
        with self._read(f"control pair of run {run.id}") as connection:
            row = connection.execute(query).mappings().first()
            if row is None:
                return None
            pair = (row["links"].get("control") or {}).get("pair") or [None]
            first = (
                connection.execute(
                    select(runs).where(
                        runs.c.id == pair[0], runs.c.status == RunStatus.COMPLETED.value
                    )
                )
                .mappings()
                .first()
            )
            if first is None:
                return None  # the first run of the pair is gone or never completed
            return _reads.full_run(connection, first), _reads.full_run(connection, row)

    # -- a page at a time (the dashboard) ----------------------------------------------------

    def runs_page(self, where: RunFilter, *, offset: int = 0, limit: int = 50) -> RunsPage:
        """Runs matching ``where``, newest first, ``limit`` from ``offset``: stored summaries."""
        with self._read("runs page") as connection:
            return browse.runs_page(connection, where, offset=offset, limit=limit)

    def run_overview(self, ref: str, *, offset: int = 0, limit: int = 100) -> RunOverview:
        """A run for its page without its samples: summary, sample facts, a page of cases."""
        with self._read(f"run {ref}") as connection:
            row = _reads.resolve(connection, ref)
            return _overview.overview(
                connection, row, offset=offset, limit=limit, heads=self._heads
            )

    def run_head(self, ref: str) -> Run:
        """A run by id, ``suite#number`` or unique prefix, with its summary but no samples."""
        with self._read(f"run {ref}") as connection:
            return browse.run_head(connection, _reads.resolve(connection, ref), self._heads)

    def run_case(self, ref: str, case_id: str) -> Run | None:
        """A run holding only one case's snapshot and samples; ``None`` without that case."""
        with self._read(f"run {ref}: case {case_id!r}") as connection:
            return browse.run_case(
                connection, _reads.resolve(connection, ref), case_id, self._heads
            )

    def case_history(self, run: Run, case_id: str, *, limit: int = 30) -> list[CaseRun]:
        """The case's statuses in the latest ``limit`` runs of the run's suite and agent.

        Runs after ``run`` are left out; newest first.
        """
        with self._read(f"history of case {case_id!r}") as connection:
            return browse.case_history(
                connection,
                suite=run.suite,
                agent=run.agent,
                case_id=case_id,
                before=run.sequence or 0,
                limit=limit,
            )

    def progress(self, run: Run | RunLine) -> tuple[int, int]:
        """How many samples the run has stored, and how many it plans."""
        with self._read(f"run {run.id}: progress") as connection:
            return browse.progress(connection, _reads.resolve_exact(connection, run.id))

    def names(self) -> Names:
        """The suites, agents and models the history holds."""
        with self._read("names") as connection:
            return browse.names(connection, self._names)

    def sample_pages(self, run_id: str, *, size: int = 1000) -> Iterator[list[SampleResult]]:
        """The run's stored samples in report order, about ``size`` at a time.

        Every page comes from one read transaction, so the pages add up to one snapshot of
        the run; a caller that folds them (a summary) holds one page at a time.
        """
        with self._read(f"run {run_id}: read samples") as connection:
            row = _reads.resolve_exact(connection, run_id)
            yield from _reads.sample_pages(connection, row, size)

    def sample_keys(self, run_id: str) -> set[tuple[str, str | None, int]]:
        """Return the (case, model, sample) keys already stored for a run: resuming skips them."""
        with self._read(f"run {run_id}: sample keys") as connection:
            sequence = _reads.resolve_exact(connection, run_id)["sequence"]
            query = select(samples.c.case_id, samples.c.model, samples.c.sample).where(
                samples.c.run == sequence
            )
            return {
                (case_id, _rows.model_value(model), index)
                for case_id, model, index in connection.execute(query)
            }

    # -- the cache of judge and model calls ------------------------------------------------

    def cache_get(self, key: str) -> Any:
        """The reply kept under ``key`` (its stored JSON), or ``None``."""
        with self._read("read the call cache") as connection:
            return _cache.get(connection, key)

    def cache_entries(self, kind: str, source: str, limit: int) -> dict[str, Any] | None:
        """Every reply kept for ``kind`` and ``source``, by key; ``None`` past ``limit``."""
        with self._read("read the call cache") as connection:
            return _cache.entries(connection, kind, source, limit)

    def cache_put(self, key: str, reply: Any, *, kind: str, source: str) -> None:
        """Keep ``reply`` (JSON) under ``key``; a key already kept keeps its first reply."""
        with self._write("write the call cache") as connection:
            _cache.put(connection, key, kind, source, reply, _now())

    def cache_stats(self) -> list[CacheStats]:
        """What the cache holds, per kind (``judge``, ``model``) and source."""
        with self._read("read the call cache") as connection:
            return _cache.stats(connection)

    def cache_clear(self, *, kind: str | None = None, source: str | None = None) -> int:
        """Delete the cached replies of ``kind`` and ``source`` (all without); how many."""
        with self._write("clear the call cache") as connection:
            return _cache.clear(connection, kind=kind, source=source)

    def _insert_samples(
        self, connection: Connection, sequence: int, batch: Sequence[SampleResult]
    ) -> None:
        if not batch:
            return
        sample_values, metric_values = _rows.sample_rows(sequence, batch, datetime.now(UTC))
        # executemany: a C loop on SQLite, one pipelined round trip with psycopg 3.
        self._inserts.insert(connection, samples, sample_values)
        self._inserts.insert(connection, metrics, metric_values)

    # -- plumbing --------------------------------------------------------------------------

    @contextmanager
    def _read(self, action: str) -> Iterator[Connection]:
        # One transaction per read, so a run and its samples come from the same snapshot.
        with self._errors(action), self._engine.connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def _write(self, action: str) -> Iterator[Connection]:
        self._require_same_file(action)
        with self._errors(action), self._engine.connect() as connection:
            connection.execution_options(**{WRITE: True})
            with connection.begin():
                yield connection

    def _require_same_file(self, action: str) -> None:
        """A SQLite file deleted or replaced under an open store would take writes nowhere."""
        if self._file is None:
            return
        found = _file_identity(self._file)
        if self._identity is None:  # created by this store's first connection
            self._identity = found
        if found == self._identity:
            return
        raise StoreUnavailableError(
            f"{action}: the database file {self._file} was removed or "
            "replaced while it was open; nothing more is written to it"
        )

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        """Turn database failures into :class:`StoreError` that say what was being done.

        Lost connections, locks and a full disk are ``transient`` (worth retrying); a value
        or a row the database refuses is not. A damaged or read-only SQLite file is the
        user's to fix: :class:`~assay_agents.errors.ConfigurationError`, at once.
        """
        try:
            yield
        except AssayError:
            raise
        except SQLAlchemyError as error:
            refused = unusable_file(self.url, error)
            if refused is not None:
                raise refused from error
            raise self._store_error(action, error) from error
        except MalformedJSON as error:
            raise self._malformed(action, error) from error
        except json.JSONDecodeError as error:
            raise StoreError(f"{action}: {_DAMAGED_JSON} ({_one_line(error)})") from error
        except (ValueError, OverflowError) as error:
            # A driver refusing a value before it reaches the database (an integer too
            # large for SQLite, a NUL byte for libpq): this write's data, not the store.
            raise StoreError(f"{action}: {_one_line(error)}") from error

    def _malformed(self, action: str, error: MalformedJSON) -> StoreError:
        """``run X: stored settings: malformed JSON (...)``, the run found where it can be."""
        try:
            with self._engine.connect() as connection:
                run = _reads.run_with_malformed_json(connection, error.table, error.column)
        except SQLAlchemyError:
            run = None
        where = action if run is None else f"run {run}"
        return StoreError(
            f"{where}: stored {error.column}: malformed JSON "
            f"(the history was edited or damaged; {_one_line(error.detail)})"
        )

    def _store_error(self, action: str, error: SQLAlchemyError) -> StoreError:
        # A driver may quote the URL it was given: its password never reaches a message.
        reason = scrub(_one_line(getattr(error, "orig", None) or error), self.url)
        if isinstance(error, IntegrityError):
            if _TRIGGER_MARK in reason:
                return ReadOnlyRunError(f"{action}: refused, {reason}")
            return StoreError(f"{action}: {reason}")
        if "malformed JSON" in reason:
            # SQLite's JSON functions met a value no version wrote: retrying cannot mend it.
            return StoreError(f"{action}: {_DAMAGED_JSON} ({reason})")
        return StoreError(
            f"{action} failed on {self.display_url}: {reason}",
            transient=isinstance(error, _TRANSIENT),
        )


#: Case snapshots inserted per statement when a run is created.
_CASES_AT_ONCE = 1000

_DAMAGED_JSON = "a stored value is malformed JSON (the history was edited or damaged)"
_TRANSIENT = (OperationalError, InterfaceError, DisconnectionError, PoolTimeoutError)


def _one_line(error: object) -> str:
    # Driver messages span lines (libpq adds hints); one line reads better in a message.
    return " ".join(str(error).split())


def _now() -> datetime:
    return datetime.now(UTC)


def _lease_clock(connection: Connection) -> datetime:
    """The database server's time (PostgreSQL), else this host's (SQLite is on it)."""
    if connection.dialect.name != "postgresql":
        return _now()
    # clock_timestamp(), not now(): now() is when the transaction began.
    found = connection.execute(select(func.clock_timestamp())).scalar_one()
    assert isinstance(found, datetime)
    return found.astimezone(UTC)


def _file_identity(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def _require_holder(row: Any, token: str | None) -> None:
    if (
        token is not None
        and row["status"] != RunStatus.COMPLETED.value
        and row["owner_token"] != token
    ):
        raise LeaseError(
            f"run {row['id']} was taken over by another process "
            f"({row['owner_host']}, pid {row['owner_pid']}); it is theirs to finish"
        )


def _require_pinnable(row: Any) -> None:
    if row["status"] != RunStatus.COMPLETED.value:
        raise BaselineError(
            f"run {row['id']} is {row['status']}, not completed; only a completed run can be pinned"
        )
    if _rows.settings_of(row).selection:
        # Its cases left out would meet the next full run as new, and go ungated.
        raise BaselineError(
            f"run {row['id']} ran a selection of suite {row['suite']!r} "
            "(--case or --group); pin a run of the whole suite"
        )


def _written_before(connection: Connection, run: Run) -> int | None:
    """The sequence of ``run`` when this owner already stored it; refuse another's id."""
    row = connection.execute(
        select(runs.c.sequence, runs.c.owner_token).where(runs.c.id == run.id)
    ).first()
    if row is None:
        return None
    if run.lease is None or row.owner_token != run.lease.token:
        raise StoreError(f"run {run.id} already exists; a new run needs a new id")
    return int(row.sequence)


def _unstored(
    connection: Connection, sequence: int, batch: Sequence[SampleResult]
) -> list[SampleResult]:
    keys = [(sample.case_id, _rows.model_column(sample.model), sample.sample) for sample in batch]
    query = select(samples.c.case_id, samples.c.model, samples.c.sample).where(
        samples.c.run == sequence,
        tuple_(samples.c.case_id, samples.c.model, samples.c.sample).in_(keys),
    )
    stored = {tuple(row) for row in connection.execute(query)}
    return [sample for sample, key in zip(batch, keys, strict=True) if key not in stored]


def _run_read(
    connection: Connection, row: RowMapping, *, samples: bool, alike: Run | None = None
) -> Run:
    if samples:
        return _reads.full_run(connection, row)
    return _reads.run_with_cases(connection, row, () if alike is None else alike.cases)


def _open_sequence(connection: Connection, run_id: str, token: str | None = None) -> int:
    """Return the sequence of a run that may still change, or raise why it may not."""
    # FOR SHARE (PostgreSQL): a concurrent completion waits for this transaction, or wins
    # and is seen here. SQLite writers are already serialised by BEGIN IMMEDIATE.
    row = _reads.resolve_exact(connection, run_id, lock=True)
    if row["status"] == RunStatus.COMPLETED.value:
        raise ReadOnlyRunError(f"run {run_id} is completed; completed runs never change")
    _require_holder(row, token)
    return int(row["sequence"])


def _project_url(*, create: bool) -> str:
    from assay_agents.load.config import find_config

    config = find_config()
    configured = config.database_url()
    return configured if configured is not None else embedded_url(create=create, root=config.root)


def _refuse_unusable(url: str) -> None:
    """A URL that is not one, or an in-memory database that would keep nothing."""
    refuse_unusable(url)


def _upgrade_file_first(
    cls: type[Store],
    url: str,
    *,
    migrate: bool,
    on_upgrade: Callable[[Upgrade], None] | None,
) -> None:
    """Check an existing SQLite file's revision, then upgrade it, before WAL is switched on.

    Switching to WAL rewrites the file's header: a file refused (newer, or older and not
    to be migrated here) or whose backup fails must not have been touched. The upgrade runs
    in the file's own journal mode; WAL comes with the connections opened after it.
    """
    from assay_agents.store import revisions

    path = sqlite_path(url)
    if path is None:
        return
    try:
        found = revisions.sqlite_status(path)
    except sqlite3.Error:
        return  # a damaged file: connecting says so
    if found is None or found.state is revisions.SchemaState.CURRENT:
        return
    display = redact(url)
    if found.state is revisions.SchemaState.UNKNOWN or not migrate:
        raise _migrate.schema_error(display, found)
    with cls(url, connect(url, wal=False)) as store:
        store._owns_engine = True
        store._require_intact()
        store.migrate(on_upgrade)


def _prepare_sqlite_file(url: str, *, create: bool) -> None:
    """Create the folder of a SQLite file we may create; refuse a missing one we may not."""
    path = sqlite_path(url)
    if path is None:
        return
    if not create and not path.exists():
        # Connecting would leave an empty file behind; say how to create it instead.
        raise ConfigurationError(
            f"database {redact(url)} does not exist; create it with "
            f"`assay-agents db migrate --db {redact(url)}`"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigurationError(f"cannot create database {redact(url)}: {error}") from None


def _number(connection: Connection, run: Run, sequence: int) -> int:
    """The number of the run stored at ``sequence`` in its suite's history."""
    return _reads.number_of(connection, {"suite": run.suite, "sequence": sequence})
