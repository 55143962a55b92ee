"""Telling a run's observers what it does: the progress display first, then the others.

The progress display is the run's own: when it fails, the harness has failed, and the run
stops as interrupted (every sample that landed is written; a resume finishes it). Any
other observer is a guest: what it raises is reported once per event on the display, and
the run goes on as if it had not been there.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_agents.evaluation.ports import RunObserver
from assay_agents.evaluation.verdict import Verdict
from assay_agents.results import Run, SampleResult
from assay_agents.runner.progress import Progress
from assay_agents.runner.sink import ResultSink
from assay_agents.text import one_line


class Observers:
    """One run's progress display and its attached observers, told the same events."""

    def __init__(self, progress: Progress, attached: Sequence[RunObserver] = ()) -> None:
        self.progress = progress
        self.attached = tuple(attached)
        self._reported: set[tuple[int, str]] = set()

    def note(self, message: str) -> None:
        """Something worth showing meanwhile, on the progress display."""
        self.progress.note(message)

    def started(self, run: Run, total: int) -> None:
        """The run is about to execute ``total`` samples."""
        self.progress.start(total, run.suite)
        self._tell("run_started", run, total)

    def landed(self, run: Run, result: SampleResult) -> None:
        """One sample landed."""
        self.progress.advance(result)
        self._tell("sample_finished", run, result)

    def stopped(self) -> None:
        """No more samples will land: the display stops (before the run completes)."""
        self.progress.stop()

    def finished(self, run: Run, verdict: Verdict) -> None:
        """The run is completed."""
        self._tell("run_finished", run, verdict)

    def interrupted(self, run: Run, reason: str) -> None:
        """The run stopped before completing."""
        self._tell("run_interrupted", run, reason)

    def _tell(self, event: str, *arguments: object) -> None:
        for observer in self.attached:
            listener = getattr(observer, event, None)
            if listener is None:
                continue
            try:
                listener(*arguments)
            except Exception as error:  # a guest's failure is reported, never the run's
                self._report(observer, event, error)

    def _report(self, observer: RunObserver, event: str, error: Exception) -> None:
        key = (id(observer), event)
        if key in self._reported:
            return  # once per event: a broken exporter must not flood the display
        self._reported.add(key)
        self.progress.note(
            f"observer {type(observer).__name__} failed in {event} "
            f"({type(error).__name__}: {one_line(str(error))}); the run goes on without it there"
        )


class ObservedSink:
    """A result sink that tells the observers of each result once it is handed on.

    It keeps the key of every result it handed on: what the run stores is what reached
    it, whatever an executor says it did. (The results themselves are the store's.)
    """

    def __init__(self, sink: ResultSink, observers: Observers, run: Run) -> None:
        self._sink = sink
        self._observers = observers
        self._run = run
        self.landed: set[tuple[str, str | None, int]] = set()

    async def put(self, result: SampleResult) -> None:
        """Hand the result on, then tell the observers."""
        await self._sink.put(result)
        self.landed.add(result.key)
        self._observers.landed(self._run, result)

    async def close(self) -> None:
        """Close the sink it wraps."""
        await self._sink.close()


class NotesOnly:
    """The progress display as an executor sees it: it may say things, the run counts."""

    def __init__(self, observers: Observers) -> None:
        self._observers = observers

    def start(self, total: int, description: str) -> None:
        """Counted by the run, not the executor."""

    def advance(self, result: SampleResult) -> None:
        """Counted by the run, as the result reaches its sink."""

    def note(self, message: str) -> None:
        """Shown on the display."""
        self._observers.note(message)

    def stop(self) -> None:
        """Stopped by the run."""
