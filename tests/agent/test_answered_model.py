"""The rule for "the same model": a provider's dated or numbered release of the asked name."""

import pytest
import requests

import assay_agents as assay
from assay_agents import checks
from assay_agents.agent import ModelSpec, same_model
from assay_agents.agent.answered import mismatch
from assay_agents.results import SampleStatus


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"),
        ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022"),
        ("gpt-4", "gpt-4-0613"),
        ("gemini-1.5-pro", "gemini-1.5-pro-001"),
        ("qwen3", "qwen3:latest"),
        ("openai/gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"),
        ("gpt-4.1-mini", "openai/gpt-4.1-mini"),
        ("GPT-4.1-mini", "gpt-4.1-mini"),
    ],
)
def test_a_release_of_the_asked_model_is_the_same_model(asked, answered):
    assert same_model(asked, answered)


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("support-v2", "support-v1"),
        ("gpt-4.1", "gpt-4.1-mini"),
        ("gpt-4.1-mini", "gpt-4.1"),
        ("gpt-4", "gpt-4-turbo"),
        ("llama-3", "llama-3-70b"),
        ("model-1", "model-1-2"),
        ("gpt-4.1-mini", ""),
    ],
)
def test_another_model_is_not_the_same_model(asked, answered):
    assert not same_model(asked, answered)


def test_a_mismatch_names_the_asked_label_and_the_answering_model():
    spec = ModelSpec.parse("support-v2")
    assert mismatch(spec, ["support-v2-2025-01-01"]) is None
    assert mismatch(spec, ["support-v1", "support-v3"]) == (
        "asked for support-v2, the response came from support-v1"
    )
    # A helper model besides the asked one: the asked model did answer.
    assert mismatch(spec, ["support-v2", "support-v1"]) is None
    long = "x" * 500
    assert len(mismatch(spec, [long])) < 200


def test_a_deployment_or_a_router_cannot_be_checked():
    assert mismatch(ModelSpec.parse("azure/my-deployment"), ["gpt-4o-2024-08-06"]) is None
    assert mismatch(ModelSpec.parse("openrouter/auto"), ["anthropic/claude-haiku-4-5"]) is None


def replayed_completion(model):
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "refund approved"},
            }
        ],
    }
    sent = {"model": "support-v1", "messages": []}
    return (
        assay.api()
        .expect_request("POST", "https://llm.example/v1/chat/completions", json=sent)
        .respond_with(json=body)
    )


def requests_agent(question, ctx):
    # Ignores ctx.model, like an agent with its model written into its code.
    response = requests.post(
        "https://llm.example/v1/chat/completions",
        timeout=5,
        json={"model": "support-v1", "messages": []},
    )
    return response.json()["choices"][0]["message"]["content"]


def test_a_replayed_response_names_the_model_that_answered(store):
    suite = assay.Suite("Replayed", agent=requests_agent, checks=[checks.contains("refund")])
    suite.case("Refund?", id="v1", api=replayed_completion("support-v1"))
    run = assay.run(suite, db=store, models=["support-v2"], progress=False)
    sample = run.samples[0]
    assert sample.status is SampleStatus.ERROR
    assert sample.error == "asked for support-v2, the response came from support-v1"
    assert sample.metadata["answered_model"] == "support-v1"
    assert sample.metadata["api_replay"]["passed"] is True


def test_without_a_model_asked_nothing_is_checked(store):
    suite = assay.Suite("Replayed", agent=requests_agent, checks=[checks.contains("refund")])
    suite.case("Refund?", id="v1", api=replayed_completion("support-v1"))
    run = assay.run(suite, db=store, progress=False)
    assert run.samples[0].status is SampleStatus.PASSED


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219"),
        ("openai/claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku-20241022"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("claude-sonnet-4-0", "claude-sonnet-4-20250514"),
        ("claude-opus-4-1", "claude-opus-4-1-20250805"),
        ("qwen3:latest", "qwen3"),
        ("gpt-4o-latest", "gpt-4o-2024-08-06"),
    ],
)
def test_an_alias_matches_a_dated_release_of_its_base_name(asked, answered):
    assert same_model(asked, answered)


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("gpt-4o", "gpt-4o-mini"),
        ("gpt-4o-latest", "gpt-4o-mini-2024-07-18"),
        ("claude-3-5-haiku-latest", "claude-3-5-sonnet-20241022"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku-v2"),
        # 4-1 is Opus 4.1, not an alias of Opus 4: only 4-0 means the bare major version.
        ("claude-opus-4-1", "claude-opus-4-20250514"),
        ("claude-sonnet-4-0", "claude-sonnet-4-5-20250929"),
        ("claude-sonnet-4-0", "claude-sonnet-3-20240101"),
        ("model-0", "model-1"),
    ],
)
def test_an_alias_does_not_match_another_model(asked, answered):
    assert not same_model(asked, answered)
