"""Running suites: the async runner, result sinks, progress, and the public entry points."""

from assay.runner.api import run, run_async
from assay.runner.engine import DEFAULT_CONCURRENCY, Execution, Runner
from assay.runner.progress import BarProgress, Progress, QuietProgress, default_progress
from assay.runner.sink import BatchingSink, MemorySink, ResultSink

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
