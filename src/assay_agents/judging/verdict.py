"""Reading a judge's reply: strict JSON with a finite score on the scale and a reason."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.judging.criteria import Criterion
from assay_agents.spec.json_data import DuplicateKeyError, unique_pairs

#: The longest reason a verdict may give, in characters. A longer one is refused as an invalid
#: verdict: a reason is one or two sentences, and nothing unbounded is stored twice.
MAX_REASON = 2_000


class VerdictError(ValueError):
    """The reply was not a verdict; the metric records this, never a pass."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A parsed verdict: the raw score on the criterion's scale and the reason."""

    raw: float
    score: float
    reason: str


def parse_verdict(reply: str, criterion: Criterion) -> JudgeVerdict:
    """Parse ``{"score": number, "reason": string}`` and nothing else.

    A key given twice is refused (which one a parser keeps is not the judge's verdict), and
    so is a reason longer than :data:`MAX_REASON` characters.
    """
    value = strict_object(reply, ("score", "reason"))
    score, reason = value["score"], value["reason"]
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise VerdictError(f"score {score!r} is not a finite number")
    if not criterion.accepts(float(score)):
        low, high = criterion.scale
        raise VerdictError(f"score {score!r} is outside {low}–{high}")
    if not isinstance(reason, str) or not reason.strip():
        raise VerdictError("the reason is empty")
    if len(reason.strip()) > MAX_REASON:
        raise VerdictError(
            f"the reason has {len(reason.strip()):,} characters, more than the "
            f"{MAX_REASON:,} allowed"
        )
    return JudgeVerdict(float(score), criterion.normalise(float(score)), reason.strip())


def strict_object(reply: str, keys: Sequence[str]) -> dict[str, object]:
    """Parse a reply that must be one JSON object with exactly ``keys``, each given once."""
    try:
        value = json.loads(reply, object_pairs_hook=unique_pairs)
    except DuplicateKeyError as error:
        raise VerdictError(f"the reply gives {error.key[:40]!r} more than once") from None
    except (TypeError, ValueError, RecursionError):
        raise VerdictError("the reply is not JSON") from None
    if not isinstance(value, dict):
        raise VerdictError("the reply is not a JSON object")
    if set(value) != set(keys):
        named = " and ".join([", ".join(keys[:-1]), keys[-1]]) if len(keys) > 1 else keys[0]
        raise VerdictError(f"the reply must have exactly {named}, not {sorted(value)}")
    return value
