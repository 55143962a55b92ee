"""Judging prose: criteria, what a judge sees (strings only), verdicts, votes and usage."""

from assay.judging.assess import JudgeUsage, assess
from assay.judging.criteria import BUILTIN, Criterion, criterion, resolve
from assay.judging.input import JudgeInput, judge_input
from assay.judging.judge import (
    FunctionJudge,
    Judge,
    JudgeCompletion,
    JudgeReply,
    ask,
    judge_chain,
    judge_identity,
    report_wait,
)
from assay.judging.verdict import JudgeVerdict, VerdictError, parse_verdict
from assay.judging.votes import majority

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
