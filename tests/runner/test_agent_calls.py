"""Work done alone waits for the agent calls in flight and holds new ones back until it ends."""

import asyncio

import pytest

from assay_agents.runner._calling import AgentCalls


async def _call(calls, name, events, release):
    async with calls.call():
        events.append(f"{name} starts")
        await release.wait()
        events.append(f"{name} returns")


def test_work_alone_waits_for_the_calls_in_flight_and_holds_new_ones_back():
    async def scenario():
        calls = AgentCalls()
        events = []
        first, second, later = asyncio.Event(), asyncio.Event(), asyncio.Event()
        running = [
            asyncio.create_task(_call(calls, "a", events, first)),
            asyncio.create_task(_call(calls, "b", events, second)),
        ]
        await asyncio.sleep(0)
        pause = asyncio.create_task(calls.alone(lambda: events.append("work")))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(_call(calls, "c", events, later))
        await asyncio.sleep(0)
        first.set()
        await running[0]
        assert "work" not in events  # b is still running
        second.set()
        await pause
        later.set()
        await asyncio.gather(running[1], waiting)
        return events

    events = asyncio.run(scenario())
    assert events.index("work") > events.index("a returns")
    assert events.index("work") > events.index("b returns")
    assert events.index("c starts") > events.index("work")


def test_with_no_call_in_flight_the_work_runs_at_once_and_calls_go_on_after():
    async def scenario():
        calls = AgentCalls()
        events = []
        await calls.alone(lambda: events.append("work"))
        release = asyncio.Event()
        release.set()
        await _call(calls, "a", events, release)
        return events

    assert asyncio.run(scenario()) == ["work", "a starts", "a returns"]


def test_work_that_fails_lets_the_calls_go_on():
    async def scenario():
        calls = AgentCalls()
        events = []

        def broken():
            raise RuntimeError("no tables")

        with pytest.raises(RuntimeError):
            await calls.alone(broken)
        release = asyncio.Event()
        release.set()
        await asyncio.wait_for(_call(calls, "a", events, release), timeout=5)
        return events

    assert asyncio.run(scenario()) == ["a starts", "a returns"]
