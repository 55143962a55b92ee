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

from assay_agents.lazy import lazy_attributes

if TYPE_CHECKING:
    from assay_agents.evaluation.api import (
        evaluate,
        evaluate_async,
        grade,
        grade_async,
        run,
        run_async,
    )
    from assay_agents.evaluation.comparing import RunsCompared, compare
    from assay_agents.evaluation.control import run_control_async
    from assay_agents.evaluation.executor import LocalExecutor
    from assay_agents.evaluation.lifecycle import Evaluation, evaluate_with
    from assay_agents.evaluation.measuring import ControlPair, control_pair, control_pair_async
    from assay_agents.evaluation.memory import MemoryRunStore
    from assay_agents.evaluation.options import EvaluationArgs, EvaluationOptions
    from assay_agents.evaluation.ports import (
        AlikeRunStore,
        Executor,
        GradedRunStore,
        NamedBaselineStore,
        RunObserver,
        RunStore,
        Work,
    )
    from assay_agents.evaluation.queries import History, RunLookup, history, lookup
    from assay_agents.evaluation.rescoring import rescore, rescore_async, rescore_with
    from assay_agents.evaluation.verdict import ExitCode, Verdict, decide
    from assay_agents.exit_codes import exit_code_for

# Each name loads its module on first use: reading the history (assay-agents history, report,
# compare) needs the queries and none of the engine a run needs.
_HOMES = {
    "evaluate": "assay_agents.evaluation.api",
    "evaluate_async": "assay_agents.evaluation.api",
    "run": "assay_agents.evaluation.api",
    "run_async": "assay_agents.evaluation.api",
    "grade": "assay_agents.evaluation.api",
    "grade_async": "assay_agents.evaluation.api",
    "RunsCompared": "assay_agents.evaluation.comparing",
    "compare": "assay_agents.evaluation.comparing",
    "run_control_async": "assay_agents.evaluation.control",
    "ControlPair": "assay_agents.evaluation.measuring",
    "control_pair": "assay_agents.evaluation.measuring",
    "control_pair_async": "assay_agents.evaluation.measuring",
    "LocalExecutor": "assay_agents.evaluation.executor",
    "Evaluation": "assay_agents.evaluation.lifecycle",
    "evaluate_with": "assay_agents.evaluation.lifecycle",
    "MemoryRunStore": "assay_agents.evaluation.memory",
    "EvaluationArgs": "assay_agents.evaluation.options",
    "EvaluationOptions": "assay_agents.evaluation.options",
    "Executor": "assay_agents.evaluation.ports",
    "AlikeRunStore": "assay_agents.evaluation.ports",
    "GradedRunStore": "assay_agents.evaluation.ports",
    "NamedBaselineStore": "assay_agents.evaluation.ports",
    "RunObserver": "assay_agents.evaluation.ports",
    "RunStore": "assay_agents.evaluation.ports",
    "Work": "assay_agents.evaluation.ports",
    "History": "assay_agents.evaluation.queries",
    "RunLookup": "assay_agents.evaluation.queries",
    "history": "assay_agents.evaluation.queries",
    "lookup": "assay_agents.evaluation.queries",
    "rescore": "assay_agents.evaluation.rescoring",
    "rescore_async": "assay_agents.evaluation.rescoring",
    "rescore_with": "assay_agents.evaluation.rescoring",
    "ExitCode": "assay_agents.exit_codes",
    "Verdict": "assay_agents.evaluation.verdict",
    "decide": "assay_agents.evaluation.verdict",
    "exit_code_for": "assay_agents.exit_codes",
}

__all__ = [
    "AlikeRunStore",
    "ControlPair",
    "Evaluation",
    "EvaluationArgs",
    "EvaluationOptions",
    "Executor",
    "ExitCode",
    "GradedRunStore",
    "History",
    "LocalExecutor",
    "MemoryRunStore",
    "NamedBaselineStore",
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
