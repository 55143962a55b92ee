"""Results: metric, sample and run results, and the summaries drawn from them."""

from assay_agents.results.baseline import BaselineChoice, BaselineReason, Pin, RunOutcome
from assay_agents.results.comparison import StoredComparison
from assay_agents.results.diagnosed import Diagnosis, Refinement
from assay_agents.results.judge_usage import JudgeCostSource, JudgeUsage
from assay_agents.results.metric import MetricResult, errored, scored
from assay_agents.results.pacing import Adjustment, RunPacing, SamplePacing
from assay_agents.results.reliability import ItemRate, item_rates
from assay_agents.results.run import CaseSnapshot, Run, RunStatus
from assay_agents.results.sample import GradedSample, SampleResult, SampleStatus, decide_status
from assay_agents.results.settings import RunSettings
from assay_agents.results.summary import (
    CriterionSummary,
    RunSummary,
    Tally,
    nearest_rank,
    summarise,
    with_run_judge_usage,
)
from assay_agents.results.traces import Traces
from assay_agents.results.vote import Vote

__all__ = [
    "Adjustment",
    "BaselineChoice",
    "BaselineReason",
    "CaseSnapshot",
    "CriterionSummary",
    "Diagnosis",
    "GradedSample",
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
