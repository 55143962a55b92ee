"""A judge's model goes where its name says, and never falls back to another provider."""

import pytest

from assay_agents import judges
from assay_agents.errors import ConfigurationError
from assay_agents.judging.routing import route_judge

ALL = {
    "ANTHROPIC_API_KEY": "a",
    "OPENAI_API_KEY": "o",
    "OPENROUTER_API_KEY": "r",
    "OLLAMA_HOST": "http://127.0.0.1:11434",
}


def where(model, environ):
    found = route_judge(model, environ)
    return None if found is None else (found.provider, found.model)


@pytest.mark.parametrize(
    ("keys", "provider"),
    [
        (ALL, "anthropic"),
        ({k: v for k, v in ALL.items() if k != "ANTHROPIC_API_KEY"}, "openai"),
        ({"OPENROUTER_API_KEY": "r", "OLLAMA_HOST": "h"}, "openrouter"),
        ({"OLLAMA_HOST": "http://127.0.0.1:11434"}, "ollama"),
    ],
)
def test_an_unpinned_judge_takes_the_first_configured_provider(keys, provider):
    assert route_judge(None, keys).provider == provider


def test_an_unpinned_judge_with_nothing_configured_is_no_judge():
    assert route_judge(None, {}) is None
    assert judges.route(environ={}) is None


@pytest.mark.parametrize(
    ("model", "route"),
    [
        ("gpt-5-mini", ("openai", "gpt-5-mini")),
        ("claude-haiku-4-5", ("anthropic", "claude-haiku-4-5")),
        ("llama3.2:3b", ("ollama", "llama3.2:3b")),
        ("openai/my-deployment", ("openai", "my-deployment")),
        ("ollama/llama3.2", ("ollama", "llama3.2")),
        ("openrouter/anthropic/claude-haiku-4.5", ("openrouter", "anthropic/claude-haiku-4.5")),
        ("meta-llama/llama-3.3-70b-instruct", ("openrouter", "meta-llama/llama-3.3-70b-instruct")),
        ("anthropic/claude-haiku-4-5", ("anthropic", "claude-haiku-4-5")),
        ("house-model", ("anthropic", "house-model")),  # a bare custom name: the default route
    ],
)
def test_pins_route_by_their_name_whatever_else_is_configured(model, route):
    assert where(model, ALL) == route


def test_an_unrelated_key_does_not_change_a_native_route():
    only_openai = {"OPENAI_API_KEY": "o"}
    assert where("gpt-5-mini", only_openai) == where("gpt-5-mini", ALL)


@pytest.mark.parametrize(
    ("model", "needed"),
    [
        ("anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("ollama/llama3.2", "OLLAMA_HOST"),
    ],
)
def test_a_missing_route_is_an_error_never_a_fallback(model, needed):
    with pytest.raises(ConfigurationError) as raised:
        route_judge(model, {"OPENROUTER_API_KEY": "r"})
    message = str(raised.value)
    assert needed in message and "OpenRouter" in message and "never falls back" in message


def test_a_routed_judge_calls_its_providers_endpoint():
    environ = {"OPENROUTER_API_KEY": "r", "OPENROUTER_BASE_URL": "http://127.0.0.1:9/v1"}
    judge = judges.route("openrouter/anthropic/claude-haiku-4.5", environ=environ)
    assert (judge.model, judge.base_url, judge.api_key) == (
        "anthropic/claude-haiku-4.5",
        "http://127.0.0.1:9/v1",
        "r",
    )
    ollama = judges.route(environ={"OLLAMA_HOST": "http://127.0.0.1:11434"})
    assert ollama.base_url == "http://127.0.0.1:11434/v1" and ollama.model == "llama3.2"


def test_a_named_judge_whose_route_is_missing_is_refused(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENROUTER_API_KEY", "r")
    with pytest.raises(ConfigurationError, match="routes to Anthropic"):
        judges.named("claude-haiku-4-5")
    monkeypatch.delenv("OPENROUTER_API_KEY")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:11434")
    assert judges.named("auto").base_url == "http://127.0.0.1:11434/v1"
