"""Several votes on one sample: the majority, ties to the lower score, and the spread."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.judging.verdict import JudgeVerdict


@dataclass(frozen=True, slots=True)
class Tally:
    """The verdict that stands, and how far apart the votes were (on the raw scale)."""

    verdict: JudgeVerdict
    spread: float


def majority(verdicts: Sequence[JudgeVerdict]) -> Tally:
    """The most common raw score; a tie goes to the lower score.

    Breaking ties downwards keeps the harness from flattering the agent.
    """
    if not verdicts:
        raise ValueError("no verdicts to count")
    counts = Counter(verdict.raw for verdict in verdicts)
    top = max(counts.values())
    winner = min(raw for raw, count in counts.items() if count == top)
    chosen = next(verdict for verdict in verdicts if verdict.raw == winner)
    raws = [verdict.raw for verdict in verdicts]
    return Tally(chosen, max(raws) - min(raws))
