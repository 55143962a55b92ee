"""The application layer: one run's lifecycle, from plan to verdict, in one guarded scope.

:func:`evaluate` plans the run, creates it (with a lease), executes it through the runner,
writes every sample durably, compares it, completes it only once every planned sample is
stored, and returns an :class:`Evaluation` whose :class:`Verdict` carries the exit code a
CLI uses. :func:`run` returns just the completed run.
"""

from assay.evaluation.api import evaluate, evaluate_async, run, run_async
from assay.evaluation.control import run_control_async
from assay.evaluation.executor import LocalExecutor
from assay.evaluation.lifecycle import Evaluation, evaluate_with
from assay.evaluation.memory import MemoryRunStore
from assay.evaluation.options import EvaluationArgs, EvaluationOptions
from assay.evaluation.ports import Executor, RunObserver, RunStore, Work
from assay.evaluation.verdict import ExitCode, Verdict, decide
from assay.exit_codes import exit_code_for

__all__ = [
    "Evaluation",
    "EvaluationArgs",
    "EvaluationOptions",
    "Executor",
    "ExitCode",
    "LocalExecutor",
    "MemoryRunStore",
    "RunObserver",
    "RunStore",
    "Verdict",
    "Work",
    "decide",
    "evaluate",
    "evaluate_async",
    "evaluate_with",
    "exit_code_for",
    "run",
    "run_async",
    "run_control_async",
]
