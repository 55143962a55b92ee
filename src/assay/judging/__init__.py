"""Judging prose: criteria, what a judge sees (strings only), verdicts, votes and usage."""

from assay.judging.assess import JudgeUsage, assess
from assay.judging.criteria import BUILTIN, Criterion, criterion, resolve
from assay.judging.input import JudgeInput, judge_input
from assay.judging.judge import FunctionJudge, Judge, JudgeReply, ask, report_wait
from assay.judging.verdict import JudgeVerdict, VerdictError, parse_verdict
from assay.judging.votes import majority

__all__ = [
    "BUILTIN",
    "Criterion",
    "FunctionJudge",
    "Judge",
    "JudgeInput",
    "JudgeReply",
    "JudgeUsage",
    "JudgeVerdict",
    "VerdictError",
    "ask",
    "assess",
    "criterion",
    "judge_input",
    "majority",
    "parse_verdict",
    "report_wait",
    "resolve",
]
