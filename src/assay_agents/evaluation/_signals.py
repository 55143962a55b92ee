"""SIGTERM and SIGHUP handled like Ctrl-C: the running evaluation is cancelled, then stops.

Installed only around an evaluation on Assay's own event loop (:func:`assay.run`, the CLI)
in the main thread, and removed after it, so the process's handlers are as they were. In a
host application's loop (``await assay.run_async(...)``) signals stay the host's: its handler
is never replaced, and the host cancels the run the way it cancels any task.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from assay_agents.evaluation.loop import owns

_HANDLED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@dataclass
class Termination:
    """Which signal, if any, asked the evaluation to stop."""

    received: signal.Signals | None = field(default=None)


@contextlib.contextmanager
def terminations(task: asyncio.Task[object] | None) -> Iterator[Termination]:
    """While inside, SIGTERM and SIGHUP cancel ``task`` and are recorded."""
    seen = Termination()
    loop = asyncio.get_running_loop()
    if task is None or threading.current_thread() is not threading.main_thread() or not owns(loop):
        yield seen
        return
    previous = {number: signal.getsignal(number) for number in _HANDLED}

    def stop(number: signal.Signals) -> None:
        if seen.received is None:
            seen.received = number
            task.cancel()

    installed = []
    for number in _HANDLED:
        try:
            loop.add_signal_handler(number, stop, signal.Signals(number))
            installed.append(number)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # a loop without signal support: the lease still covers a killed owner
    try:
        yield seen
    finally:
        for number in installed:
            loop.remove_signal_handler(number)
            handler = previous[number]
            if handler is not None:
                signal.signal(number, handler)
