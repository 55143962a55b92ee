"""Is the gap real? Pass-rate intervals per model and per pair of models.

The case is the unit: a model's pass rate is the mean over its cases (a case run several times
contributes the mean over its samples), and each interval is a percentile bootstrap that
resamples whole cases, never samples. A pair is compared on the cases both models ran, each
resample drawing the same cases for both, so its interval is for the difference itself. A pair
is decisive when that interval excludes zero. For a pair that is not, the comparison says how
large a difference these cases could detect, and how many cases the observed one would need.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from statistics import NormalDist
from typing import Any

from assay_agents.agent.answered import UNVERIFIED_KEY
from assay_agents.compare._bootstrap import percentile_interval, resample
from assay_agents.errors import ConfigurationError
from assay_agents.results import Run, SampleResult, SampleStatus
from assay_agents.results.model_comparison import (
    DEFAULT_CONFIDENCE,
    DEFAULT_POWER,
    DEFAULT_RESAMPLES,
    ModelComparison,
    ModelInterval,
    PairComparison,
)
from assay_agents.results.reliability import answered_by_another_model


def compare_models(
    run: Run | Sequence[SampleResult],
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    power: float = DEFAULT_POWER,
) -> ModelComparison:
    """Compare the models of a run (or of samples); the same results give the same intervals.

    >>> [pair.decisive for pair in compare_models(run).pairs]  # doctest: +SKIP
    [False]
    """
    _check(resamples, confidence, power)
    samples = run.samples if isinstance(run, Run) else tuple(run)
    labels = list(run.settings.models) if isinstance(run, Run) else None
    table = case_pass_rates(samples, labels)
    compared = _compare(table, seed=seed, resamples=resamples, confidence=confidence, power=power)
    return _unverified(compared, samples)


def case_pass_rates(
    samples: Sequence[SampleResult], order: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """Model → case → the share of its evaluated samples that passed.

    A case with no evaluated sample on a model has no value for it (it did not run there); a
    sample another model answered is not that model's (:func:`answered_by_another_model`).
    """
    passed: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for sample in samples:
        if (
            sample.model is not None
            and sample.status is not SampleStatus.NOT_EVALUATED
            and not answered_by_another_model(sample)
        ):
            passed[sample.model][sample.case_id].append(sample.status is SampleStatus.PASSED)
    ranked = [m for m in order or () if m in passed] + [m for m in passed if m not in (order or ())]
    return {
        model: {case: sum(flags) / len(flags) for case, flags in passed[model].items()}
        for model in ranked
    }


def _compare(
    table: dict[str, dict[str, float]],
    *,
    seed: int,
    resamples: int,
    confidence: float,
    power: float,
) -> ModelComparison:
    draws = _Draws(table, seed=seed, resamples=resamples)
    models = tuple(
        ModelInterval(
            model, len(rates), _mean(list(rates.values())), draws.model_interval(model, confidence)
        )
        for model, rates in table.items()
    )
    pairs = []
    for first, second, cases in _pairs(table):
        diffs = [table[first][case] - table[second][case] for case in cases]
        interval = None
        if len(cases) >= 2:
            means = draws.difference(first, second, cases, diffs)
            interval = percentile_interval(means, diffs, confidence)
        pairs.append(_pair_comparison((first, second), diffs, interval, confidence, power))
    return ModelComparison(
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        power=power,
        models=models,
        pairs=tuple(pairs),
    )


def _unverified(compared: ModelComparison, samples: Sequence[SampleResult]) -> ModelComparison:
    # A model whose samples no response named is compared all the same, and counted.
    counts = Counter(sample.model for sample in samples if UNVERIFIED_KEY in sample.metadata)
    return replace(
        compared, models=tuple(replace(m, unverified=counts[m.model]) for m in compared.models)
    )


class _Draws:
    """Resampled means, drawn once per case set.

    Models that ran the same cases (the common case: all of them) share one set of draws, and
    a pair on those cases reads its difference off the same resampled means: the same cases
    for both models in every resample, and no second pass over the data.
    """

    def __init__(self, table: dict[str, dict[str, float]], *, seed: int, resamples: int) -> None:
        self.seed, self.resamples = seed, resamples
        by_cases: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for model, rates in table.items():
            if len(rates) >= 2:
                by_cases[tuple(rates)].append(model)
        self.table = table
        self.means = {
            cases: resample(
                [list(table[m].values()) for m in models], resamples=resamples, seed=seed
            )
            for cases, models in by_cases.items()
        }
        self.column = {
            model: (cases, index)
            for cases, models in by_cases.items()
            for index, model in enumerate(models)
        }

    def model_interval(self, model: str, confidence: float) -> tuple[float, float] | None:
        """The interval of one model's pass rate, or ``None`` below two cases."""
        if model not in self.column:
            return None
        cases, index = self.column[model]
        values = list(self.table[model].values())
        return percentile_interval(self.means[cases][:, index], values, confidence)

    def difference(
        self, first: str, second: str, cases: tuple[str, ...], diffs: list[float]
    ) -> Any:
        """Resampled mean differences over ``cases``, the same cases for both models."""
        one, other = self.column.get(first), self.column.get(second)
        if one is not None and other is not None and one[0] == other[0] == cases:
            drawn = self.means[cases]
            return drawn[:, one[1]] - drawn[:, other[1]]
        return resample([diffs], resamples=self.resamples, seed=self.seed)[:, 0]


def _pairs(table: dict[str, dict[str, float]]) -> list[tuple[str, str, tuple[str, ...]]]:
    """Every pair of models, the better one on their shared cases first."""
    models = sorted(table, key=lambda m: -_mean(list(table[m].values())))
    pairs = []
    for i, first in enumerate(models):
        for second in models[i + 1 :]:
            cases = tuple(case for case in table[first] if case in table[second])
            lead = sum(table[first][c] - table[second][c] for c in cases)
            pairs.append((first, second, cases) if lead >= 0 else (second, first, cases))
    return pairs


def _pair_comparison(
    models: tuple[str, str],
    diffs: list[float],
    interval: tuple[float, float] | None,
    confidence: float,
    power: float,
) -> PairComparison:
    if interval is None:
        return PairComparison(models, len(diffs), None, None, False)
    difference = _mean(diffs)
    if interval[0] > 0 or interval[1] < 0:
        return PairComparison(models, len(diffs), difference, interval, True)
    detectable, needed = _power(diffs, difference, confidence, power)
    return PairComparison(models, len(diffs), difference, interval, False, detectable, needed)


def _power(
    diffs: list[float], difference: float, confidence: float, power: float
) -> tuple[float | None, int | None]:
    """Minimum detectable difference, and cases to detect ``difference`` (normal approximation)."""
    spread = _stdev(diffs, difference)
    if spread == 0:
        return None, None  # the models agree case by case: the approximation has nothing to use
    normal = NormalDist()
    z = normal.inv_cdf(1 - (1 - confidence) / 2) + normal.inv_cdf(power)
    detectable = z * spread / math.sqrt(len(diffs))
    # No difference (up to float noise) is one no number of cases can detect.
    needed = None if abs(difference) < 1e-9 else math.ceil((z * spread / abs(difference)) ** 2)
    return detectable, needed


def _stdev(values: list[float], mean: float) -> float:
    # The sample standard deviation, in floats: statistics.stdev is exact and far slower.
    return math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _check(resamples: int, confidence: float, power: float) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigurationError(f"resamples must be a positive whole number, not {resamples!r}")
    for name, value in (("confidence", confidence), ("power", power)):
        if not 0.0 < value < 1.0:
            raise ConfigurationError(f"{name} must be strictly between 0 and 1, not {value!r}")
