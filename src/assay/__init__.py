"""Assay: evaluate LLM agents with evidence.

Write the tasks your agent must handle and what must be true afterwards; Assay runs the agent,
checks every deterministic fact without a model, keeps every run as history, and tells you what
passed, what regressed and why.

>>> import assay
>>> suite = assay.Suite("Support", agent=lambda text, ctx: "30 days")
>>> _ = suite.case("How long do I have to return an item?", expected="30 days",
...                checks=[assay.checks.exact_match()])
"""

# First of all: from here on, a Ctrl-C while the `assay` script starts is one line, exit 130.
from assay import startup  # noqa: F401

# isort: split
import typing

from assay.errors import (
    AssayError,
    BaselineError,
    ConfigurationError,
    IncompleteRunError,
    ReadOnlyRunError,
    ReplayError,
    SpecError,
    StoreError,
    StoreUnavailableError,
    Terminated,
)
from assay.lazy import lazy_attributes as _lazy_attributes

if typing.TYPE_CHECKING:
    from assay import agents, checks, judges
    from assay.agent import Action, AgentContext, ModelSpec, Observation, Outcome, Usage
    from assay.agent.harness import Harness, harness_agent
    from assay.compare import Comparison, ModelComparison, NoiseFloor
    from assay.evaluation import (
        Evaluation,
        EvaluationOptions,
        Executor,
        ExitCode,
        LocalExecutor,
        MemoryRunStore,
        RunObserver,
        Verdict,
        evaluate,
        evaluate_async,
        grade,
        grade_async,
        rescore,
        rescore_async,
        run,
        run_async,
    )
    from assay.judging.criteria import Criterion, criterion
    from assay.load import Catalog, ScenarioParser, load_suite
    from assay.report import Report
    from assay.results import MetricResult, Run, RunStatus, SampleResult, SampleStatus
    from assay.results.diagnosis import Fault
    from assay.results.fixes import FixItem
    from assay.results.run import ModelVerdict
    from assay.spec import ApiFixtures, Case, Suite, api
    from assay.spec.gate import Gate
    from assay.spec.parts import Reply
    from assay.store import Store

__version__ = "0.1.0"

# Every part loads on first use, keeping `import assay` light: the command line imports the
# package before it can answer `assay --help`, which needs none of it.
_LAZY = {
    "checks": "assay.checks",
    "Action": "assay.agent",
    "AgentContext": "assay.agent",
    "ModelSpec": "assay.agent",
    "Observation": "assay.agent",
    "Outcome": "assay.agent",
    "Usage": "assay.agent",
    "Harness": "assay.agent.harness",
    "harness_agent": "assay.agent.harness",
    "MetricResult": "assay.results",
    "Run": "assay.results",
    "RunStatus": "assay.results",
    "SampleResult": "assay.results",
    "SampleStatus": "assay.results",
    "Fault": "assay.results.diagnosis",
    "FixItem": "assay.results.fixes",
    "ModelVerdict": "assay.results.run",
    "ApiFixtures": "assay.spec",
    "Case": "assay.spec",
    "Suite": "assay.spec",
    "api": "assay.spec",
    "Gate": "assay.spec.gate",
    "Reply": "assay.spec.parts",
    "Report": "assay.report",
    # Adapters and judges pull in their client code (and pydantic) only when used.
    "agents": "assay.agents",
    "judges": "assay.judges",
    "Criterion": "assay.judging.criteria",
    "criterion": "assay.judging.criteria",
    "Comparison": "assay.compare",
    "ModelComparison": "assay.compare",
    "NoiseFloor": "assay.compare",
    "Store": "assay.store",
    "run": "assay.evaluation",
    "run_async": "assay.evaluation",
    "evaluate": "assay.evaluation",
    "evaluate_async": "assay.evaluation",
    "rescore": "assay.evaluation",
    "rescore_async": "assay.evaluation",
    "grade": "assay.evaluation",
    "grade_async": "assay.evaluation",
    "Evaluation": "assay.evaluation",
    "EvaluationOptions": "assay.evaluation",
    "ExitCode": "assay.evaluation",
    "Executor": "assay.evaluation",
    "LocalExecutor": "assay.evaluation",
    "MemoryRunStore": "assay.evaluation",
    "RunObserver": "assay.evaluation",
    "Verdict": "assay.evaluation",
    # File loaders pull in pydantic (and PyYAML when a YAML file is read).
    "Catalog": "assay.load",
    "ScenarioParser": "assay.load",
    "load_suite": "assay.load",
}

__all__ = [
    "Action",
    "AgentContext",
    "ApiFixtures",
    "AssayError",
    "BaselineError",
    "Case",
    "Catalog",
    "Comparison",
    "ConfigurationError",
    "Criterion",
    "Evaluation",
    "EvaluationOptions",
    "Executor",
    "ExitCode",
    "Fault",
    "FixItem",
    "Gate",
    "Harness",
    "IncompleteRunError",
    "LocalExecutor",
    "MemoryRunStore",
    "MetricResult",
    "ModelComparison",
    "ModelSpec",
    "ModelVerdict",
    "NoiseFloor",
    "Observation",
    "Outcome",
    "ReadOnlyRunError",
    "ReplayError",
    "Reply",
    "Report",
    "Run",
    "RunObserver",
    "RunStatus",
    "SampleResult",
    "SampleStatus",
    "ScenarioParser",
    "SpecError",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "Suite",
    "Terminated",
    "Usage",
    "Verdict",
    "__version__",
    "agents",
    "api",
    "checks",
    "criterion",
    "evaluate",
    "evaluate_async",
    "grade",
    "grade_async",
    "harness_agent",
    "judges",
    "load_suite",
    "rescore",
    "rescore_async",
    "run",
    "run_async",
]


if not typing.TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__ = _lazy_attributes(__name__, _LAZY)
