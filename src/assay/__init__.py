"""Assay: evaluate LLM agents with evidence.

Write the tasks your agent must handle and what must be true afterwards; Assay runs the agent,
checks every deterministic fact without a model, keeps every run as history, and tells you what
passed, what regressed and why.

>>> import assay
>>> suite = assay.Suite("Support", agent=lambda text, ctx: "30 days")
>>> _ = suite.case("How long do I have to return an item?", expected="30 days",
...                checks=[assay.checks.exact_match()])
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assay import checks
from assay.agent import Action, AgentContext, ModelSpec, Observation, Outcome, Usage
from assay.errors import (
    AssayError,
    BaselineError,
    ConfigurationError,
    ReadOnlyRunError,
    SpecError,
    StoreError,
)
from assay.results import MetricResult, Run, RunStatus, SampleResult, SampleStatus
from assay.spec import Case, Suite

if TYPE_CHECKING:
    from assay.compare import RunComparison
    from assay.report import Report
    from assay.runner import run, run_async
    from assay.store import Store

__version__ = "0.1.0"

# Heavier parts (the store pulls in SQLAlchemy) load on first use, keeping `import assay` light.
_LAZY = {
    "Report": "assay.report",
    "RunComparison": "assay.compare",
    "Store": "assay.store",
    "run": "assay.runner",
    "run_async": "assay.runner",
}

__all__ = [
    "Action",
    "AgentContext",
    "AssayError",
    "BaselineError",
    "Case",
    "ConfigurationError",
    "MetricResult",
    "ModelSpec",
    "Observation",
    "Outcome",
    "ReadOnlyRunError",
    "Report",
    "Run",
    "RunComparison",
    "RunStatus",
    "SampleResult",
    "SampleStatus",
    "SpecError",
    "Store",
    "StoreError",
    "Suite",
    "Usage",
    "__version__",
    "checks",
    "run",
    "run_async",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
