"""Running suites: the async runner, result sinks, progress, and the public entry points."""

from assay.run.api import run, run_async
from assay.run.progress import BarProgress, Progress, QuietProgress, default_progress
from assay.run.runner import DEFAULT_CONCURRENCY, Execution, Runner
from assay.run.sink import BatchingSink, MemorySink, ResultSink

__all__ = [
    "DEFAULT_CONCURRENCY",
    "BarProgress",
    "BatchingSink",
    "Execution",
    "MemorySink",
    "Progress",
    "QuietProgress",
    "ResultSink",
    "Runner",
    "default_progress",
    "run",
    "run_async",
]
