"""Honest accounting around the judge, over real HTTP with the real openai client.

Every attempt counted, one deadline per judge call, Retry-After of any shape, and verdicts
refused when a key is given twice or the reason runs past its cap.
"""

import asyncio
import json
import time

import pytest

from assay_agents import judges
from assay_agents.errors import ConfigurationError
from assay_agents.judging import BUILTIN, JudgeInput, JudgeUsage, assess
from assay_agents.judging.judge import wait_listener
from assay_agents.judging.retry import RetryPolicy, retry_after
from assay_agents.judging.verdict import MAX_REASON
from assay_agents.testing import ScriptedServer, failure, reply, slow, verdict
from assay_agents.testing.server import Response

DATA = JudgeInput("How long is the return window?", "Thirty days.", "30 days")


def grade(server, *, judge_timeout=10.0, retry=None, votes=1):
    judge = judges.openai(
        "judge-model",
        base_url=server.base_url,
        api_key="test",
        judge_timeout=judge_timeout,
        retry=retry or RetryPolicy(attempts=3, base=0.01, ceiling=0.2),
    )
    usage = JudgeUsage()
    waits = []
    token = wait_listener.set(waits.append)
    try:
        metric = asyncio.run(
            assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=votes, usage=usage)
        )
    finally:
        wait_listener.reset(token)
    return metric, usage, waits


def test_a_hanging_endpoint_is_cut_off_by_the_judge_timeout_as_a_metric_error():
    # The endpoint answers only after ten minutes: a verdict at all would mean it was waited for.
    with ScriptedServer([slow(verdict(1, "too late"), 600.0)]) as server:
        metric, usage, _ = grade(server, judge_timeout=1.0)
    assert not metric.passed and metric.score is None
    assert "judge timeout of 1 s" in metric.error and "--judge-timeout" in metric.error
    assert usage.calls == 1 and usage.attempts == 1


def test_the_deadline_bounds_the_retries_too():
    # Every attempt is slow enough to time out on its own, and is retried: the deadline wins.
    with ScriptedServer([slow(verdict(1, "late"), 0.6)] * 10) as server:
        judge = judges.openai(
            "judge-model",
            base_url=server.base_url,
            api_key="test",
            timeout=0.3,
            judge_timeout=1.0,
            retry=RetryPolicy(attempts=10, base=0.01, ceiling=0.05),
        )
        usage = JudgeUsage()
        metric = asyncio.run(
            assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=1, usage=usage)
        )
    assert "judge timeout of 1 s" in metric.error
    # Each attempt takes its whole 0.3 s timeout, so ten would need 3 s: the deadline stopped them.
    assert usage.calls == 1 and 1 <= usage.attempts <= 4


def test_a_wait_that_would_pass_the_deadline_gives_up_at_once():
    with ScriptedServer([failure(429, retry_after=30), verdict(1, "never asked")]) as server:
        metric, usage, waits = grade(
            server, judge_timeout=1.0, retry=RetryPolicy(attempts=3, base=0.01, ceiling=60.0)
        )
        asked = len(server.requests)
    assert asked == 1 and waits == []
    assert "HTTP 429; retrying in 30.0 s would pass the judge timeout of 1 s" in metric.error
    assert usage.attempts == 1


def test_a_429_then_a_verdict_is_one_call_in_two_attempts():
    with ScriptedServer([failure(429, retry_after=0), verdict(1, "ok")]) as server:
        metric, usage, waits = grade(server)
    assert metric.passed and metric.score == 1.0
    assert (usage.calls, usage.attempts) == (1, 2)
    assert (usage.counted().attempts, usage.counted().calls) == (2, 1)
    assert len(waits) == 1 and "HTTP 429" in waits[0]


def test_attempts_add_up_over_votes():
    # Two votes run at once: two failures and two verdicts, however they interleave.
    with ScriptedServer([failure(503), failure(500), verdict(1, "a"), verdict(1, "b")]) as server:
        metric, usage, _ = grade(server, votes=2)
    assert metric.passed and (usage.calls, usage.attempts) == (2, 4)


def test_a_verdict_with_a_duplicated_key_is_refused():
    with ScriptedServer([reply('{"score": 0, "reason": "wrong", "score": 1}')]) as server:
        metric, usage, _ = grade(server)
    assert not metric.passed and metric.score is None
    assert "invalid verdict" in metric.error and "'score' more than once" in metric.error
    assert usage.calls == 1


def test_a_reason_past_the_cap_is_an_invalid_verdict_and_is_not_stored_twice():
    with ScriptedServer([verdict(1, "x" * (MAX_REASON + 1))]) as server:
        metric, _, _ = grade(server)
    assert not metric.passed and metric.score is None and metric.reason is None
    assert f"more than the {MAX_REASON:,} allowed" in metric.error
    [vote] = metric.votes
    assert vote.reply is not None and len(vote.reply) <= 2_000 and vote.reason is None
    with ScriptedServer([verdict(1, "x" * MAX_REASON)]) as server:
        metric, _, _ = grade(server)
    assert metric.passed and len(metric.reason) == MAX_REASON


SHAPES = [
    "",
    "  ",
    "-5",
    "1e309",
    "inf",
    "-inf",
    "nan",
    "soon",
    "0x10",
    "1, 2",
    "3 s",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Mon, 99 Foo 2020 99:99:99 GMT",
    "Thu, 01 Jan 1970 00:00:00 -0000",
    "\x00\x1b[2J",
    "9" * 400,
    "٣",
]


@pytest.mark.parametrize("value", SHAPES)
def test_retry_after_of_any_shape_never_raises_and_stays_within_the_ceiling(value):
    for name in ("Retry-After", "retry-after-ms"):
        seconds = retry_after({name: value})
        assert seconds is None or seconds >= 0.0


@pytest.mark.parametrize(
    "value",
    [
        "",
        "-5",
        "1e309",
        "nan",
        "garbage",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "99999999999999999999",
    ],
)
def test_retry_after_shapes_over_http_are_waited_within_the_ceiling(value):
    headers = {"content-type": "application/json", "retry-after": value, "retry-after-ms": value}
    limited = Response(429, json.dumps({"error": {"message": "slow down"}}).encode(), headers)
    with ScriptedServer([limited, verdict(1, "ok")]) as server:
        metric, usage, waits = grade(server)
    assert metric.passed and (usage.calls, usage.attempts) == (1, 2)
    assert len(waits) == 1
    assert float(waits[0].split("retrying in ")[1].split(" s")[0]) <= 0.2


def test_retry_after_in_the_future_is_honoured_up_to_the_ceiling():
    soon = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3600))
    assert 3500 < retry_after({"Retry-After": soon}) <= 3600
    assert retry_after({"Retry-After": "2"}) == 2.0 and retry_after({"retry-after-ms": "-3"}) == 0


def test_the_endpoint_host_is_the_judges_and_prepare_imports_the_client(monkeypatch):
    judge = judges.openai("judge-model", base_url="https://user:pw@Judge.Example.com:8443/v1")
    assert judge.endpoint() == "judge.example.com"
    assert judges.openai("gpt-4.1-mini").endpoint() is None
    judge.prepare()
    litellm = judges.litellm("openai/judge-model", api_base="http://10.0.0.7:4000")
    assert litellm.endpoint() == "10.0.0.7"
    assert judges.litellm("openai/judge-model").endpoint() is None
    # Importing LiteLLM here would change what later tests see of its lazy imports.
    imported = []
    monkeypatch.setattr(
        "assay_agents.agent.adapters.optional.import_litellm", lambda: imported.append(True)
    )
    litellm.prepare()
    assert imported == [True]


def test_the_chat_adapters_prepare_their_client(monkeypatch):
    from assay_agents.agent.adapters.chat import LiteLLMChatAgent, OpenAIChatAgent

    OpenAIChatAgent(model="m", api_key="k").prepare()
    imported = []
    monkeypatch.setattr(
        "assay_agents.agent.adapters.optional.import_litellm", lambda: imported.append(True)
    )
    LiteLLMChatAgent(model="m").prepare()
    assert imported == [True]


def test_a_judge_timeout_must_be_positive():
    with pytest.raises(Exception, match="judge_timeout"):
        judges.openai("judge-model", judge_timeout=0)
    longer = judges.with_judge_timeout(judges.openai("judge-model"), 5)
    assert longer.judge_timeout == 5
    assert judges.openai("judge-model").judge_timeout == judges.DEFAULT_JUDGE_TIMEOUT
    plain = judges.function("f", lambda i, p: "x")
    with pytest.raises(ConfigurationError, match="has no deadline to set"):
        judges.with_judge_timeout(plain, 5)
