"""Progress display: a Rich bar on a terminal; piped (CI), plain lines; quiet, only notes."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Protocol

from assay_agents.errors import ConfigurationError
from assay_agents.results import SampleResult, SampleStatus

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as RichProgress
    from rich.progress import ProgressColumn, Task, TaskID
    from rich.text import Text


class Progress(Protocol):
    """Told when the work starts, as each sample lands, and when it ends."""

    def start(self, total: int, description: str) -> None:
        """The run is about to execute ``total`` samples."""
        ...

    def advance(self, result: SampleResult) -> None:
        """One sample landed."""
        ...

    def note(self, message: str) -> None:
        """Something worth showing meanwhile (a judge waiting out a rate limit)."""
        ...

    def stop(self) -> None:
        """The run ended (completed or not)."""
        ...


class QuietProgress:
    """No bar (not a terminal, ``--quiet``, or CI); each note is one line on standard error.

    A CI log then shows every wait a judge sat out, where a bar would have shown it in place.
    """

    def start(self, total: int, description: str) -> None:
        """Do nothing."""

    def advance(self, result: SampleResult) -> None:
        """Do nothing."""

    def note(self, message: str) -> None:
        """Write the note as one line on standard error, control characters escaped."""
        from assay_agents.text import one_line

        print(one_line(message), file=sys.stderr, flush=True)

    def stop(self) -> None:
        """Do nothing."""


#: Seconds between two progress lines when standard error is not a terminal.
PROGRESS_INTERVAL = 10.0
#: Failures written as they land, at most: past a screenful the progress lines count them.
SHOWN_FAILURES = 20
#: Sets the interval of those lines in seconds (a CI log may want them denser or sparser).
INTERVAL_VARIABLE = "ASSAY_PROGRESS_INTERVAL"


class LogProgress:
    """Piped output (a CI log): plain lines on standard error, never a bar redrawn in place.

    A line as the run starts, one for each sample that fails or errors as it lands, a
    progress line every ``interval`` seconds while samples are in flight, and the notes. A
    log that would otherwise stay silent until the end shows the run is alive and what broke.
    """

    def __init__(self, interval: float = PROGRESS_INTERVAL) -> None:
        self._interval = interval
        self._counts = {status: 0 for status in SampleStatus}
        self._total = 0
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None

    def start(self, total: int, description: str) -> None:
        """Say what runs, then write a progress line every interval until :meth:`stop`."""
        from assay_agents.text import one_line

        self._total, self._started = total, time.monotonic()
        with self._lock:  # a display reused for a second run (a control pair) counts afresh
            self._counts = {status: 0 for status in SampleStatus}
        self._stopped.clear()
        _write(f"running {one_line(description)}: {total} sample(s)")
        # A thread, not a task: a line is due even while an agent blocks the event loop.
        self._ticker = threading.Thread(target=self._tick, name="assay-progress", daemon=True)
        self._ticker.start()

    def advance(self, result: SampleResult) -> None:
        """Count the sample; one that failed or errored is written at once (the first 20)."""
        with self._lock:
            self._counts[result.status] += 1
            failures = self._counts[SampleStatus.FAILED] + self._counts[SampleStatus.ERROR]
        if result.status not in (SampleStatus.FAILED, SampleStatus.ERROR):
            return
        if failures <= SHOWN_FAILURES:
            _write(failure_line(result))
        if failures == SHOWN_FAILURES:
            _write(
                "… further failures are not written as they land (the progress lines "
                "count them; the summary lists them)"
            )

    def note(self, message: str) -> None:
        """Write the note as one line, control characters escaped."""
        from assay_agents.text import one_line

        _write(one_line(message))

    def stop(self) -> None:
        """Stop the progress lines (the run's own summary follows on standard output)."""
        self._stopped.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None

    def line(self) -> str:
        """``progress: 40/300 samples · 38 passed · 2 failed · 0 errors · 12 s``."""
        with self._lock:
            counts = dict(self._counts)
        done = sum(counts.values())
        return (
            f"progress: {done}/{self._total} samples · {counts[SampleStatus.PASSED]} passed"
            f" · {counts[SampleStatus.FAILED]} failed · {counts[SampleStatus.ERROR]} errors"
            f" · {time.monotonic() - self._started:.0f} s"
        )

    def _tick(self) -> None:
        while not self._stopped.wait(self._interval):
            _write(self.line())


def failure_line(result: SampleResult) -> str:
    """``failed q3 · gpt-4.1 #0: exact_match: expected 'a', got 'b'``, on one line."""
    from assay_agents.text import one_line

    where = result.case_id + ("" if result.model is None else f" · {result.model}")
    if result.error is not None:
        why = f"agent error: {result.error}"
    else:
        why = next(
            (
                f"{metric.name}: {metric.error or metric.reason or 'failed'}"
                for metric in result.metrics
                if not metric.passed
            ),
            "failed",
        )
    return one_line(f"{result.status.value} {where} #{result.sample}: {why}")


def _write(line: str) -> None:
    # Looked up at each write: standard error may have been replaced since the start.
    print(line, file=sys.stderr, flush=True)


def progress_interval() -> float:
    """The interval of piped progress lines: ``ASSAY_PROGRESS_INTERVAL``, else 10 s."""
    raw = os.environ.get(INTERVAL_VARIABLE)
    if raw is None or not raw.strip():
        return PROGRESS_INTERVAL
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ConfigurationError(f"{INTERVAL_VARIABLE}={raw!r} is not a positive number of seconds")
    return value


class BarProgress:
    """A Rich progress bar on standard error with pass/fail/error counts.

    The description (the suite's name) and every note are untrusted text: they are shown
    through :func:`assay_agents.text.one_line`, as plain text, never parsed as Rich markup.
    """

    def __init__(self, console: Console | None = None) -> None:
        self._console = console
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None
        self._counts = {status: 0 for status in SampleStatus}

    def start(self, total: int, description: str) -> None:
        """Open the bar."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        from assay_agents.text import one_line

        self._bar = RichProgress(
            TextColumn("{task.description}", markup=False, style="bold"),
            BarColumn(),
            MofNCompleteColumn(),
            _text_field("counts"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self._console or Console(stderr=True),
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(one_line(description), total=total, counts=_text(""))

    def advance(self, result: SampleResult) -> None:
        """Count the sample and move the bar."""
        self._counts[result.status] += 1
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, counts=self._describe())

    def note(self, message: str) -> None:
        """Show the message in place of the counts until the next sample lands."""
        if self._bar is not None and self._task is not None:
            from assay_agents.text import one_line

            self._bar.update(self._task, counts=_text(one_line(message), "yellow"))

    def stop(self) -> None:
        """Close the bar."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _describe(self) -> Text:
        counts = self._counts
        from rich.text import Text

        return Text.assemble(
            (f"{counts[SampleStatus.PASSED]} passed", "green"),
            " ",
            (f"{counts[SampleStatus.FAILED]} failed", "red"),
            " ",
            (f"{counts[SampleStatus.ERROR]} errors", "yellow"),
        )


def _text(plain: str, style: str = "") -> Text:
    from rich.text import Text

    return Text(plain, style=style)


def _text_field(name: str) -> ProgressColumn:
    """A column showing the task's ``name`` field, a Rich ``Text``: styled, never parsed."""
    from rich.progress import ProgressColumn

    class TextField(ProgressColumn):
        def render(self, task: Task) -> Text:
            value: Text = task.fields[name]
            return value

    return TextField()


def default_progress(quiet: bool = False) -> Progress:
    """A bar when standard error is a terminal, plain lines when it is not; ``quiet``: notes.

    The lines' interval is ``ASSAY_PROGRESS_INTERVAL`` seconds (10 by default).
    """
    if quiet:
        return QuietProgress()
    if not sys.stderr.isatty():
        return LogProgress(progress_interval())
    return BarProgress()
