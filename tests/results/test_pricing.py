import pytest

from assay.results.pricing import estimate_cost


def test_catalogue_rates_estimate_a_cost_with_its_working():
    estimate = estimate_cost("openai", "gpt-4.1-mini", 1000, 100)
    assert estimate.cost_usd == pytest.approx(0.00056)
    assert estimate.rate() == {"input": 0.4, "output": 1.6, "source": "catalog"}


def test_unknown_models_and_missing_tokens_stay_unpriced():
    assert estimate_cost("openai", "no-such-model-xyz", 1000, 100) is None
    assert estimate_cost("openai", "gpt-4.1-mini", None, None) is None
