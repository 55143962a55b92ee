"""Is the gap real? Pass-rate intervals per model and per pair of models, as figures.

:func:`assay_agents.compare.compare_models` computes them (a percentile bootstrap over whole
cases); :mod:`assay_agents.report.prose` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_RESAMPLES = 5_000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_POWER = 0.8


@dataclass(frozen=True, slots=True)
class ModelInterval:
    """One model's pass rate over its cases, with its interval (``None`` below two cases).

    ``unverified`` counts the samples no response named a model for: their figures are not
    proof that this model produced them.
    """

    model: str
    cases: int
    pass_rate: float
    interval: tuple[float, float] | None
    unverified: int = 0


@dataclass(frozen=True, slots=True)
class PairComparison:
    """Two models on the cases both ran: ``difference`` is first minus second (never negative).

    ``detectable`` (the minimum detectable difference at this number of cases) and
    ``cases_needed`` (to detect the observed difference at the comparison's power) are given
    for a pair that is not decisive, when the differences vary at all.
    """

    models: tuple[str, str]
    cases: int
    difference: float | None
    interval: tuple[float, float] | None
    decisive: bool
    detectable: float | None = None
    cases_needed: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelComparison:
    """Per-model intervals and paired differences, with how they were drawn.

    >>> [pair.decisive for pair in compare_models(run).pairs]  # doctest: +SKIP
    [False]
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    power: float = DEFAULT_POWER
    models: tuple[ModelInterval, ...]
    pairs: tuple[PairComparison, ...]

    @property
    def decisive(self) -> tuple[PairComparison, ...]:
        """The pairs whose difference interval excludes zero."""
        return tuple(pair for pair in self.pairs if pair.decisive)
