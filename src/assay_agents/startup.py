"""Ctrl-C while the ``assay-agents`` script starts: one line and exit 130, never a traceback.

The package imports this module before anything else, so the handler is in place from the
first line of Assay the script runs (before that, the interpreter's own start-up is Python's
to handle). Only in the script: a program that imports Assay keeps its own handling. The
command line hands Ctrl-C back to Python (``KeyboardInterrupt``) while it runs a command,
whose own handling keeps a run resumable, and takes it again once the command has ended.

``assay-agents run`` also loads its own modules with the garbage collector off, and sets them aside
before the suite's code runs (:func:`set_aside`); every command sets the whole heap aside as
the process exits (:func:`set_aside_at_exit`).
"""

from __future__ import annotations

import _io
import atexit
import contextlib
import gc
import os
import sys
from types import FrameType
from typing import Any

from assay_agents.exit_codes import ExitCode


def exit_interrupted(number: int, frame: FrameType | None) -> None:
    """End the process at once: no command is running that a Ctrl-C must clean up."""
    for stream in (sys.stdout, sys.stderr):
        # What a finished command printed still goes out; a closed or busy stream is skipped.
        with contextlib.suppress(OSError, ValueError, RuntimeError, AttributeError):
            stream.flush()
    os.write(2, b"interrupted\n")
    os._exit(ExitCode.INTERRUPTED)


def is_the_script() -> bool:
    """Whether this process is the ``assay-agents`` command line."""
    name = sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] if sys.argv else ""
    return name.removesuffix(".exe") == "assay-agents"


#: Collections of the middle generation between two full ones in ``assay-agents run`` (Python's
#: default: 10; a higher one set for the process stands). A run's samples, stored and read
#: back, survive the young collections by the thousand while Assay makes almost no cyclic
#: garbage; at the default, each thousand samples cost a walk of every object the suite's
#: libraries loaded, and free nothing. Not much further: cycles an agent leaves behind that
#: outlived the young collections (a retry loop's last exception and its frame) wait for a
#: full one. Measured with such an agent keeping a 512 KB body per sample, 4,000 samples
#: peaked at 190 MB at 10, 180 MB at 25 and 305 MB at 100.
FULL_COLLECTION_EVERY = 25

#: Whether ``assay-agents run`` started with the garbage collector off (see :func:`set_aside`).
_collection_held = False
#: Whether :func:`set_aside` froze the heap (asking the collector costs a walk of all of it).
_set_aside = False


def anything_frozen() -> bool:
    """Whether any object is frozen (:func:`gc.freeze`) in this process.

    After :func:`set_aside` it is known without asking the collector, which counts the frozen
    objects by walking them all.
    """
    return _set_aside or gc.get_freeze_count() > 0


def set_aside() -> None:
    """``assay-agents run`` has loaded its own modules: set them aside, and collect again from here.

    What the script loads before the suite's code (Assay's modules and the libraries a run
    uses) lives until the process exits. Walked by the collector while samples run, and torn
    down object by object at exit, it costs a run hundreds of milliseconds of CPU and frees
    nothing; frozen (:func:`gc.freeze`), it is left out. From here a full collection comes
    after :data:`FULL_COLLECTION_EVERY` collections of the middle generation. Only in the
    script's own process: a program that imports Assay keeps its collector as it is.
    """
    global _collection_held, _set_aside
    if _collection_held:
        _collection_held = False
        gc.freeze()
        _set_aside = True
        young, middle, full = gc.get_threshold()
        gc.set_threshold(young, middle, max(full, FULL_COLLECTION_EVERY))
        gc.enable()


def set_aside_at_exit() -> None:
    """The command has ended: flush what its code left open, and spare the exit its collections.

    The interpreter's exit collects the whole heap more than once (about 0.2 s after a run of
    1,000 samples with ``openai`` loaded), to free memory the process is about to give back.
    Frozen, the heap is left out; objects are still released one by one as the modules are
    cleared, so a file a suite opened and left in a global is flushed and closed as before.
    Only a file held in a reference cycle would have waited for those collections: every open
    file among the objects still tracked is flushed here first. Registered when the script
    starts, so it runs after the exit handlers registered later (the suite's own among them).
    """
    _flush_open_files(gc.get_objects())
    gc.freeze()


def _flush_open_files(objects: list[object]) -> None:
    for file in _files_among(objects):
        # A closed or broken file, or a reader, is skipped as the interpreter's own exit would.
        with contextlib.suppress(Exception):
            if not file.closed and file.writable():
                file.flush()


def _files_among(objects: list[object]) -> list[Any]:
    """The files among ``objects``: instances of the C base of every built-in file class.

    Asked of each object's type, once per type: ``isinstance`` would also read ``__class__``
    of every object that is not a file, which runs the code of some libraries' proxies.
    """
    is_file: dict[type, bool] = {}
    files = []
    for value in objects:
        kind = type(value)
        answer = is_file.get(kind)
        if answer is None:
            answer = is_file[kind] = issubclass(kind, _io._IOBase)
        if answer:
            files.append(value)
    return files


def _guard() -> None:
    import signal

    global _collection_held
    if not is_the_script():
        return
    atexit.register(set_aside_at_exit)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, exit_interrupted)
    if sys.argv[1:2] == ["run"] and gc.isenabled():
        gc.disable()
        _collection_held = True


_guard()
