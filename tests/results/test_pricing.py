import pytest

import assay_agents as assay
from assay_agents.report.format import cost_working
from assay_agents.results.pricing import estimate_cost, family_candidates


def test_catalogue_rates_estimate_a_cost_with_its_working():
    estimate = estimate_cost("openai", "gpt-4.1-mini", 1000, 100)
    assert estimate.cost_usd == pytest.approx(0.00056)
    assert estimate.rate() == {"input": 0.4, "output": 1.6, "source": "catalog"}


def test_unknown_models_and_missing_tokens_stay_unpriced():
    assert estimate_cost("openai", "no-such-model-xyz", 1000, 100) is None
    assert estimate_cost("openai", "gpt-4.1-mini", None, None) is None


def test_a_model_the_catalogue_does_not_know_is_priced_at_its_familys_fallback_rate():
    estimate = estimate_cost("openai", "gpt-4.1-mini-2099-11-30", 1000, 100)
    assert estimate.cost_usd == pytest.approx(0.00056)
    assert estimate.rate() == {
        "input": 0.4,
        "output": 1.6,
        "source": "catalog",
        "fallback": "gpt-4.1-mini",
    }
    working = cost_working(1000, 100, estimate.rate())
    assert working.endswith("· catalog rate of gpt-4.1-mini (fallback rate)")


def test_a_family_keeps_its_version():
    assert family_candidates("gpt-4.1-mini-2099-11-30") == ["gpt-4.1-mini", "gpt-4.1"]
    assert family_candidates("claude-haiku-4-5@20991231") == ["claude-haiku-4-5", "claude-haiku-4"]
    assert family_candidates("gpt-9-mini") == ["gpt-9"]
    assert estimate_cost("openai", "gpt-9-mini", 1000, 100) is None


def test_a_run_marks_a_fallback_rate_estimated_and_says_so_in_the_working():
    def agent(text, ctx):
        return assay.Outcome(answer="ok", usage=assay.Usage(input_tokens=1000, output_tokens=100))

    suite = assay.Suite("Priced", agent=agent)
    suite.case("q", checks=[assay.checks.contains("ok")])
    model = "openai/gpt-4.1-mini-2099-11-30"
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, models=[model])
    sample = run.samples[0]
    assert sample.usage.cost_source == "estimated"
    assert sample.usage.cost_usd == pytest.approx(0.00056)
    html = assay.Report(run).render("html")
    assert "gpt-4.1-mini (fallback rate)" in html
