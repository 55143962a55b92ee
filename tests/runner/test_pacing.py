"""The adaptive limit's state machine on a fake clock, and the pacer that sleeps by it."""

import asyncio
import math
from datetime import UTC, datetime

import pytest

from assay_agents.ratelimit import RateLimit, rate_limit_of, reset_after, server_wait
from assay_agents.runner.pacing import (
    AGENT,
    Adaptive,
    AdaptiveLimit,
    Change,
    Pacing,
    waiting_message,
)


def test_a_rate_limit_halves_the_limit_and_pauses_it_for_the_wait_asked():
    state = AdaptiveLimit(8, floor=1, ceiling=8)
    assert state.ready(0.0) == 0
    assert state.limited(now=10.0, started=9.0, wait=12.0, reason="rate limited") == Change(
        8, 4, "rate limited"
    )
    assert state.ready(10.0) == 12.0 and state.ready(21.0) == 1.0
    assert state.ready(22.0) == 0


def test_calls_in_flight_before_a_drop_do_not_drop_it_again():
    state = AdaptiveLimit(8, floor=1, ceiling=8)
    state.limited(now=10.0, started=9.0, wait=None, reason="rate limited")
    # Started at 9.5, before the drop at 10: refused under the old limit, already counted.
    assert state.limited(now=10.5, started=9.5, wait=None, reason="rate limited") is None
    assert state.limit == 4
    assert state.limited(now=11.0, started=10.2, wait=None, reason="overloaded") == Change(
        4, 2, "overloaded"
    )


def test_the_floor_holds_and_a_drop_to_it_is_no_change():
    state = AdaptiveLimit(3, floor=2, ceiling=3)
    assert state.limited(1.0, 0.0, None, "rate limited") == Change(3, 2, "rate limited")
    assert state.limited(3.0, 2.0, None, "rate limited") is None
    assert state.limit == 2


def test_a_window_of_successes_climbs_by_one_up_to_the_ceiling():
    state = AdaptiveLimit(4, floor=1, ceiling=5, window=3)
    state.limited(1.0, 0.0, None, "rate limited")
    assert state.limit == 2
    assert [state.succeeded() for _ in range(3)] == [None, None, Change(2, 3, "3 successes")]
    for _ in range(3):
        state.succeeded()
    assert state.limit == 4
    for _ in range(6):
        state.succeeded()
    assert state.limit == 5  # the ceiling
    # A rate limit breaks the streak: two more successes earn nothing.
    state.limited(20.0, 19.0, None, "rate limited")
    assert [state.succeeded(), state.succeeded()] == [None, None] and state.limit == 2


def test_slots_are_counted_and_a_full_limit_waits_for_a_release():
    state = AdaptiveLimit(2, floor=1, ceiling=2)
    state.take()
    state.take()
    assert math.isinf(state.ready(0.0))
    state.give()
    assert state.ready(0.0) == 0


def test_the_start_is_kept_between_floor_and_ceiling():
    assert AdaptiveLimit(50, floor=2, ceiling=10).limit == 10
    assert AdaptiveLimit(1, floor=2, ceiling=10).limit == 2


class Clock:
    def __init__(self):
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self):
        return self.now

    async def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def test_the_pacer_waits_what_the_server_asked_says_so_and_counts_the_retries():
    clock, notes = Clock(), []
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    pacing = Pacing(
        8,
        Adaptive(retries=2),
        note=notes.append,
        clock=clock,
        wall=lambda: stamp,
        sleep=clock.sleep,
    )
    key = ("openai", "gpt-4.1-mini")

    async def scenario():
        with pacing.sample(key, "openai/gpt-4.1-mini", "gpt-4.1-mini") as account:
            waits = []
            for _ in range(3):
                wait = pacing.retry(account, RateLimit(429, 12.0), clock.now - 1)
                waits.append(wait)
                if wait is not None:
                    await pacing.wait(None, wait, "rate limited", "gpt-4.1-mini")
            return waits, account.record()

    waits, record = asyncio.run(scenario())
    assert waits == [12.0, 12.0, None]  # two retries, then the sample's budget is spent
    assert clock.slept == [12.0, 12.0]
    assert "waiting 12 s, rate limited (gpt-4.1-mini)" in notes
    assert record.retries == 2 and record.waited_s == 24.0
    assert [(a.model, a.before, a.after, a.reason) for a in record.adjustments] == [
        ("openai/gpt-4.1-mini", 8, 4, "rate limited"),
        ("openai/gpt-4.1-mini", 4, 2, "rate limited"),
        ("openai/gpt-4.1-mini", 2, 1, "rate limited"),
    ]
    assert pacing.limit(AGENT, key).limit == 1


def test_without_a_server_wait_the_pacer_backs_off_and_doubles():
    clock = Clock()
    pacing = Pacing(4, Adaptive(retries=5), clock=clock, sleep=clock.sleep)

    async def scenario():
        with pacing.sample(("p", "m"), "p/m", "m") as account:
            return [pacing.retry(account, RateLimit(503), clock.now - 1) for _ in range(3)]

    assert asyncio.run(scenario()) == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(
    ("seconds", "shown"), [(12.0, "12"), (0.5, "0.5"), (1.0, "1"), (2.25, "2.2"), (59.6, "60")]
)
def test_the_waiting_message(seconds, shown):
    message = waiting_message(seconds, "rate limited", "gpt-4.1-mini")
    assert message == f"waiting {shown} s, rate limited (gpt-4.1-mini)"


def test_reset_headers_are_read_as_durations_and_the_exhausted_one_wins():
    assert reset_after({"x-ratelimit-reset-requests": "6m0s"}) == 360.0
    assert reset_after({"x-ratelimit-reset-tokens": "20ms"}) == pytest.approx(0.02)
    assert reset_after({"x-ratelimit-reset-requests": "1.5"}) == 1.5
    headers = {
        "x-ratelimit-reset-requests": "1s",
        "x-ratelimit-remaining-requests": "10",
        "x-ratelimit-reset-tokens": "250ms",
        "x-ratelimit-remaining-tokens": "0",
    }
    assert reset_after(headers) == pytest.approx(0.25)
    assert reset_after({"x-ratelimit-reset-requests": "soon"}) is None
    # Retry-After wins over the reset headers.
    assert server_wait({"Retry-After": "3", "x-ratelimit-reset-requests": "9s"}) == 3.0


def test_rate_limits_are_recognised_from_openai_httpx_and_wrapped_errors():
    import httpx
    import openai

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    late = "Wed, 21 Oct 2015 07:28:00 GMT"  # a date in the past: no wait
    response = httpx.Response(429, headers={"retry-after": late}, request=request)
    limited = openai.RateLimitError("slow down", response=response, body=None)
    assert rate_limit_of(limited) == RateLimit(429, 0.0)
    overloaded = httpx.Response(529, headers={"retry-after": "2"}, request=request)
    status = httpx.HTTPStatusError("overloaded", request=request, response=overloaded)
    assert rate_limit_of(status) == RateLimit(529, 2.0)
    try:
        try:
            raise status
        except httpx.HTTPStatusError as inner:
            raise RuntimeError("the tool failed") from inner
    except RuntimeError as wrapped:
        assert rate_limit_of(wrapped) == RateLimit(529, 2.0)
    refused = httpx.Response(400, request=request)
    assert rate_limit_of(httpx.HTTPStatusError("bad", request=request, response=refused)) is None
    assert rate_limit_of(ValueError("429")) is None


def test_an_error_that_only_carries_a_status_code_is_recognised():
    # LiteLLM's RateLimitError is shaped so: a status_code, a response that may be absent.
    class RateLimitError(Exception):
        status_code = 429
        response = None

    assert rate_limit_of(RateLimitError("slow down")) == RateLimit(429, None)


def test_a_judge_call_no_sample_owns_is_paced_by_its_own_policy_only():
    clock = Clock()
    pacing = Pacing(4, Adaptive(retries=0), clock=clock, sleep=clock.sleep)
    # The run's verdict: no sample's budget to spend, the judge's attempts bound it.
    assert pacing.limited(("openai", "judge"), RateLimit(429, 1.0), clock.now - 1) == 1.0
    assert pacing.limited(("openai", "judge"), RateLimit(429, None), clock.now) >= 0.5
    # A chat call outside any sample is never retried by the pacer.
    assert pacing.limited(None, RateLimit(429, 1.0), clock.now) is None


def test_slots_are_handed_out_first_come_first_served():
    pacing = Pacing(1)
    order = []

    async def sample(name):
        async with pacing.attempt(("p", "m")):
            order.append(name)
            await asyncio.sleep(0)

    async def scenario():
        async with asyncio.TaskGroup() as group:
            for name in "abcde":
                group.create_task(sample(name))

    asyncio.run(scenario())
    assert order == list("abcde")
