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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

from assay.agent.answered import UNVERIFIED_KEY
from assay.compare._bootstrap import percentile_interval, resample
from assay.errors import ConfigurationError
from assay.results import Run, SampleResult, SampleStatus
from assay.results.reliability import answered_by_another_model

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

    def to_json(self) -> dict[str, Any]:
        """The portable form."""
        return {
            "model": self.model,
            "cases": self.cases,
            "pass_rate": self.pass_rate,
            "interval": None if self.interval is None else list(self.interval),
            "unverified": self.unverified,
        }


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

    def to_json(self) -> dict[str, Any]:
        """The portable form."""
        return {
            "models": list(self.models),
            "cases": self.cases,
            "difference": self.difference,
            "interval": None if self.interval is None else list(self.interval),
            "decisive": self.decisive,
            "detectable": self.detectable,
            "cases_needed": self.cases_needed,
        }


@dataclass(frozen=True, slots=True)
class ModelComparison:
    """Per-model intervals and paired differences; :mod:`assay.report.prose` reads them.

    >>> [pair.decisive for pair in ModelComparison.of(run).pairs]  # doctest: +SKIP
    [False]
    """

    models: tuple[ModelInterval, ...]
    pairs: tuple[PairComparison, ...]
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    confidence: float = DEFAULT_CONFIDENCE
    power: float = DEFAULT_POWER

    @classmethod
    def of(
        cls,
        run: Run | Sequence[SampleResult],
        *,
        seed: int = 0,
        resamples: int = DEFAULT_RESAMPLES,
        confidence: float = DEFAULT_CONFIDENCE,
        power: float = DEFAULT_POWER,
    ) -> ModelComparison:
        """Compare the models of a run (or of samples); the same results give the same intervals."""
        _check(resamples, confidence, power)
        samples = run.samples if isinstance(run, Run) else tuple(run)
        labels = list(run.settings.models) if isinstance(run, Run) else None
        table = case_pass_rates(samples, labels)
        compared = _compare(
            table, seed=seed, resamples=resamples, confidence=confidence, power=power
        )
        return _unverified(compared, samples)

    @property
    def decisive(self) -> tuple[PairComparison, ...]:
        """The pairs whose difference interval excludes zero."""
        return tuple(pair for pair in self.pairs if pair.decisive)

    def to_json(self) -> dict[str, Any]:
        """The portable form stored with the run, so a rebuilt report never resamples."""
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "power": self.power,
            "models": [m.to_json() for m in self.models],
            "pairs": [p.to_json() for p in self.pairs],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelComparison:
        """Rebuild a stored comparison."""
        models = tuple(
            ModelInterval(
                m["model"],
                int(m["cases"]),
                float(m["pass_rate"]),
                _pair(m["interval"]),
                int(m.get("unverified") or 0),
            )
            for m in data["models"]
        )
        pairs = tuple(
            PairComparison(
                (p["models"][0], p["models"][1]),
                int(p["cases"]),
                p["difference"],
                _pair(p["interval"]),
                bool(p["decisive"]),
                p.get("detectable"),
                p.get("cases_needed"),
            )
            for p in data["pairs"]
        )
        # Earlier forms also stored the conclusion; it is read again from the figures.
        return cls(
            models,
            pairs,
            int(data["resamples"]),
            int(data["seed"]),
            float(data["confidence"]),
            float(data["power"]),
        )


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
    return ModelComparison(models, tuple(pairs), resamples, seed, confidence, power)


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


def _pair(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))


def _check(resamples: int, confidence: float, power: float) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigurationError(f"resamples must be a positive whole number, not {resamples!r}")
    for name, value in (("confidence", confidence), ("power", power)):
        if not 0.0 < value < 1.0:
            raise ConfigurationError(f"{name} must be strictly between 0 and 1, not {value!r}")
