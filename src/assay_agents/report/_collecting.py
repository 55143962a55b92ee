"""Building a report with Python's cycle collector paused.

A report of a large run allocates a hundred thousand objects that all live until the page is
written (the view), and millions that die at once (the page's pieces); none of them forms a
cycle for the collector to free. Left running, it walks every live object (the run, its
samples, the view) several times over while the report is built: about a fifth of the time a
10,000-sample page takes. Paused, it walks them at most once, after the report is done.

Pausing is counted, so reports built on several threads at once resume the collector when
the last one finishes, and only when it was running before the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cycle collector paused; resume it afterwards if it was running."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
