"""One judge call's vote on one criterion: its verdict, or why it gave none."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from assay_agents.errors import SpecError

_LEFT_OUT = {"omit_none": True}


@dataclass(frozen=True, slots=True)
class Vote:
    """One judge call's vote: a verdict, or the reason there is none.

    A verdict has ``score`` (in [0, 1]), ``raw`` (on the criterion's own scale) and
    ``reason``; a vote without one has ``error``, and the judge's ``reply`` when it sent one
    that was no verdict. What a vote does not hold is left out of its stored form.
    """

    score: float | None = field(default=None, metadata=_LEFT_OUT)
    raw: float | None = field(default=None, metadata=_LEFT_OUT)
    reason: str | None = field(default=None, metadata=_LEFT_OUT)
    error: str | None = field(default=None, metadata=_LEFT_OUT)
    reply: str | None = field(default=None, metadata=_LEFT_OUT)

    def __post_init__(self) -> None:
        if self.score is not None and not 0.0 <= self.score <= 1.0:
            raise SpecError(f"must be a number in [0, 1], not {self.score!r}", field="score")
        if self.raw is not None and not math.isfinite(self.raw):
            raise SpecError(f"must be a finite number, not {self.raw!r}", field="raw")

    @property
    def verdict(self) -> float | None:
        """The score on the criterion's own scale (the raw score when kept); ``None`` if failed."""
        if self.score is None:
            return None
        return self.raw if self.raw is not None else self.score


def vote_spread(votes: tuple[Vote, ...] | None) -> float | None:
    """Max − min of the votes that returned a verdict, on the criterion's own scale.

    ``None`` with fewer than two such votes: one verdict has nothing to spread against.
    """
    verdicts = [vote.verdict for vote in votes or () if vote.verdict is not None]
    return max(verdicts) - min(verdicts) if len(verdicts) > 1 else None
