"""The exit codes of Assay's commands, and the one mapping from what stopped a command.

:class:`ExitCode` is re-exported by the application layer (:mod:`assay_agents.evaluation`), whose
verdicts carry one; it lives in this small module, which imports nothing of Assay's, so
that the start-up handler and a command that never runs a suite (``assay-agents --help``,
``assay-agents history``) exit with it without loading that layer.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay_agents.errors import AssayError, Terminated


class ExitCode(IntEnum):
    """What a command exits with; a library user reads the same from a verdict.

    ``INCOMPLETE`` means the evaluation itself could not be completed (the store stayed
    unavailable): the run is kept interrupted and resumable. A signal gives 128 + its
    number; ``CLOSED_PIPE`` is what a shell reports for a process ended by SIGPIPE (a reader
    that stopped early, ``assay-agents history | head``), never 1, which means that the agent
    failed.
    """

    OK = 0
    FAILED = 1
    INVALID = 2
    INCOMPLETE = 3
    HANGUP = 129
    INTERRUPTED = 130
    CLOSED_PIPE = 141
    TERMINATED = 143


def exit_code_for(error: KeyboardInterrupt | Terminated | AssayError | OSError) -> ExitCode:
    """The exit code for what stopped a command.

    Ctrl-C is ``INTERRUPTED`` and SIGTERM or SIGHUP (:class:`~assay_agents.errors.Terminated`)
    128 + the signal's number; a store that stayed unavailable or a run that could not be
    completed is ``INCOMPLETE`` (the run is kept resumable); a closed pipe is
    ``CLOSED_PIPE``; any other error of Assay's (a bad spec, option, configuration,
    baseline or database) and a file that cannot be read or written is ``INVALID``.
    """
    # Imported here: the package's start-up imports this module before anything else.
    from assay_agents.errors import IncompleteRunError, StoreUnavailableError, Terminated

    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    if isinstance(error, Terminated):
        return _signal_code(error.signal_number)
    if isinstance(error, StoreUnavailableError | IncompleteRunError):
        return ExitCode.INCOMPLETE
    if isinstance(error, BrokenPipeError):
        return ExitCode.CLOSED_PIPE
    return ExitCode.INVALID


def _signal_code(number: int) -> ExitCode:
    try:
        return ExitCode(128 + number)
    except ValueError:
        return ExitCode.TERMINATED  # a signal Assay does not handle by name: stopped all the same
