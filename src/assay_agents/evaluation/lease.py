"""A process as a run's owner: its lease, whether an owner is alive, and the heartbeat."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_agents.errors import LeaseError, StoreError
from assay_agents.evaluation.ports import RunStore
from assay_agents.results.run import Lease


def this_process() -> Lease:
    """A fresh lease for this process: host, process id, when it started, a random token."""
    pid = os.getpid()
    return Lease(
        host=socket.gethostname(),
        pid=pid,
        token=secrets.token_hex(16),
        started=process_start(pid),
    )


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, as ``BOOT_ID:TICKS``; ``None`` where that is unknown.

    On Linux, the boot id and field 22 of ``/proc/PID/stat`` (clock ticks since boot): the
    pair names one process for ever, where a pid is reused. Elsewhere (no ``/proc``) there
    is nothing to read without a dependency, and the pid alone names the owner.
    """
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    # The command name, in parentheses, may hold spaces and parentheses itself: the fields
    # after it start at field 3 (the state), so field 22 is the 20th of them.
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 20 or not fields[19].isdigit() or not boot:
        return None
    return f"{boot}:{fields[19]}"


def owner_alive(lease: Lease) -> bool | None:
    """Whether the lease's process still runs: ``None`` when this cannot tell.

    ``None`` for a process on another host, and for a stopped one (``kill -STOP``, Ctrl-Z):
    then its heartbeat decides. A live process on this host keeps its run however old its
    heartbeat, since one busy in C code (holding the interpreter lock) cannot beat. A process
    with the owner's pid that started at another time than the lease records is not the
    owner (its pid was reused): the owner is gone.
    """
    if lease.host != socket.gethostname():
        return None
    if lease.started is not None:
        # Unreadable (no /proc, or another user's process hidden): the pid decides below.
        now = process_start(lease.pid)
        if now is not None and now != lease.started:
            return False
    if lease.pid == os.getpid():
        return True
    try:
        os.kill(lease.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists; it belongs to someone else
    state = _process_state(lease.pid)
    if state in ("Z", "X"):
        return False  # exited, not yet reaped by its parent
    if state in ("T", "t"):
        return None
    return True


def _process_state(pid: int) -> str | None:
    """The state letter of ``pid`` in ``/proc`` (``R``, ``S``, ``T``, ``Z``…), if there is one."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None  # no /proc (macOS): the process exists, and that is all that is known
    # The command name, in parentheses, may hold spaces and parentheses itself.
    fields = stat.rpartition(")")[2].split()
    return fields[0] if fields else None


@dataclass
class Heartbeat:
    """Refreshes a run's lease every ``interval`` seconds while the run executes.

    It beats from a thread of its own: an agent that blocks the event loop (a synchronous
    call in an async agent) cannot silence it and get its live run taken over. A refresh the
    store refuses for a moment (another writer holding SQLite's lock) is tried again until
    the next beat is due; one still failing then is only noted (the store may be down; the
    writer's retries decide about that). A refresh that finds another owner holds the run
    ends the heartbeat with :class:`LeaseError`: this process must stop writing.
    """

    store: RunStore
    run_id: str
    token: str
    interval: float
    note: Callable[[str], None]
    _failing: bool = field(default=False, init=False)

    async def beat(self) -> None:
        """Run until cancelled, or raise :class:`LeaseError` when the lease is lost."""
        loop = asyncio.get_running_loop()
        lost: asyncio.Future[None] = loop.create_future()
        stop = threading.Event()

        def tell(error: LeaseError) -> None:
            if not lost.done():
                lost.set_exception(error)

        thread = threading.Thread(
            target=self._beat,
            args=(loop, stop, tell),
            name=f"assay-heartbeat-{self.run_id[:8]}",
            daemon=True,
        )
        thread.start()
        try:
            await lost
        finally:
            # Not joined: a refresh in flight ends by itself, and finds the run no longer
            # running (completed or interrupted) or still this owner's.
            stop.set()

    def _beat(
        self,
        loop: asyncio.AbstractEventLoop,
        stop: threading.Event,
        tell: Callable[[LeaseError], None],
    ) -> None:
        while not stop.wait(self.interval):
            try:
                held = self._refresh(stop)
            except Exception as error:  # said on the loop: never a traceback from a thread
                if stop.is_set():
                    return  # the run is over: nothing is left to keep alive
                if not self._failing:
                    reason = (
                        error
                        if isinstance(error, StoreError)
                        else f"{type(error).__name__}: {error}"
                    )
                    self._say(loop, f"heartbeat not recorded: {reason}")
                self._failing = True
                continue
            self._failing = False
            if not held and not stop.is_set():
                lost = LeaseError(
                    f"run {self.run_id} was taken over by another process; "
                    "this one stops writing to it"
                )
                _call_soon(loop, tell, lost)
                return

    def _refresh(self, stop: threading.Event) -> bool:
        """Refresh the lease, retrying a store briefly unavailable until the next beat is due.

        A writer holding SQLite's lock a moment (a batch of samples) is waited out here, not
        reported; a store that stays unavailable for the whole interval is.
        """
        deadline = time.monotonic() + self.interval
        pause = _FIRST_RETRY
        while True:
            try:
                return self.store.heartbeat(self.run_id, self.token)
            except StoreError as error:
                left = deadline - time.monotonic()
                if not error.transient or left <= 0 or stop.wait(min(pause, left)):
                    raise
                pause = min(pause * 2, _LONGEST_RETRY)

    def _say(self, loop: asyncio.AbstractEventLoop, message: str) -> None:
        _call_soon(loop, self.note, message)


#: Waits between a heartbeat's attempts within one interval: doubling from the first, capped.
_FIRST_RETRY = 0.05
_LONGEST_RETRY = 1.0


def _call_soon(
    loop: asyncio.AbstractEventLoop, function: Callable[[Any], None], argument: Any
) -> None:
    # A closed loop: the run is over, and nobody is left to tell.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(function, argument)
