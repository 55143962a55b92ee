"""Durable writes: every landed sample reaches the store, or the run stops saying why.

Samples are written in short batches, at most ``interval`` seconds apart. A write that fails
keeps its batch and is retried with backoff, visibly, for ``retry_for`` seconds; past that
the writer gives up with :class:`StoreUnavailableError` and the run stops as interrupted.
A batch the database refuses for its content (not its availability) is written one sample
at a time, so one bad value costs only its own sample, which is stored as an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from assay_agents.errors import LeaseError, ReadOnlyRunError, StoreError, StoreUnavailableError
from assay_agents.evaluation.ports import RunStore
from assay_agents.results import SampleResult
from assay_agents.results.storable import with_store_refusal

T = TypeVar("T")

#: Backoff between attempts: doubling from the first, capped.
FIRST_WAIT = 0.2
LONGEST_WAIT = 5.0


async def with_store_retries(
    call: Callable[[], T], *, retry_for: float, note: Callable[[str], None], what: str
) -> T:
    """Run the store ``call`` in a thread, retrying transient failures for ``retry_for`` s.

    Past the deadline, :class:`StoreUnavailableError`; a refusal (not an outage) is raised
    at once.
    """
    deadline = time.monotonic() + retry_for
    wait, failed = FIRST_WAIT, False
    while True:
        try:
            result = await _to_the_end(call)
        except (LeaseError, ReadOnlyRunError, StoreUnavailableError):
            raise
        except StoreError as error:
            left = deadline - time.monotonic()
            if not error.transient:
                raise
            if left <= 0:
                raise StoreUnavailableError(
                    f"the store stayed unavailable for {retry_for:g} s ({what}): {error}"
                ) from error
            pause = min(wait, left)
            note(f"store unavailable ({error}); retrying to {what} in {pause:.1f} s")
            await asyncio.sleep(pause)
            wait, failed = min(wait * 2, LONGEST_WAIT), True
            continue
        if failed:
            note(f"store available again: could {what}")
        return result


async def _to_the_end(call: Callable[[], T]) -> T:
    """``call`` in a thread; cancelled meanwhile, the call still ends before the cancel goes on.

    A write in flight is then committed or not, never still committing behind a caller that
    has moved on (and would not know that the row it wrote needs marking interrupted).
    """
    # Handed to the thread now, as asyncio.to_thread does once its task gets a turn: a batch
    # is written while the samples after it still run on a loop that may not yield for long.
    context = contextvars.copy_context()
    running = asyncio.get_running_loop().run_in_executor(None, context.run, call)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await asyncio.wait({running})
        if not running.cancelled():
            running.exception()  # retrieved: the cancellation is what goes on
        raise


class DurableSink:
    """A :class:`assay_agents.runner.ResultSink` that writes to a store and never drops a batch."""

    def __init__(
        self,
        store: RunStore,
        run_id: str,
        *,
        token: str | None,
        note: Callable[[str], None],
        retry_for: float = 60.0,
        batch_size: int = 500,
        interval: float = 0.5,
        on_stored: Callable[[Sequence[SampleResult]], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._run_id = run_id
        self._token = token
        self._note = note
        self._retry_for = retry_for
        self._batch_size = batch_size
        self._interval = interval
        #: Told of each batch once its transaction committed (see ``on_result``).
        self._on_stored = on_stored
        self._pending: list[SampleResult] = []
        self._timer: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        #: Set when the store gave up: the run must stop (see :meth:`failed`).
        self._failure: StoreError | None = None
        self._failed = asyncio.Event()
        #: The keys of samples stored as errors in place of the ones the database refused.
        self.replaced: set[tuple[str, str | None, int]] = set()

    async def put(self, result: SampleResult) -> None:
        """Buffer the result; write the buffer when it is full, or soon."""
        self._raise_failure()
        self._pending.append(result)
        if len(self._pending) >= self._batch_size:
            await self.flush()
        elif self._timer is None:
            self._timer = asyncio.create_task(self._flush_later())

    async def flush(self) -> None:
        """Write everything buffered; raise when the store stays unavailable."""
        async with self._lock:
            self._raise_failure()
            batch, self._pending = self._pending, []
            if not batch:
                return
            try:
                await self._write(batch)
            except StoreError as error:
                # Kept, so nothing is silently lost; a resume re-runs what never landed.
                self._pending[:0] = batch
                self._fail(error)
                raise

    async def close(self) -> None:
        """Stop the timer and write what is left (unless the store already gave up).

        A failure is kept, not raised: the supervisor learns it from :meth:`failed` or
        :meth:`check`. Raised, it could end a shielded task nobody awaits any more (the run
        cancelled meanwhile) and be printed as an exception never retrieved.
        """
        timer, self._timer = self._timer, None
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        with contextlib.suppress(StoreError):
            await self.flush()

    def check(self) -> None:
        """Raise the store's failure, if it gave up (after :meth:`close`: the last write)."""
        self._raise_failure()

    async def failed(self) -> StoreError:
        """Wait until the store gives up, and return why (for a supervisor)."""
        await self._failed.wait()
        assert self._failure is not None
        return self._failure

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _fail(self, error: StoreError) -> None:
        if self._failure is None:
            self._failure = error
            self._failed.set()

    async def _flush_later(self) -> None:
        await asyncio.sleep(self._interval)
        self._timer = None
        # A failure is kept and raised to the run by put(), close() and failed(): never an
        # exception left unretrieved in a timer task.
        try:
            await self.flush()
        except StoreError:
            pass
        except Exception as error:  # a bug, not the store: still the run's to report
            self._fail(StoreError(f"writing samples failed: {type(error).__name__}: {error}"))

    async def _write(self, batch: Sequence[SampleResult], *, single: bool = False) -> None:
        attempts = 0
        committed = False

        def save() -> None:
            nonlocal attempts, committed
            attempts += 1
            # After a failed attempt (or one at a time), a sample may already be stored: a
            # commit whose acknowledgement was lost. Skipping stored keys keeps "exactly once".
            self._store.save_samples(
                self._run_id, batch, token=self._token, skip_stored=single or attempts > 1
            )
            committed = True

        try:
            await with_store_retries(
                save,
                retry_for=self._retry_for,
                note=self._note,
                what=f"write {len(batch)} sample(s)",
            )
        except asyncio.CancelledError:
            if committed:  # stopped while the write ended: stored all the same
                await self._stored(batch)
            raise
        except (LeaseError, ReadOnlyRunError, StoreUnavailableError):
            raise
        except StoreError as refused:  # not an outage: the database refused the content
            await self._write_each(batch, refused, single=single)
            return
        await self._stored(batch)

    async def _stored(self, batch: Sequence[SampleResult]) -> None:
        if self._on_stored is not None:
            await self._on_stored(batch)

    async def _write_each(
        self, batch: Sequence[SampleResult], refused: StoreError, *, single: bool
    ) -> None:
        if len(batch) > 1:
            for sample in batch:
                await self._write([sample], single=True)
            return
        sample = batch[0]
        if sample.key in self.replaced:
            raise refused  # even the bare error record was refused: not the sample's fault
        replacement = with_store_refusal(sample, str(refused))
        self.replaced.add(sample.key)
        self._note(
            f"sample {sample.case_id} #{sample.sample} stored as an error: "
            "the store refused a value in it"
        )
        await self._write([replacement], single=True)
