"""Progress display: a Rich bar on a terminal; elsewhere only notes, one line each."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Protocol

from assay.results import SampleResult, SampleStatus

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID


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
        from assay._text import one_line

        print(one_line(message), file=sys.stderr, flush=True)

    def stop(self) -> None:
        """Do nothing."""


class BarProgress:
    """A Rich progress bar on standard error with pass/fail/error counts."""

    def __init__(self) -> None:
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

        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(description, total=total, counts="")

    def advance(self, result: SampleResult) -> None:
        """Count the sample and move the bar."""
        self._counts[result.status] += 1
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, counts=self._describe())

    def note(self, message: str) -> None:
        """Show the message in place of the counts until the next sample lands."""
        if self._bar is not None and self._task is not None:
            from rich.markup import escape

            self._bar.update(self._task, counts=f"[yellow]{escape(message)}[/]")

    def stop(self) -> None:
        """Close the bar."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _describe(self) -> str:
        counts = self._counts
        text = f"[green]{counts[SampleStatus.PASSED]} passed[/] [red]{counts[SampleStatus.FAILED]}"
        text += f" failed[/] [yellow]{counts[SampleStatus.ERROR]} errors[/]"
        return text


def default_progress(quiet: bool = False) -> Progress:
    """A bar when standard error is a terminal and not ``quiet``; otherwise silence."""
    if quiet or not sys.stderr.isatty():
        return QuietProgress()
    return BarProgress()
