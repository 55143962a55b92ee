"""The built-in chat agent's set-up: done once before the clocks, and its models checked first."""

import ssl

import pytest

import assay_agents as assay
from assay_agents import agents, checks
from assay_agents.testing import ScriptedServer, reply


@pytest.fixture
def certificate_loads(monkeypatch):
    """How many times a certificate store is loaded (the costly part of a new client)."""
    loads = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self, *args, **kwargs):
        loads.append(args or kwargs)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    return loads


def test_the_client_set_up_is_built_once_not_in_each_samples_clock(store, certificate_loads):
    with ScriptedServer(lambda body: reply("ok")) as server:
        agent = agents.openai_chat("gpt-4.1-mini", base_url=server.base_url, api_key="test")
        suite = assay.Suite("set-up once", agent=agent, checks=[checks.contains("ok")])
        suite.case("Hello?")
        run = assay.run(suite, db=store, samples=4, progress=False)
        sent = len(server.requests)
    assert sent == 4 and all(s.status.value == "passed" for s in run.samples)
    assert len(certificate_loads) == 1  # in prepare(), before any sample's clock started


def test_an_agent_serves_a_second_run_on_a_new_event_loop(store):
    with ScriptedServer(lambda body: reply("ok")) as server:
        agent = agents.openai_chat("gpt-4.1-mini", base_url=server.base_url, api_key="test")
        suite = assay.Suite("two runs", agent=agent, checks=[checks.contains("ok")])
        suite.case("Hello?")
        runs = [assay.run(suite, db=store, samples=2, progress=False) for _ in range(2)]
    assert [s.status.value for run in runs for s in run.samples] == ["passed"] * 4


def test_an_agent_with_no_model_to_call_is_refused_before_any_request(store):
    with ScriptedServer(lambda body: reply("ok")) as server:
        agent = agents.openai_chat(base_url=server.base_url, api_key="test")
        suite = assay.Suite("no model", agent=agent, checks=[checks.contains("ok")])
        suite.case("Hello?")
        with pytest.raises(assay.ConfigurationError, match=r"no model to call.*--model"):
            assay.run(suite, db=store, progress=False)
        assert server.requests == []


def test_the_openai_api_is_not_asked_for_another_providers_model(store, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    agent = agents.openai_chat(api_key="test")
    suite = assay.Suite("foreign model", agent=agent, checks=[checks.contains("ok")])
    suite.case("Hello?")
    with pytest.raises(assay.ConfigurationError, match=r"does not serve .anthropic/claude-3-5"):
        assay.run(
            suite, db=store, models=["gpt-4.1-mini", "anthropic/claude-3-5-haiku"], progress=False
        )
    assert store.history(suite="foreign model") == []
