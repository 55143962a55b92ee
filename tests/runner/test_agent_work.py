"""Agent work is counted while it may run: a run's samples, and agents abandoned at their timeout.

While any is counted, ``assay-agents run`` does not hold the collector (an agent may make
cyclic garbage the whole time); the count must come back down, or the collector would
never be held again in that process. The count is the process's: each test compares it
with what it was when the test began.
"""

import asyncio
import threading

import assay_agents as assay
from assay_agents import startup
from assay_agents.runner import _calling


def test_a_run_counts_its_agents_at_work_and_leaves_none_counted() -> None:
    before = startup._agent_work
    seen = []

    async def answer(text, ctx):
        seen.append(startup._agent_work - before)
        return "ok"

    def sync_answer(text, ctx):
        seen.append(startup._agent_work - before)
        if text == "boom":
            raise RuntimeError("boom")
        return "ok"

    for agent in (answer, sync_answer):
        suite = assay.Suite("Counted", agent=agent, concurrency=2)
        for text in ("a", "b", "boom"):
            suite.case(text, checks=[assay.checks.contains("ok")])
        assay.run(suite, db=assay.MemoryRunStore(), progress=False)
        assert startup._agent_work == before
    assert len(seen) == 6
    assert min(seen) >= 1  # the run's, and a sync agent's own thread besides


def test_a_sync_agent_abandoned_at_its_timeout_is_counted_until_its_thread_ends() -> None:
    before = startup._agent_work
    release = threading.Event()
    threads = []

    def stuck(text, ctx):
        threads.append(threading.current_thread())
        release.wait(30)
        return "late"

    suite = assay.Suite("Abandoned", agent=stuck)
    suite.case("q", checks=[assay.checks.contains("late")])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, timeout=0.05)
    assert "timed out" in (run.samples[0].error or "")
    assert startup._agent_work == before + 1  # its thread still runs
    release.set()
    threads[0].join(30)
    assert startup._agent_work == before


def _slow_to_stop(release):
    async def agent():
        try:
            await asyncio.Event().wait()  # never set: only a cancellation ends it
        except asyncio.CancelledError:
            await release.wait()  # takes its time over the cancellation
            raise

    return agent()


def test_an_async_agent_abandoned_at_its_timeout_is_counted_until_it_is_done() -> None:
    async def scenario():
        before, known = startup._agent_work, set(_calling._ABANDONED)
        release = asyncio.Event()
        timed = await _calling._call_async(_slow_to_stop(release), timeout=0.01)
        assert timed.timed_out
        counted = startup._agent_work - before
        release.set()
        await asyncio.gather(*(_calling._ABANDONED - known), return_exceptions=True)
        await asyncio.sleep(0)  # the done callbacks run
        return counted, startup._agent_work - before

    assert asyncio.run(scenario()) == (1, 0)


def test_an_async_agent_cancelled_from_outside_is_counted_until_it_is_done() -> None:
    async def scenario():
        before, known = startup._agent_work, set(_calling._ABANDONED)
        release = asyncio.Event()
        call = asyncio.ensure_future(_calling._call_async(_slow_to_stop(release), timeout=30))
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the agent is running
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        counted = startup._agent_work - before
        release.set()
        await asyncio.gather(*(_calling._ABANDONED - known), return_exceptions=True)
        await asyncio.sleep(0)
        return counted, startup._agent_work - before

    assert asyncio.run(scenario()) == (1, 0)
