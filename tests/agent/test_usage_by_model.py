"""Tokens recorded per model: each model priced at its own rate, or the sample left unpriced."""

import pytest

import assay_agents as assay
from assay_agents.agent.usage_by_model import usage_by_model
from assay_agents.cli._warnings import unpriced_line


def _run(usage, model_usage):
    def agent(text, ctx):
        return assay.Outcome(answer="ok", usage=usage, metadata={"model_usage": model_usage})

    suite = assay.Suite("per-model", agent=agent, checks=[assay.checks.contains("ok")])
    suite.case("Hello?")
    return assay.run(suite, db=assay.MemoryRunStore(), progress=False)


def test_each_models_tokens_are_priced_at_that_models_rate():
    each = {
        "gpt-4.1-nano": {"input_tokens": 300, "output_tokens": 10},
        "gpt-4o": {"input_tokens": 1000, "output_tokens": 5},
    }
    (sample,) = _run(assay.Usage(1300, 15), each).samples
    nano, large = (300 * 0.1 + 10 * 0.4) / 1e6, (1000 * 2.5 + 5 * 10) / 1e6
    assert sample.usage.cost_usd == pytest.approx(nano + large)
    assert sample.metadata["cost_rate"]["models"]["gpt-4o"]["input"] == 2.5


@pytest.mark.parametrize(
    "each",
    [
        {"gpt-4o": {"input_tokens": 1000, "output_tokens": 5}},  # counts short of the usage
        {
            "gpt-4o": {"input_tokens": 1000, "output_tokens": 5},
            "house-model-x": {"input_tokens": 300, "output_tokens": 10},  # not in the catalogue
        },
    ],
)
def test_a_sample_that_cannot_be_priced_whole_stays_unpriced(each):
    run = _run(assay.Usage(1300, 15), each)
    (sample,) = run.samples
    assert sample.usage.cost_usd is None and sample.usage.cost_source == "unpriced"
    assert unpriced_line(run) is None  # it named its models: no "no model" warning


@pytest.mark.parametrize(
    "recorded",
    [
        "gpt-4o",
        {},
        {"gpt-4o": {"input_tokens": -1, "output_tokens": 5}},
        {"gpt-4o": {"input_tokens": True, "output_tokens": 5}},
        {"gpt-4o": [1000, 5]},
        {"": {"input_tokens": 1, "output_tokens": 5}},
    ],
)
def test_a_record_that_does_not_read_as_counts_is_none(recorded):
    assert usage_by_model({"model_usage": recorded}) is None
