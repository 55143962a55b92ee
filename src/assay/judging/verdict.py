"""Reading a judge's reply: strict JSON with a finite score on the scale and a reason."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from assay.judging.criteria import Criterion


class VerdictError(ValueError):
    """The reply was not a verdict; the metric records this, never a pass."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A parsed verdict: the raw score on the criterion's scale and the reason."""

    raw: float
    score: float
    reason: str


def parse_verdict(reply: str, criterion: Criterion) -> JudgeVerdict:
    """Parse ``{"score": number, "reason": string}`` and nothing else."""
    try:
        value = json.loads(reply)
    except (TypeError, ValueError):
        raise VerdictError("the reply is not JSON") from None
    if not isinstance(value, dict):
        raise VerdictError("the reply is not a JSON object")
    if set(value) != {"score", "reason"}:
        raise VerdictError(f"the reply must have exactly score and reason, not {sorted(value)}")
    score, reason = value["score"], value["reason"]
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise VerdictError(f"score {score!r} is not a finite number")
    if not criterion.accepts(float(score)):
        low, high = criterion.scale
        raise VerdictError(f"score {score!r} is outside {low}–{high}")
    if not isinstance(reason, str) or not reason.strip():
        raise VerdictError("the reason is empty")
    return JudgeVerdict(float(score), criterion.normalise(float(score)), reason.strip())
