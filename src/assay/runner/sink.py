"""Where sample results go as they land: a small interface, and a batching store writer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Protocol

from assay.results import SampleResult


class SampleWriter(Protocol):
    """What a store offers the sink: one short transaction per batch."""

    def save_samples(self, run_id: str, samples: Sequence[SampleResult]) -> None:
        """Persist a batch of samples with their metrics."""
        ...


class ResultSink(Protocol):
    """Receives every sample result as it lands."""

    async def put(self, result: SampleResult) -> None:
        """Accept one result."""
        ...

    async def close(self) -> None:
        """Make everything accepted so far durable; no more results will come."""
        ...


class MemorySink:
    """Keeps results in memory (tests, dry runs)."""

    def __init__(self) -> None:
        self.results: list[SampleResult] = []

    async def put(self, result: SampleResult) -> None:
        """Append the result."""
        self.results.append(result)

    async def close(self) -> None:
        """Nothing to do: memory is the destination."""


class BatchingSink:
    """Writes results to a store in short transactions, at most ``interval`` seconds apart.

    A batch is written when it reaches ``batch_size`` results, and a timer writes whatever is
    buffered ``interval`` seconds after it arrived, even while every agent is still busy: an
    interrupted run loses at most that interval (and :meth:`close` on interruption loses
    none). Writes run in a worker thread, one at a time, so the event loop keeps driving
    agents while the database works.
    """

    def __init__(self, writer: SampleWriter, run_id: str, *, batch_size: int = 500,
                 interval: float = 0.5) -> None:
        self._writer = writer
        self._run_id = run_id
        self._batch_size = batch_size
        self._interval = interval
        self._pending: list[SampleResult] = []
        self._timer: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def put(self, result: SampleResult) -> None:
        """Buffer the result; write the buffer when it is full, or soon."""
        self._pending.append(result)
        if len(self._pending) >= self._batch_size:
            await self.flush()
        elif self._timer is None:
            self._timer = asyncio.create_task(self._flush_later())

    async def flush(self) -> None:
        """Write everything buffered, in one transaction."""
        async with self._lock:
            batch, self._pending = self._pending, []
            if batch:
                await asyncio.to_thread(self._writer.save_samples, self._run_id, batch)

    async def close(self) -> None:
        """Stop the timer and write what is left."""
        timer, self._timer = self._timer, None
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        await self.flush()

    async def _flush_later(self) -> None:
        await asyncio.sleep(self._interval)
        self._timer = None
        await self.flush()
