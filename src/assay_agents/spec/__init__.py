"""Suites and cases: what the agent is asked and what must be true afterwards."""

from assay_agents.spec.case import Case, ExpectedAction
from assay_agents.spec.fixtures import ApiFixtures, api
from assay_agents.spec.json_data import JSON, canonical_json, copy_json, digest, portable
from assay_agents.spec.metrics import JUDGE_CRITERIA, CheckDefinition, MetricKind, PlannedMetric
from assay_agents.spec.plan import ACTIONS_METRIC, CasePlan, SuitePlan
from assay_agents.spec.suite import Suite

__all__ = [
    "ACTIONS_METRIC",
    "JSON",
    "JUDGE_CRITERIA",
    "ApiFixtures",
    "Case",
    "CasePlan",
    "CheckDefinition",
    "ExpectedAction",
    "MetricKind",
    "PlannedMetric",
    "Suite",
    "SuitePlan",
    "api",
    "canonical_json",
    "copy_json",
    "digest",
    "portable",
]
