"""The application layer: the use cases every front end adapts, each with a typed result.

:func:`evaluate` plans the run, creates it (with a lease), executes it through the runner,
writes every sample durably, compares it, completes it only once every planned sample is
stored, and returns an :class:`Evaluation` whose :class:`Verdict` carries the exit code a
CLI uses. :func:`run` returns just the completed run. :func:`compare` compares two runs
against the latest noise floor, :func:`control_pair` measures that floor, :func:`history`
lists runs and :func:`lookup` finds one with the baseline it is to be compared with; each
returns a frozen value with a :class:`Verdict`. :func:`rescore` grades a stored run's
outcomes again (its checks, another judge) without calling its agent.
"""

from typing import TYPE_CHECKING

from assay.lazy import lazy_attributes

if TYPE_CHECKING:
    from assay.evaluation.api import (
        evaluate,
        evaluate_async,
        grade,
        grade_async,
        run,
        run_async,
    )
    from assay.evaluation.comparing import RunsCompared, compare
    from assay.evaluation.control import run_control_async
    from assay.evaluation.executor import LocalExecutor
    from assay.evaluation.lifecycle import Evaluation, evaluate_with
    from assay.evaluation.measuring import ControlPair, control_pair, control_pair_async
    from assay.evaluation.memory import MemoryRunStore
    from assay.evaluation.options import EvaluationArgs, EvaluationOptions
    from assay.evaluation.ports import Executor, RunObserver, RunStore, Work
    from assay.evaluation.queries import History, RunLookup, history, lookup
    from assay.evaluation.rescoring import rescore, rescore_async, rescore_with
    from assay.evaluation.verdict import ExitCode, Verdict, decide
    from assay.exit_codes import exit_code_for

# Each name loads its module on first use: reading the history (assay history, report,
# compare) needs the queries and none of the engine a run needs.
_HOMES = {
    "evaluate": "assay.evaluation.api",
    "evaluate_async": "assay.evaluation.api",
    "run": "assay.evaluation.api",
    "run_async": "assay.evaluation.api",
    "grade": "assay.evaluation.api",
    "grade_async": "assay.evaluation.api",
    "RunsCompared": "assay.evaluation.comparing",
    "compare": "assay.evaluation.comparing",
    "run_control_async": "assay.evaluation.control",
    "ControlPair": "assay.evaluation.measuring",
    "control_pair": "assay.evaluation.measuring",
    "control_pair_async": "assay.evaluation.measuring",
    "LocalExecutor": "assay.evaluation.executor",
    "Evaluation": "assay.evaluation.lifecycle",
    "evaluate_with": "assay.evaluation.lifecycle",
    "MemoryRunStore": "assay.evaluation.memory",
    "EvaluationArgs": "assay.evaluation.options",
    "EvaluationOptions": "assay.evaluation.options",
    "Executor": "assay.evaluation.ports",
    "RunObserver": "assay.evaluation.ports",
    "RunStore": "assay.evaluation.ports",
    "Work": "assay.evaluation.ports",
    "History": "assay.evaluation.queries",
    "RunLookup": "assay.evaluation.queries",
    "history": "assay.evaluation.queries",
    "lookup": "assay.evaluation.queries",
    "rescore": "assay.evaluation.rescoring",
    "rescore_async": "assay.evaluation.rescoring",
    "rescore_with": "assay.evaluation.rescoring",
    "ExitCode": "assay.exit_codes",
    "Verdict": "assay.evaluation.verdict",
    "decide": "assay.evaluation.verdict",
    "exit_code_for": "assay.exit_codes",
}

__all__ = [
    "ControlPair",
    "Evaluation",
    "EvaluationArgs",
    "EvaluationOptions",
    "Executor",
    "ExitCode",
    "History",
    "LocalExecutor",
    "MemoryRunStore",
    "RunLookup",
    "RunObserver",
    "RunStore",
    "RunsCompared",
    "Verdict",
    "Work",
    "compare",
    "control_pair",
    "control_pair_async",
    "decide",
    "evaluate",
    "evaluate_async",
    "evaluate_with",
    "exit_code_for",
    "grade",
    "grade_async",
    "history",
    "lookup",
    "rescore",
    "rescore_async",
    "rescore_with",
    "run",
    "run_async",
    "run_control_async",
]


if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__ = lazy_attributes(__name__, _HOMES)
