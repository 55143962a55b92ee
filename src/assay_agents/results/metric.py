"""The result of one check or judge criterion on one sample."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.errors import SpecError
from assay_agents.results._pickling import FieldState
from assay_agents.results.vote import Vote, vote_spread
from assay_agents.spec import MetricKind


@dataclass(frozen=True, slots=True)
class MetricResult:
    """One metric on one sample: its score against an inclusive threshold, and why.

    A metric that could not be calculated (a check that raised, a judge reply that was not a
    verdict, an expectation about actions that were never instrumented) carries ``error``,
    stores no ``score`` and never passes.
    """

    name: str
    kind: MetricKind
    category: str
    threshold: float
    score: float | None
    passed: bool
    reason: str | None = None
    error: str | None = None
    votes: tuple[Vote, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("name", "category"):
            if not getattr(self, name):
                raise SpecError("must not be empty", field=name)
        for name in ("threshold", "score"):
            value = getattr(self, name)
            # Checks and judge criteria score on [0, 1] (a judge's own scale is its votes').
            if value is not None and not 0.0 <= value <= 1.0:
                raise SpecError(f"must be a number in [0, 1], not {value!r}", field=name)

    # Pickled as dataclasses pickles it, faster (see assay_agents.results._pickling).
    def __getstate__(self) -> list[object]:
        return _STATE.of(self)

    def __setstate__(self, state: Sequence[object]) -> None:
        _STATE.restore(self, state)

    @property
    def vote_spread(self) -> float | None:
        """Max − min of the votes that returned a verdict, on the criterion's own scale.

        ``None`` with fewer than two such votes. It measures the judge, not the agent.
        """
        return vote_spread(self.votes)

    @property
    def effective_score(self) -> float:
        """The score that enters averages: an errored metric contributes zero."""
        return 0.0 if self.error is not None or self.score is None else self.score


def scored(
    name: str,
    kind: MetricKind,
    category: str,
    threshold: float,
    score: float,
    reason: str | None = None,
) -> MetricResult:
    """A calculated metric; it passes when ``score >= threshold`` (inclusive)."""
    return MetricResult(name, kind, category, threshold, score, score >= threshold, reason)


def errored(
    name: str, kind: MetricKind, category: str, threshold: float, error: str
) -> MetricResult:
    """A metric that could not be calculated: no score (averages count it as zero), never passed."""
    return MetricResult(name, kind, category, threshold, None, False, None, error)


_STATE = FieldState(MetricResult)
