"""Results: metric, sample and run results, and the summaries drawn from them."""

from assay.results.baseline import BaselineChoice, BaselineReason, Pin, RunOutcome
from assay.results.comparison import StoredComparison
from assay.results.diagnosed import Diagnosis, Refinement
from assay.results.judge_usage import JudgeCostSource, JudgeUsage
from assay.results.metric import MetricResult, errored, scored
from assay.results.pacing import Adjustment, RunPacing, SamplePacing
from assay.results.reliability import ItemRate, item_rates
from assay.results.run import CaseSnapshot, Run, RunStatus
from assay.results.sample import SampleResult, SampleStatus, decide_status
from assay.results.settings import RunSettings
from assay.results.summary import (
    CriterionSummary,
    RunSummary,
    Tally,
    nearest_rank,
    summarise,
    with_run_judge_usage,
)
from assay.results.traces import Traces
from assay.results.vote import Vote

__all__ = [
    "Adjustment",
    "BaselineChoice",
    "BaselineReason",
    "CaseSnapshot",
    "CriterionSummary",
    "Diagnosis",
    "ItemRate",
    "JudgeCostSource",
    "JudgeUsage",
    "MetricResult",
    "Pin",
    "Refinement",
    "Run",
    "RunOutcome",
    "RunPacing",
    "RunSettings",
    "RunStatus",
    "RunSummary",
    "SamplePacing",
    "SampleResult",
    "SampleStatus",
    "StoredComparison",
    "Tally",
    "Traces",
    "Vote",
    "decide_status",
    "errored",
    "item_rates",
    "nearest_rank",
    "scored",
    "summarise",
    "with_run_judge_usage",
]
