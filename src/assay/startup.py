"""Ctrl-C while the ``assay`` script starts: one line and exit 130, never a traceback.

The package imports this module before anything else, so the handler is in place from the
first line of Assay the script runs (before that, the interpreter's own start-up is Python's
to handle). Only in the script: a program that imports Assay keeps its own handling. The
command line hands Ctrl-C back to Python (``KeyboardInterrupt``) while it runs a command,
whose own handling keeps a run resumable, and takes it again once the command has ended.
"""

from __future__ import annotations

import contextlib
import os
import sys
from types import FrameType

from assay.exit_codes import ExitCode


def exit_interrupted(number: int, frame: FrameType | None) -> None:
    """End the process at once: no command is running that a Ctrl-C must clean up."""
    for stream in (sys.stdout, sys.stderr):
        # What a finished command printed still goes out; a closed or busy stream is skipped.
        with contextlib.suppress(OSError, ValueError, RuntimeError, AttributeError):
            stream.flush()
    os.write(2, b"interrupted\n")
    os._exit(ExitCode.INTERRUPTED)


def is_the_script() -> bool:
    """Whether this process is the ``assay`` command line (or ``assay-agents``, its alias)."""
    name = sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] if sys.argv else ""
    return name.removesuffix(".exe") in ("assay", "assay-agents")


def _guard() -> None:
    import signal

    if is_the_script() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, exit_interrupted)


_guard()
