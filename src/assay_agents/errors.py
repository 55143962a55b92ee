"""The exceptions Assay raises, one shallow tree under :class:`AssayError`.

::

    AssayError
    ├── SpecError            a suite, case or option that means nothing (exit 2)
    ├── ConfigurationError   settings, databases, baselines that cannot be used (exit 2)
    │   └── BaselineError    a missing or incompatible baseline (exit 2)
    ├── StoreError           the history store refused or failed an operation
    │   ├── ReadOnlyRunError a completed run cannot change
    │   ├── LeaseError       a run that another live process holds
    │   └── StoreUnavailableError  the store stayed down past the retry deadline (exit 3)
    ├── ReplayError          a request the HTTP replay of a sample refused
    └── IncompleteRunError   a created run could not be completed; kept resumable (exit 3)

    Terminated (a BaseException, like KeyboardInterrupt): SIGTERM or SIGHUP stopped a run

Per-sample failures (an agent that raised, a check that errored) are stored results, never
raised out of the runner.
"""

from __future__ import annotations


class AssayError(Exception):
    """Root of every error Assay raises on purpose."""


class SpecError(AssayError):
    """An invalid suite, case or option, with where it was found.

    ``location`` names the file or suite, ``case`` the case id and ``field`` the path of the
    offending field, so the message can say exactly what to fix.
    """

    def __init__(
        self,
        message: str,
        *,
        location: str | None = None,
        case: str | None = None,
        field: str | None = None,
    ) -> None:
        self.location = location
        self.case = case
        self.field = field
        self.detail = message
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = [part for part in (self.location, self._case_part(), self.field) if part]
        prefix = ": ".join(where)
        return f"{prefix}: {self.detail}" if prefix else self.detail

    def _case_part(self) -> str | None:
        return f"case {self.case!r}" if self.case is not None else None

    def at(self, location: str) -> SpecError:
        """Return the same error located in ``location`` (a file or suite)."""
        return SpecError(self.detail, location=location, case=self.case, field=self.field)


class ConfigurationError(AssayError):
    """Settings, a database or an option that cannot be used as given."""


class BaselineError(ConfigurationError):
    """An explicit baseline that does not exist or is not comparable."""


class StoreError(AssayError):
    """The history store refused or failed an operation.

    ``transient`` is true when trying again later may succeed (a lost connection, a locked
    or full database); false when the database refused what it was given.
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class LeaseError(StoreError):
    """A run is held by another owner whose lease is still alive, or this owner lost it."""


class StoreUnavailableError(StoreError):
    """The store stayed unavailable past the retry deadline; the run is kept resumable."""


class ReadOnlyRunError(StoreError):
    """A completed run was asked to change; completed runs are append-only."""


class ReplayError(AssayError):
    """A request that the HTTP replay of a sample refused (undeclared, mismatched, exhausted).

    The agent sees it raised from its HTTP client (as that client's own connection error type
    as well); whether or not the agent catches it, the sample is recorded as an agent error.
    """


class IncompleteRunError(AssayError):
    """A run that exists could not be completed (exit 3); it is kept interrupted, resumable.

    ``run_id`` names the run; the original failure is the ``__cause__``.
    """

    def __init__(self, run_id: str, reason: str, *, resumable: bool = True) -> None:
        super().__init__(f"run {run_id} could not be completed: {reason}")
        self.run_id = run_id
        self.reason = reason
        #: False when another process took the run over: resuming it is not this one's job.
        self.resumable = resumable


class Terminated(BaseException):
    """The process was asked to stop by a signal (SIGTERM, SIGHUP) while a run executed.

    Like :class:`KeyboardInterrupt`, it is not an :class:`Exception`: code that catches
    errors must not swallow a request to stop. The run was kept interrupted and resumable.
    """

    def __init__(self, signal_number: int, name: str) -> None:
        super().__init__(f"terminated by {name}")
        self.signal_number = signal_number
        self.name = name

    @property
    def exit_code(self) -> int:
        """The conventional exit code: 128 + the signal's number."""
        return 128 + self.signal_number
