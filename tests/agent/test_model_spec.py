import pytest

from assay_agents import ModelSpec, SpecError
from assay_agents.agent import parse_models


@pytest.mark.parametrize(
    ("text", "provider", "model"),
    [
        ("openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"),
        ("gpt-4.1-mini", "openai", "gpt-4.1-mini"),
        ("o3-mini", "openai", "o3-mini"),
        ("o4", "openai", "o4"),
        ("claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("qwen3:8b", "ollama", "qwen3:8b"),
        ("ollama/qwen3:8b", "ollama", "qwen3:8b"),
        ("meta-llama/llama-3.3-70b-instruct", "openrouter", "meta-llama/llama-3.3-70b-instruct"),
        ("openrouter/anthropic/claude-haiku-4.5", "openrouter", "anthropic/claude-haiku-4.5"),
    ],
)
def test_provider_inference(text, provider, model):
    spec = ModelSpec.parse(text)
    assert (spec.provider, spec.model, spec.label) == (provider, model, text)


def test_one_model_named_twice_is_refused():
    with pytest.raises(SpecError, match="same model"):
        parse_models(["gpt-4.1-mini", "openai/gpt-4.1-mini"])
    assert len(parse_models(["gpt-4.1-mini", "ollama/qwen3:8b"])) == 2


def test_a_model_list_in_one_string_drops_blanks_and_collapses_exact_repeats():
    specs = parse_models(" gpt-5-mini , ,gpt-5-mini, qwen3:8b")
    assert [spec.label for spec in specs] == ["gpt-5-mini", "qwen3:8b"]
    assert parse_models(["gpt-5-mini", "gpt-5-mini"]) == parse_models("gpt-5-mini")
    assert parse_models(" , ") == ()
    with pytest.raises(SpecError, match="same model openai/gpt-5-mini"):
        parse_models("gpt-5-mini, openai/gpt-5-mini")


def test_a_model_spec_given_as_label_provider_model_is_taken_as_given():
    spec = ModelSpec.parse("openai/gpt-5-mini", label="fast")
    given = {"label": "fast", "provider": "openai", "model": "gpt-5-mini"}
    assert parse_models([given, "qwen3:8b"])[0] == spec
    with pytest.raises(SpecError, match=r"unknown field 'modle' \(did you mean 'model'\?\)"):
        parse_models([{"label": "x", "provider": "openai", "modle": "gpt-5-mini"}])
    with pytest.raises(SpecError, match="a model's provider must be a non-empty string"):
        parse_models([{"label": "x", "model": "gpt-5-mini"}])
