"""Ctrl-C while the ``assay-agents`` script starts: one line and exit 130, never a traceback.

The package imports this module before anything else, so the handler is in place from the
first line of Assay the script runs (before that, the interpreter's own start-up is Python's
to handle). Only in the script: a program that imports Assay keeps its own handling. The
command line hands Ctrl-C back to Python (``KeyboardInterrupt``) while it runs a command,
whose own handling keeps a run resumable, and takes it again once the command has ended.

``assay-agents run`` also loads its own modules with the garbage collector off, and sets them aside
before the suite's code runs (:func:`set_aside`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator
from types import FrameType

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


#: Agent work under way in this process: runs executing their samples, sync agents' threads
#: and agents abandoned at their timeout that still run (see :func:`collector_held`).
_agent_work = 0
#: Phases holding the collector now (it is enabled again when the last one ends).
_holding = 0
_counting = threading.Lock()


def agent_work_started() -> None:
    """Count one piece of agent work under way (ended by :func:`agent_work_ended`)."""
    global _agent_work
    with _counting:
        _agent_work += 1


def agent_work_ended() -> None:
    """Count one piece of agent work as ended."""
    global _agent_work
    with _counting:
        _agent_work -= 1


@contextlib.contextmanager
def agents_at_work() -> Iterator[None]:
    """Around a run's execution of its samples: its agents may run."""
    agent_work_started()
    try:
        yield
    finally:
        agent_work_ended()


@contextlib.contextmanager
def collector_held() -> Iterator[None]:
    """In ``assay-agents run``, no collection while Assay alone reads or compares a run.

    Reading a baseline of 100,000 samples, reading the run back and comparing the two
    allocate millions of objects that live for the phase and form no cycles: each of the
    full collections they set off walks the whole heap (the suite's cases, both runs'
    snapshots), seconds in all, and frees nothing that reference counting does not. Only in
    the script's own process, as :func:`set_aside`, and only for a phase that begins while
    no agent work is counted: not while a run (one an agent started) executes its samples,
    nor while an agent abandoned at its timeout still runs, which may make cyclic garbage
    the whole time. Phases that overlap hold it together; the last to end enables it again.
    """
    global _holding
    with _counting:
        hold = _set_aside and not _agent_work and (_holding > 0 or gc.isenabled())
        if hold:
            _holding += 1
            gc.disable()
    try:
        yield
    finally:
        if hold:
            with _counting:
                _holding -= 1
                if not _holding:
                    gc.enable()


def _guard() -> None:
    import signal

    global _collection_held
    if not is_the_script():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, exit_interrupted)
    if sys.argv[1:2] == ["run"] and gc.isenabled():
        gc.disable()
        _collection_held = True


_guard()
