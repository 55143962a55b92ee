"""A process as a run's owner: its lease, whether an owner is alive, and the heartbeat."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.errors import LeaseError, StoreError
from assay.evaluation.ports import RunStore
from assay.results.run import Lease


def this_process() -> Lease:
    """A fresh lease for this process: host, process id and a random token."""
    return Lease(host=socket.gethostname(), pid=os.getpid(), token=secrets.token_hex(16))


def owner_alive(lease: Lease) -> bool | None:
    """Whether the lease's process still exists: ``None`` when it runs on another host."""
    if lease.host != socket.gethostname():
        return None
    if lease.pid == os.getpid():
        return True
    try:
        os.kill(lease.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists; it belongs to someone else
    return True


@dataclass
class Heartbeat:
    """Refreshes a run's lease every ``interval`` seconds while the run executes.

    A failed refresh is only noted (the store may be briefly down; the writer's retries
    decide about that). A refresh that finds another owner holds the run ends the
    heartbeat with :class:`LeaseError`: this process must stop writing.
    """

    store: RunStore
    run_id: str
    token: str
    interval: float
    note: Callable[[str], None]
    _failing: bool = field(default=False, init=False)

    async def beat(self) -> None:
        """Run until cancelled, or raise :class:`LeaseError` when the lease is lost."""
        while True:
            await asyncio.sleep(self.interval)
            try:
                held = await asyncio.to_thread(self.store.heartbeat, self.run_id, self.token)
            except StoreError as error:
                if not self._failing:
                    self.note(f"heartbeat not recorded: {error}")
                self._failing = True
                continue
            self._failing = False
            if not held:
                raise LeaseError(f"run {self.run_id} was taken over by another process; "
                                 "this one stops writing to it")
