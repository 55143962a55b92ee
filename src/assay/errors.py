"""The exceptions Assay raises, one shallow tree under :class:`AssayError`.

::

    AssayError
    ├── SpecError            a suite, case or option that means nothing (exit 2)
    ├── ConfigurationError   settings, databases, baselines that cannot be used (exit 2)
    │   └── BaselineError    a missing or incompatible baseline (exit 2)
    ├── StoreError           the history store refused or failed an operation
    │   └── ReadOnlyRunError a completed run cannot change
    └── ReplayError          a request the HTTP replay of a sample refused

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
    """The history store refused or failed an operation."""


class ReadOnlyRunError(StoreError):
    """A completed run was asked to change; completed runs are append-only."""


class ReplayError(AssayError):
    """A request that the HTTP replay of a sample refused (undeclared, mismatched, exhausted).

    The agent sees it raised from its HTTP client (as that client's own connection error type
    as well); whether or not the agent catches it, the sample is recorded as an agent error.
    """
