"""Judging prose: criteria, what a judge sees (strings only), verdicts, votes and usage."""

from assay_agents.judging.assess import JudgeUsage, assess
from assay_agents.judging.criteria import BUILTIN, Criterion, criterion, resolve
from assay_agents.judging.input import JudgeInput, judge_input
from assay_agents.judging.judge import (
    FunctionJudge,
    Judge,
    JudgeCompletion,
    JudgeReply,
    ask,
    judge_chain,
    judge_identity,
    report_wait,
)
from assay_agents.judging.verdict import JudgeVerdict, VerdictError, parse_verdict
from assay_agents.judging.votes import majority

__all__ = [
    "BUILTIN",
    "Criterion",
    "FunctionJudge",
    "Judge",
    "JudgeCompletion",
    "JudgeInput",
    "JudgeReply",
    "JudgeUsage",
    "JudgeVerdict",
    "VerdictError",
    "ask",
    "assess",
    "criterion",
    "judge_chain",
    "judge_identity",
    "judge_input",
    "majority",
    "parse_verdict",
    "report_wait",
    "resolve",
]
