"""Why a sample fell short: one fault per failing or errored sample (see ``diagnosis``)."""

from __future__ import annotations

from enum import StrEnum


class Fault(StrEnum):
    """Why a sample fell short, in the order faults are assigned."""

    RUN_ERROR = "run_error"
    FORBIDDEN_EFFECT = "forbidden_effect"
    TOOL_ERROR = "tool_error"
    MISSING_CAPABILITY = "missing_capability"
    EXPECTED_TOOL_NOT_CALLED = "expected_tool_not_called"
    UNGROUNDED_ANSWER = "ungrounded_answer"
    FORBIDDEN_CONTENT = "forbidden_content"
    MISSING_CONTENT = "missing_content"
    LOW_QUALITY = "low_quality"
    OVER_BUDGET = "over_budget"
    CHECK_FAILED = "check_failed"
    METRIC_ERROR = "metric_error"


#: Faults in precedence order: a sample gets the first that applies.
FAULT_ORDER: tuple[Fault, ...] = tuple(Fault)
