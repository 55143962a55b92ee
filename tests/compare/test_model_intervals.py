"""Model intervals: whole cases resampled, pairs paired, checked against scipy."""

import math
import subprocess
import sys
from statistics import NormalDist

import numpy as np
import pytest
from compare_builders import run, sample
from scipy import stats

from assay_agents.compare import ModelComparison, compare_models
from assay_agents.record import read, write
from assay_agents.report import prose
from assay_agents.results import SampleResult, SampleStatus

# Monte-Carlo error of a 95% percentile bound from 5,000 resamples of ~200 cases is well
# under a point; two independent streams may differ by about twice that.
MONTE_CARLO = 0.02


def outcomes(rates, cases, seed=7):
    rng = np.random.default_rng(seed)
    return {model: (rng.random(cases) < rate).astype(float) for model, rate in rates.items()}


def samples_of(values):
    return [
        SampleResult(f"c{i}", model, 0, SampleStatus.PASSED if value else SampleStatus.FAILED)
        for i in range(len(next(iter(values.values()))))
        for model, column in values.items()
        for value in [column[i]]
    ]


def scipy_interval(*data, statistic, paired=False):
    result = stats.bootstrap(
        data,
        statistic,
        paired=paired,
        vectorized=True,
        n_resamples=5000,
        method="percentile",
        confidence_level=0.95,
        random_state=np.random.default_rng(123),
    )
    return result.confidence_interval.low, result.confidence_interval.high


def test_per_model_and_paired_intervals_agree_with_scipy_within_monte_carlo_error():
    values = outcomes({"a": 0.75, "b": 0.6}, cases=200)
    comparison = compare_models(samples_of(values))
    by_model = {m.model: m for m in comparison.models}
    for model, column in values.items():
        low, high = scipy_interval(column, statistic=lambda x, axis: x.mean(axis=axis))
        assert by_model[model].pass_rate == pytest.approx(column.mean())
        assert by_model[model].interval == pytest.approx((low, high), abs=MONTE_CARLO)
    (pair,) = comparison.pairs
    first, second = pair.models
    low, high = scipy_interval(
        values[first],
        values[second],
        paired=True,
        statistic=lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
    )
    assert pair.difference == pytest.approx(values[first].mean() - values[second].mean())
    assert pair.interval == pytest.approx((low, high), abs=MONTE_CARLO)
    # The paired interval is narrower than one built from two independent resamplings.
    unpaired = scipy_interval(
        values[first],
        values[second],
        statistic=lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis),
    )
    assert pair.interval[1] - pair.interval[0] < unpaired[1] - unpaired[0] + MONTE_CARLO


def test_seeded_same_results_same_intervals():
    data = samples_of(outcomes({"a": 0.7, "b": 0.65, "c": 0.5}, cases=60))
    assert compare_models(data) == compare_models(list(data))

    def intervals(comparison):
        return [m.interval for m in comparison.models] + [p.interval for p in comparison.pairs]

    assert intervals(compare_models(data, seed=1)) != intervals(compare_models(data))
    custom = compare_models(data, resamples=200, confidence=0.8)
    assert (custom.resamples, custom.confidence) == (200, 0.8)
    wide, narrow = compare_models(data).models[0], custom.models[0]
    assert narrow.interval[1] - narrow.interval[0] < wide.interval[1] - wide.interval[0]


def test_the_case_is_the_unit_a_case_with_samples_contributes_its_mean():
    # Case 0 passes 3 of 4 samples, case 1 passes 1 of 4: two cases, not eight samples.
    data = [
        sample(f"c{case}", model="m", index=i, error=None if passed else "x")
        for case, passes in enumerate([[1, 1, 1, 0], [1, 0, 0, 0]])
        for i, passed in enumerate(passes)
    ]
    data = [
        s if s.error else SampleResult(s.case_id, "m", s.sample, SampleStatus.PASSED) for s in data
    ]
    data += [SampleResult(f"c{case}", "n", 0, SampleStatus.PASSED) for case in range(2)]
    comparison = compare_models(data)
    m = next(item for item in comparison.models if item.model == "m")
    assert (m.cases, m.pass_rate) == (2, 0.5)
    # Resampling two cases can only give means of {0.75, 0.25}: 0.25, 0.5 or 0.75.
    assert m.interval == (0.25, 0.75)


def test_fewer_than_two_shared_cases_have_no_interval():
    data = [
        SampleResult("c0", "a", 0, SampleStatus.PASSED),
        SampleResult("c1", "a", 0, SampleStatus.FAILED),
        SampleResult("c1", "b", 0, SampleStatus.PASSED),
        SampleResult("c2", "b", 0, SampleStatus.PASSED),
    ]
    comparison = compare_models(data)
    (pair,) = comparison.pairs
    assert (pair.cases, pair.difference, pair.interval, pair.decisive) == (1, None, None, False)
    assert prose.conclusion(comparison) == (
        "The models share too few cases to compare (fewer than two in common)."
    )


def test_at_zero_or_one_hundred_percent_the_interval_is_a_point():
    data = [
        SampleResult(f"c{i}", model, 0, status)
        for i in range(5)
        for model, status in (("good", SampleStatus.PASSED), ("bad", SampleStatus.FAILED))
    ]
    comparison = compare_models(data)
    assert {m.model: m.interval for m in comparison.models} == {
        "good": (1.0, 1.0),
        "bad": (0.0, 0.0),
    }
    (pair,) = comparison.pairs
    assert pair.models == ("good", "bad") and pair.interval == (1.0, 1.0) and pair.decisive
    assert prose.conclusion(comparison).startswith(
        "Decisive: good passes more cases than bad by +100 points"
    )


def test_a_pair_that_is_not_decisive_says_what_it_could_detect():
    values = outcomes({"a": 0.62, "b": 0.58}, cases=40, seed=3)
    comparison = compare_models(samples_of(values))
    (pair,) = comparison.pairs
    assert not pair.decisive and pair.interval[0] < 0 < pair.interval[1]
    diffs = values[pair.models[0]] - values[pair.models[1]]
    z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)
    spread = diffs.std(ddof=1)
    assert pair.detectable == pytest.approx(z * spread / math.sqrt(40))
    assert pair.cases_needed == math.ceil((z * spread / abs(diffs.mean())) ** 2)
    assert pair.cases_needed > 40
    assert prose.conclusion(comparison).startswith("No pair is decisive")
    assert comparison.decisive == ()


def test_decisive_pairs_are_named_and_the_better_model_comes_first():
    values = outcomes({"weak": 0.3, "strong": 0.9, "middling": 0.85}, cases=150, seed=5)
    comparison = compare_models(
        run("r", *samples_of(values), models=["weak", "strong", "middling"])
    )
    assert [m.model for m in comparison.models] == ["weak", "strong", "middling"]
    named = {pair.models: pair.decisive for pair in comparison.pairs}
    assert named[("strong", "weak")] and named[("middling", "weak")]
    assert all(pair.difference >= 0 for pair in comparison.pairs)
    assert "strong passes more cases than weak" in prose.conclusion(comparison)
    assert "middling passes more cases than weak" in prose.conclusion(comparison)


def test_round_trip():
    comparison = compare_models(samples_of(outcomes({"a": 0.6, "b": 0.5}, cases=30)))
    assert read(ModelComparison, write(comparison), "models") == comparison


@pytest.mark.process  # what a fresh interpreter imports
def test_importing_the_comparison_does_not_load_numpy():
    code = "import sys, assay_agents.compare; print('numpy' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "False"
