"""The agent side: what an agent is given, what it returns, and which model it runs on."""

from assay_agents.agent.answered import ANSWERED_MODEL_KEY, MISMATCH_KEY, same_model
from assay_agents.agent.context import Agent, AgentContext, AgentResult
from assay_agents.agent.model import ModelSpec, parse_models
from assay_agents.agent.outcome import (
    Action,
    CostSource,
    Observation,
    Outcome,
    Usage,
    coerce_outcome,
)

__all__ = [
    "ANSWERED_MODEL_KEY",
    "MISMATCH_KEY",
    "Action",
    "Agent",
    "AgentContext",
    "AgentResult",
    "CostSource",
    "ModelSpec",
    "Observation",
    "Outcome",
    "Usage",
    "coerce_outcome",
    "parse_models",
    "same_model",
]
