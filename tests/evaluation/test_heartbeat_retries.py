"""A heartbeat waits out a writer holding SQLite's lock, and reports a store that stays locked.

Another process holds the write lock (``BEGIN IMMEDIATE``) with a busy timeout of 0, so
every refresh meanwhile fails at once with "database is locked". The store is wrapped only
to learn that a refresh failed; the lock and the database are real.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.errors import StoreError
from assay_agents.evaluation.lease import Heartbeat, this_process
from assay_agents.results import Run, RunStatus

HOLDER = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True)\n"
    "sys.stdin.readline(); c.execute('COMMIT')\n"
)


class Watched:
    """A real store that says when a heartbeat refresh has failed."""

    def __init__(self, store: assay.Store) -> None:
        self.store = store
        self.failed = threading.Event()
        self.refreshed = threading.Event()

    def heartbeat(self, run_id: str, token: str) -> bool:
        try:
            held = self.store.heartbeat(run_id, token)
        except StoreError:
            self.failed.set()
            raise
        self.refreshed.set()
        return held


def running_run(store: assay.Store) -> Run:
    owner = this_process()
    run = Run(
        id="beating",
        suite="beats",
        agent="agent",
        fingerprint="f" * 64,
        status=RunStatus.RUNNING,
        started_at=datetime.now(UTC),
        lease=owner,
    )
    return store.create_run(run)


def locked(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    holder.stdout.close()
    return holder


def release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0


async def beat_until(
    watched: Watched, run: Run, interval: float, until: threading.Event
) -> list[str]:
    notes: list[str] = []
    assert run.lease is not None
    heartbeat = Heartbeat(watched, run.id, run.lease.token, interval, notes.append)  # type: ignore[arg-type]
    beating = asyncio.ensure_future(heartbeat.beat())
    try:
        await asyncio.to_thread(until.wait, 60)
        await asyncio.sleep(0)  # a note sent from the heartbeat's thread is delivered first
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
    return notes


def test_a_writer_holding_the_lock_briefly_is_waited_out_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_SQLITE_BUSY_TIMEOUT_MS", "0")
    path = tmp_path / "s.db"
    with assay.Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = running_run(store)
        watched = Watched(store)
        holder = locked(path)

        def release_once_refused() -> None:
            watched.failed.wait(60)
            release(holder)

        releasing = threading.Thread(target=release_once_refused)
        releasing.start()
        # Long enough an interval that the retries within it outlast the release.
        notes = asyncio.run(beat_until(watched, run, 3.0, watched.refreshed))
        releasing.join()
        assert watched.failed.is_set() and watched.refreshed.is_set()
        assert notes == []
        assert store.get_run(run.id).lease.heartbeat_at > run.lease.heartbeat_at


def test_a_store_locked_for_the_whole_interval_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_SQLITE_BUSY_TIMEOUT_MS", "0")
    path = tmp_path / "s.db"
    with assay.Store.open(f"sqlite:///{path}", migrate=True) as store:
        run = running_run(store)
        watched = Watched(store)
        holder = locked(path)
        noted = threading.Event()
        notes: list[str] = []

        async def beat() -> None:
            assert run.lease is not None

            def note(message: str) -> None:
                notes.append(message)
                noted.set()

            heartbeat = Heartbeat(watched, run.id, run.lease.token, 0.3, note)  # type: ignore[arg-type]
            beating = asyncio.ensure_future(heartbeat.beat())
            try:
                await asyncio.to_thread(noted.wait, 60)
            finally:
                beating.cancel()
                await asyncio.gather(beating, return_exceptions=True)

        try:
            asyncio.run(beat())
        finally:
            release(holder)
        assert len(notes) == 1 and notes[0].startswith("heartbeat not recorded")
        assert "database is locked" in notes[0]
