"""A judge or chat adapter without its API key is refused before any sample runs."""

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.agent.adapters.chat import OpenAIChatAgent
from assay_agents.errors import ConfigurationError


@pytest.fixture
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_an_openai_judge_without_a_key_names_the_variable(no_keys):
    with pytest.raises(ConfigurationError, match="set OPENAI_API_KEY"):
        judges.openai("gpt-4.1-mini").prepare()


def test_a_key_or_an_endpoint_of_ones_own_is_enough(no_keys, monkeypatch):
    judges.openai("gpt-4.1-mini", api_key="sk-test").prepare()
    judges.openai("llama3", base_url="http://127.0.0.1:11434/v1").prepare()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judges.openai("gpt-4.1-mini").prepare()


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_a_litellm_judge_names_the_providers_variable(no_keys):
    pytest.importorskip("litellm")
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        judges.litellm("anthropic/claude-3-5-haiku-latest").prepare()


def test_an_openai_chat_agent_without_a_key_is_refused(no_keys):
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIChatAgent().prepare()


def test_the_run_stops_before_any_sample(no_keys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    called = []
    suite = assay.Suite(
        "S", agent=lambda text, ctx: called.append(text) or "a", judge=judges.openai("gpt-4.1-mini")
    )
    suite.case("q", checks=[checks.contains("a")])
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        assay.run(suite)
    assert called == []
