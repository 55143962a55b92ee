"""``on_result``: the caller told of each sample once it is stored, exactly once.

The callback is called from the durable writer, after the transaction that stored the
sample, with the sample as stored (a sample the database refused is stored, and told, as the
error that replaced it). Every executor's results pass there, so it fires in every executor;
a resumed run tells only the samples it stores itself. A callback that raises (or whose
coroutine raises) is reported once on the progress display, and the run goes on: a stored
result never changes. It is called on the run's event loop, between writes: a slow one
delays the next write, so it should hand slow work to a thread.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from assay_agents.results import SampleResult
from assay_agents.text import one_line

#: ``on_result(result)``: sync, or async (awaited on the run's event loop).
ResultCallback = Callable[[SampleResult], Any]


class StoredCallback:
    """Calls ``on_result`` for each stored sample; a failure is reported once, never raised."""

    def __init__(self, on_result: ResultCallback, note: Callable[[str], None]) -> None:
        self._on_result = on_result
        self._note = note
        self._reported = False
        #: How many calls raised (the first is reported).
        self.failures = 0

    async def __call__(self, stored: Sequence[SampleResult]) -> None:
        """Tell the callback of each sample of a batch just stored, in the batch's order."""
        for result in stored:
            try:
                answer = self._on_result(result)
                if inspect.isawaitable(answer):
                    await answer
            except Exception as error:  # the caller's failure is reported, never the run's
                self._report(error)

    def _report(self, error: Exception) -> None:
        self.failures += 1
        if self._reported:
            return  # once: a broken callback must not flood the display
        self._reported = True
        self._note(
            f"on_result failed ({type(error).__name__}: {one_line(str(error))}); "
            "the run goes on and every result stays as stored"
        )
