"""Running the evaluation's event loop from synchronous code, like :func:`asyncio.run`.

One difference: at the end, a task that refuses to be cancelled (an agent that swallows its
cancellation, after its timeout or a Ctrl-C) is abandoned after a grace period instead of
waited for forever, so a run always ends and the process can exit.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import weakref
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds the remaining tasks get to finish once cancelled at the end of a run.
CANCEL_GRACE = 2.0

# The loops run_sync made: on those alone Assay may handle the process's signals.
_OWN_LOOPS: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def owns(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` is Assay's own (from :func:`run_sync`), not a host application's."""
    return loop in _OWN_LOOPS


def run_sync(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on a new event loop; Ctrl-C cancels it, as with :func:`asyncio.run`."""
    loop = asyncio.new_event_loop()
    _OWN_LOOPS.add(loop)
    asyncio.set_event_loop(loop)
    task = loop.create_task(main)
    interrupted = threading.Event()

    def on_interrupt(signum: int, frame: object) -> None:
        if task.done():
            return  # too late: the evaluation ended, and its outcome is what is stored
        if interrupted.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C: stop at once
        interrupted.set()
        loop.call_soon_threadsafe(task.cancel)

    previous = None
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        try:
            return loop.run_until_complete(task)  # finished despite a Ctrl-C: it stands
        except asyncio.CancelledError:
            if interrupted.is_set():
                raise KeyboardInterrupt from None
            raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        _shut_down(loop)


def _shut_down(loop: asyncio.AbstractEventLoop) -> None:
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=CANCEL_GRACE))
        if any(not task.done() for task in pending):
            # Abandoned on purpose: their "destroyed but pending" notices are noise.
            loop.set_exception_handler(lambda _loop, _context: None)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        asyncio.set_event_loop(None)
        loop.close()
