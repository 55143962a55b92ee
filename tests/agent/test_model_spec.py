import pytest

from assay import ModelSpec, SpecError
from assay.agent import parse_models


@pytest.mark.parametrize(("text", "provider", "model"), [
    ("openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"),
    ("gpt-4.1-mini", "openai", "gpt-4.1-mini"),
    ("o3-mini", "openai", "o3-mini"),
    ("o4", "openai", "o4"),
    ("claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
    ("qwen3:8b", "ollama", "qwen3:8b"),
    ("ollama/qwen3:8b", "ollama", "qwen3:8b"),
    ("meta-llama/llama-3.3-70b-instruct", "openrouter", "meta-llama/llama-3.3-70b-instruct"),
    ("openrouter/anthropic/claude-haiku-4.5", "openrouter", "anthropic/claude-haiku-4.5"),
])
def test_provider_inference(text, provider, model):
    spec = ModelSpec.parse(text)
    assert (spec.provider, spec.model, spec.label) == (provider, model, text)


def test_one_model_named_twice_is_refused():
    with pytest.raises(SpecError, match="same model"):
        parse_models(["gpt-4.1-mini", "openai/gpt-4.1-mini"])
    assert len(parse_models(["gpt-4.1-mini", "ollama/qwen3:8b"])) == 2
