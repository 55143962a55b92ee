"""Assay: evaluate LLM agents with evidence.

Write the tasks your agent must handle and what must be true afterwards; Assay runs the agent,
checks every deterministic fact without a model, keeps every run as history, and tells you what
passed, what regressed and why.

>>> import assay_agents as assay
>>> suite = assay.Suite("Support", agent=lambda text, ctx: "30 days")
>>> _ = suite.case("How long do I have to return an item?", expected="30 days",
...                checks=[assay.checks.exact_match()])
"""

# First of all: from here on, a Ctrl-C while the `assay-agents` script starts is one line, exit 130.
from assay_agents import startup  # noqa: F401

# isort: split
import typing

from assay_agents.errors import (
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
from assay_agents.lazy import lazy_attributes as _lazy_attributes

if typing.TYPE_CHECKING:
    from assay_agents import agents, checks, judges
    from assay_agents.agent import Action, AgentContext, ModelSpec, Observation, Outcome, Usage
    from assay_agents.agent.harness import Harness, harness_agent
    from assay_agents.compare import Comparison, ModelComparison, NoiseFloor
    from assay_agents.evaluation import (
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
    from assay_agents.judging.criteria import Criterion, criterion
    from assay_agents.load import Catalog, ScenarioParser, load_suite
    from assay_agents.report import Report
    from assay_agents.results import MetricResult, Run, RunStatus, SampleResult, SampleStatus
    from assay_agents.results.diagnosis import Fault
    from assay_agents.results.fixes import FixItem
    from assay_agents.results.run import ModelVerdict
    from assay_agents.spec import ApiFixtures, Case, Suite, api
    from assay_agents.spec.gate import Gate
    from assay_agents.spec.parts import Reply
    from assay_agents.store import Store

__version__ = "0.1.0"

# Every part loads on first use, keeping `import assay_agents` light: the command line imports the
# package before it can answer `assay-agents --help`, which needs none of it.
_LAZY = {
    "checks": "assay_agents.checks",
    "Action": "assay_agents.agent",
    "AgentContext": "assay_agents.agent",
    "ModelSpec": "assay_agents.agent",
    "Observation": "assay_agents.agent",
    "Outcome": "assay_agents.agent",
    "Usage": "assay_agents.agent",
    "Harness": "assay_agents.agent.harness",
    "harness_agent": "assay_agents.agent.harness",
    "MetricResult": "assay_agents.results",
    "Run": "assay_agents.results",
    "RunStatus": "assay_agents.results",
    "SampleResult": "assay_agents.results",
    "SampleStatus": "assay_agents.results",
    "Fault": "assay_agents.results.diagnosis",
    "FixItem": "assay_agents.results.fixes",
    "ModelVerdict": "assay_agents.results.run",
    "ApiFixtures": "assay_agents.spec",
    "Case": "assay_agents.spec",
    "Suite": "assay_agents.spec",
    "api": "assay_agents.spec",
    "Gate": "assay_agents.spec.gate",
    "Reply": "assay_agents.spec.parts",
    "Report": "assay_agents.report",
    # Adapters and judges pull in their client code (and pydantic) only when used.
    "agents": "assay_agents.agents",
    "judges": "assay_agents.judges",
    "Criterion": "assay_agents.judging.criteria",
    "criterion": "assay_agents.judging.criteria",
    "Comparison": "assay_agents.compare",
    "ModelComparison": "assay_agents.compare",
    "NoiseFloor": "assay_agents.compare",
    "Store": "assay_agents.store",
    "run": "assay_agents.evaluation",
    "run_async": "assay_agents.evaluation",
    "evaluate": "assay_agents.evaluation",
    "evaluate_async": "assay_agents.evaluation",
    "rescore": "assay_agents.evaluation",
    "rescore_async": "assay_agents.evaluation",
    "grade": "assay_agents.evaluation",
    "grade_async": "assay_agents.evaluation",
    "Evaluation": "assay_agents.evaluation",
    "EvaluationOptions": "assay_agents.evaluation",
    "ExitCode": "assay_agents.evaluation",
    "Executor": "assay_agents.evaluation",
    "LocalExecutor": "assay_agents.evaluation",
    "MemoryRunStore": "assay_agents.evaluation",
    "RunObserver": "assay_agents.evaluation",
    "Verdict": "assay_agents.evaluation",
    # File loaders pull in pydantic (and PyYAML when a YAML file is read).
    "Catalog": "assay_agents.load",
    "ScenarioParser": "assay_agents.load",
    "load_suite": "assay_agents.load",
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
