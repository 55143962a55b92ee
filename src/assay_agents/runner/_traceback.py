"""An agent exception's traceback, as its author needs it: their own frames, bounded.

Frames from Assay itself, and from the machinery that carries the call (asyncio, threading,
concurrent.futures, contextvars), say nothing about the user's bug and are left out. At most
:data:`~assay_agents.results.tracebacks.TRACEBACK_FRAMES` frames are kept, the innermost ones,
where the error was raised.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import traceback

from assay_agents.results.tracebacks import TRACEBACK_FRAMES

_FOLDERS = tuple(
    os.path.dirname(os.path.abspath(path)) + os.sep
    for path in (
        os.path.dirname(os.path.abspath(__file__)),
        asyncio.__file__,
        concurrent.futures.__file__,
    )
)
_FILES = (os.path.abspath(threading.__file__),)


def user_traceback(error: BaseException) -> str | None:
    """The traceback of ``error`` over the user's frames, or ``None`` when it has none."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not _is_machinery(frame.filename)
    ]
    if not frames:
        return None
    left_out = max(len(frames) - TRACEBACK_FRAMES, 0)
    kept = traceback.StackSummary.from_list(frames[left_out:])
    lines = ["Traceback (most recent call last):\n"]
    if left_out:
        lines.append(f"  ... {left_out} earlier frame(s) left out\n")
    lines += kept.format()
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip("\n")


def _is_machinery(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_FOLDERS) or path in _FILES
