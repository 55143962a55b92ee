"""The command line (``assay``); see :mod:`assay.cli.app`."""

from __future__ import annotations

# Only modules the interpreter has already loaded come before the hook below, so that a
# Ctrl-C while the rest of the command line is imported finds it in place.
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import TracebackType

#: The exit code of a command stopped by Ctrl-C, as a shell reports it.
EXIT_INTERRUPTED = 130


def interrupted() -> None:
    """Say in one line that Ctrl-C stopped the command (no traceback is ever shown for it)."""
    print("interrupted", file=sys.stderr)


def _quiet_interrupt(
    kind: type[BaseException], value: BaseException, traceback: TracebackType | None
) -> None:
    if not issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, traceback)
        return
    import contextlib

    interrupted()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed stream has nothing to say
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


def _is_the_script() -> bool:
    name = sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] if sys.argv else ""
    return name in ("assay", "assay.exe")


# The `assay` script imports this package before the rest of the command line: a Ctrl-C
# while that is being imported ends it like one later (one line, exit 130), never with a
# traceback. Only in that script: a program that imports the command line keeps its own.
if _is_the_script() and sys.excepthook is sys.__excepthook__:
    sys.excepthook = _quiet_interrupt
