"""The judge cache over real HTTP and a real database: what it serves, what it never serves."""

from __future__ import annotations

import json

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.evaluation import MemoryRunStore
from assay_agents.evaluation.caching import decode, encode
from assay_agents.judging import JudgeReply
from assay_agents.judging.cache import CallPosition, judge_key
from assay_agents.testing import ScriptedServer, verdict


def answer(text, ctx):
    return "You can return it within thirty days."


def judged_suite(judge, *, agent=answer, cases=1) -> assay.Suite:
    suite = assay.Suite("Cached", agent=agent, judge=judge, checks=[checks.contains("days")])
    for index in range(cases):
        suite.case(
            f"How long do I have to return item {index}?",
            id=f"returns-{index}",
            expected="30 days",
        )
    return suite


def numbered_verdicts():
    """Each request gets a verdict whose reason says which request it was."""
    count = iter(range(1, 1_000))
    return lambda body: verdict(1, f"reply {next(count)}")


def reasons(run):
    return sorted(
        vote.reason
        for sample in run.samples
        for metric in sample.metrics
        for vote in metric.votes or ()
    )


def test_a_second_run_is_answered_from_the_cache_and_costs_nothing(store) -> None:
    with ScriptedServer(numbered_verdicts()) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        first = assay.run(
            judged_suite(judge), db=store, samples=2, votes=2, cache=True, progress=False
        )
        made = len(server.requests)
        second = assay.run(
            judged_suite(judge), db=store, samples=2, votes=2, cache=True, progress=False
        )
        # Two criteria (semantic accuracy, answer relevancy) × samples × votes.
        assert len(server.requests) == made == 2 * 2 * 2
    # Every vote and every sample had a reply of its own: none was served another's.
    assert reasons(first) == sorted(f"reply {n}" for n in range(1, 9))
    assert reasons(second) == reasons(first)
    for sample in second.samples:
        usage = sample.judge_usage
        assert (usage.calls, usage.cached, usage.attempts) == (4, 4, 0)
        assert (usage.input_tokens, usage.cost_usd, usage.source) == (0, 0.0, "cached")
    assert first.samples[0].judge_usage.cached == 0
    assert second.summary.judge_cached == 8 and first.summary.judge_cached == 0
    assert second.summary.judge_calls == 8 and second.summary.judge_attempts == 0
    # Stored as it was recorded, and the run compares with the one graded by the judge itself.
    assert store.get_run(second.id).samples == second.samples
    assert second.settings.judge == first.settings.judge
    assert [(s.kind, s.source, s.entries) for s in store.cache_stats()] == [
        ("judge", "judge-model @ 127.0.0.1", 8)
    ]


def test_without_cache_nothing_is_served_or_kept(store) -> None:
    with ScriptedServer(numbered_verdicts()) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        assay.run(judged_suite(judge), db=store, cache=True, progress=False)
        run = assay.run(judged_suite(judge), db=store, progress=False)
        assert len(server.requests) == 4
    assert run.samples[0].judge_usage.cached == 0
    assert store.cache_stats()[0].entries == 2


def test_another_judge_model_or_answer_is_a_miss(tmp_path) -> None:
    db = assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    with ScriptedServer(numbered_verdicts()) as server:
        one = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        other = judges.openai("other-model", base_url=server.base_url, api_key="test")
        warmer = judges.openai("judge-model", base_url=server.base_url, api_key="t", temperature=1)
        assay.run(judged_suite(one), db=db, cache=True, progress=False)
        assay.run(judged_suite(other), db=db, cache=True, progress=False)
        assay.run(judged_suite(warmer), db=db, cache=True, progress=False)
        changed = judged_suite(one, agent=lambda text, ctx: "Thirty days, no questions asked.")
        assay.run(changed, db=db, cache=True, progress=False)
        assert len(server.requests) == 8
        assay.run(judged_suite(one), db=db, cache=True, progress=False)
        assert len(server.requests) == 8


def test_keys_differ_by_vote_and_sample_and_the_reply_round_trips() -> None:
    judge = judges.function("j", lambda i, p: "{}")
    keys = {
        judge_key(judge, "i", "p", CallPosition(sample, vote))
        for sample in (None, 0, 1)
        for vote in (0, 1)
    }
    assert len(keys) == 6
    reply = JudgeReply("text", 3, 4, 0.5, cached=True)
    kept = encode(reply)
    assert "cached" not in kept and kept["schema_version"] >= 1
    assert decode(json.loads(json.dumps(kept))) == JudgeReply("text", 3, 4, 0.5)
    assert decode({"text": 5}) is None and decode("damaged") is None


def test_the_memory_store_keeps_a_cache_too() -> None:
    calls = []

    def complete(instructions, prompt):
        calls.append(prompt)
        return json.dumps({"score": 1, "reason": "fine"})

    store = MemoryRunStore()
    judge = judges.function("recorder", complete)
    for _ in range(2):
        assay.run(judged_suite(judge), db=store, cache=True, progress=False)
    assert len(calls) == 2
    assert store.cache_clear(kind="judge") == 2 and store.cache_stats() == []


def test_cache_on_a_store_that_keeps_none_is_refused_before_the_run() -> None:
    class NoCache:
        display_url = "elsewhere"

        def create_run(self, run):
            raise AssertionError("a run was created")

    with pytest.raises(assay.ConfigurationError, match="keeps no cached calls"):
        assay.run(
            judged_suite(judges.function("j", lambda i, p: "{}")),
            db=NoCache(),
            cache=True,
            progress=False,
        )


def test_a_judge_on_another_port_of_the_same_host_is_asked_itself(tmp_path) -> None:
    db = assay.Store.open(f"sqlite:///{tmp_path}/assay.db", migrate=True)
    with (
        ScriptedServer(lambda body: verdict(1, "first endpoint")) as one,
        ScriptedServer(lambda body: verdict(0.1, "second endpoint")) as two,
    ):
        assert one.base_url != two.base_url and "127.0.0.1" in two.base_url
        first_judge = judges.openai("gpt-4.1-mini", base_url=one.base_url, api_key="test")
        second_judge = judges.openai("gpt-4.1-mini", base_url=two.base_url, api_key="test")
        first = assay.run(judged_suite(first_judge), db=db, samples=2, cache=True, progress=False)
        second = assay.run(judged_suite(second_judge), db=db, samples=2, cache=True, progress=False)
        # Two criteria × two samples, each endpoint asked for its own judge's grades (a
        # failing grade may ask the judge more).
        assert len(one.requests) == 4 and len(two.requests) >= 4
        rescored = assay.rescore(first.id, db=db, judge=second_judge, cache=True, progress=False)
        assert len(one.requests) == 4
        # The first endpoint's replies are still served to its own judge.
        again = assay.run(judged_suite(first_judge), db=db, samples=2, cache=True, progress=False)
        assert len(one.requests) == 4
    assert set(reasons(first)) == set(reasons(again)) == {"first endpoint"}
    assert set(reasons(second)) == set(reasons(rescored.run)) == {"second endpoint"}
    assert second.summary.judge_cached == 0 and again.summary.judge_cached == 4
    scores = {m.score for s in rescored.run.samples for m in s.metrics if m.votes}
    assert scores == {0.1}


def test_the_key_names_the_whole_endpoint_and_no_secret() -> None:
    def key(base_url, api_key="test", **settings):
        judge = judges.openai("m", base_url=base_url, api_key=api_key, **settings)
        return judge_key(judge, "i", "p", CallPosition(0, 0))

    here = key("http://127.0.0.1:8001/v1")
    elsewhere = {
        key("http://127.0.0.1:8002/v1"),
        key("http://127.0.0.1:8001/v2"),
        key("http://127.0.0.1:8001/proxy/v1"),
        key("https://127.0.0.1:8001/v1"),
        key("http://localhost:8001/v1"),
    }
    assert here not in elsewhere and len(elsewhere) == 5
    # What does not change where the reply comes from does not change the key.
    assert key("http://127.0.0.1:8001/v1/", api_key="other") == here
    assert key("HTTP://user:secret@127.0.0.1:8001/v1?token=secret#x") == here
    assert key("https://example.test:443/v1") == key("https://example.test/v1")


def test_the_key_of_a_litellm_judge_names_its_api_base_and_not_its_key() -> None:
    def key(**extra):
        return judge_key(judges.litellm("openai/m", **extra), "i", "p", CallPosition(0, 0))

    here = key(api_base="http://127.0.0.1:8001/v1", api_key="one")
    assert key(api_base="http://127.0.0.1:8002/v1", api_key="one") != here
    assert key(api_base="http://127.0.0.1:8001/v1", api_key="two") == here
