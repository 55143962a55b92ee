"""The engine: cases × models × samples under concurrency limits, streamed to a result sink.

Pure of storage and comparison: :mod:`assay_agents.evaluation` owns a run's lifecycle around it.
"""

from assay_agents.runner.engine import DEFAULT_CONCURRENCY, Execution, Runner, WorkItem, work_items
from assay_agents.runner.progress import BarProgress, Progress, QuietProgress, default_progress
from assay_agents.runner.sink import MemorySink, ResultSink

__all__ = [
    "DEFAULT_CONCURRENCY",
    "BarProgress",
    "Execution",
    "MemorySink",
    "Progress",
    "QuietProgress",
    "ResultSink",
    "Runner",
    "WorkItem",
    "default_progress",
    "work_items",
]
