"""Judge paths beyond the default pair: LiteLLM, committed effects, waits on the progress bar."""

import asyncio
import json

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.agent.adapters.optional import import_litellm
from assay_agents.judging import BUILTIN, JudgeInput, JudgeUsage, assess
from assay_agents.judging.retry import RetryPolicy
from assay_agents.testing import ScriptedServer, failure, reply, verdict


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_the_litellm_judge_over_http_retries_and_stays_strict():
    import_litellm()
    fast = RetryPolicy(attempts=3, base=0.01, ceiling=1.0)
    with ScriptedServer(
        [
            failure(429, retry_after=0.05),
            verdict(0.9, "Same facts."),
            reply('{"score": 1, "reason": "x", "extra": 1}'),
        ]
    ) as server:
        judge = judges.litellm(
            "openai/judge-model", api_base=server.base_url, api_key="test", retry=fast
        )
        data = JudgeInput("q", "Thirty days.", "30 days")
        usage = JudgeUsage()
        good = asyncio.run(assess(judge, BUILTIN["semantic_accuracy"], data, votes=1, usage=usage))
        bad = asyncio.run(assess(judge, BUILTIN["semantic_accuracy"], data, votes=1, usage=usage))
        calls = len(server.requests)
    assert good.score == 0.9 and good.passed and calls == 3
    assert bad.error and "exactly score and reason" in bad.error


def test_operational_claim_integrity_is_handed_committed_effects_as_settled_facts(store):
    seen = []

    def complete(instructions, prompt):
        seen.append((instructions, prompt))
        return json.dumps({"score": 5, "reason": "Describes only what happened."})

    def agent(text, ctx):
        return assay.Outcome(
            answer="I moved your trip to 3 May.", observation={"events": ["trip.rebooking_sent"]}
        )

    suite = assay.Suite("Claims", agent=agent, judge=judges.function("j", complete))
    suite.case(
        "Move my trip to 3 May",
        criteria=["operational_claim_integrity"],
        minimum_scores={"operational_claim_integrity": 0.5},
        metadata={"committed_effects": ["trip.travel_date_set"]},
    )
    run = assay.run(suite, db=store, progress=False)
    metric = run.samples[0].metric("operational_claim_integrity")
    assert metric.score == 1.0 and metric.passed
    instructions, prompt = seen[0]
    assert "settled facts" in instructions
    assert json.loads(prompt.split("\n", 1)[1])["committed_effects"] == ["trip.travel_date_set"]
    assert "trip.rebooking_sent" not in prompt  # the observation never reaches the judge


class Notes:
    def __init__(self):
        self.notes = []

    def start(self, total, description):
        pass

    def advance(self, result):
        pass

    def note(self, message):
        self.notes.append(message)

    def stop(self):
        pass


def test_a_judge_waiting_out_a_rate_limit_says_so_on_the_progress_display(store):
    progress = Notes()
    with ScriptedServer([failure(429, retry_after=0.1), verdict(5, "ok")]) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        suite = assay.Suite(
            "Waits", agent=lambda t, c: "x", judge=judge, checks=[checks.contains("x")]
        )
        suite.case("q", criteria=["tone"], minimum_scores={"tone": 0.5})
        run = assay.run(suite, db=store, progress=progress)
    assert run.samples[0].metric("tone").passed
    assert len(progress.notes) == 1 and "HTTP 429" in progress.notes[0]
