"""Agent work is counted while it may run: a run's samples, and agents abandoned at their timeout.

While any is counted, ``assay-agents run`` does not hold the collector (an agent may make
cyclic garbage the whole time); the count must come back down, or the collector would
never be held again in that process. The scenarios run in a fresh interpreter: the count is
the process's, and an agent another test left running could change it mid-scenario.
"""

import json
import subprocess
import sys
import textwrap

import pytest

SCENARIOS = textwrap.dedent(
    """
    import asyncio, json, threading

    import assay_agents as assay
    from assay_agents import startup
    from assay_agents.runner import _calling

    found = {}

    # A run counts its agents at work (sync agents' threads besides) and leaves none.
    during = []

    async def answer(text, ctx):
        during.append(startup._agent_work)
        return "ok"

    def sync_answer(text, ctx):
        during.append(startup._agent_work)
        if text == "boom":
            raise RuntimeError("boom")
        return "ok"

    after = []
    for agent in (answer, sync_answer):
        suite = assay.Suite("Counted", agent=agent, concurrency=2)
        for text in ("a", "b", "boom"):
            suite.case(text, checks=[assay.checks.contains("ok")])
        assay.run(suite, db=assay.MemoryRunStore(), progress=False)
        after.append(startup._agent_work)
    found["during a run"] = during
    found["after each run"] = after

    # A sync agent abandoned at its timeout is counted until its thread ends.
    release, threads = threading.Event(), []

    def stuck(text, ctx):
        threads.append(threading.current_thread())
        release.wait(30)
        return "late"

    suite = assay.Suite("Abandoned", agent=stuck)
    suite.case("q", checks=[assay.checks.contains("late")])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, timeout=0.05)
    found["sync timed out"] = "timed out" in (run.samples[0].error or "")
    found["sync abandoned"] = startup._agent_work
    release.set()
    threads[0].join(30)
    found["sync ended"] = startup._agent_work


    def slow_to_stop(done):
        async def agent():
            try:
                await asyncio.Event().wait()  # never set: only a cancellation ends it
            except asyncio.CancelledError:
                await done.wait()  # takes its time over the cancellation
                raise

        return agent()


    async def abandoned_at_its_timeout():
        done = asyncio.Event()
        timed = await _calling._call_async(slow_to_stop(done), timeout=0.01)
        counted = startup._agent_work
        done.set()
        await asyncio.gather(*_calling._ABANDONED, return_exceptions=True)
        await asyncio.sleep(0)  # the done callbacks run
        return [timed.timed_out, counted, startup._agent_work]


    async def cancelled_from_outside():
        done = asyncio.Event()
        call = asyncio.ensure_future(_calling._call_async(slow_to_stop(done), timeout=30))
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the agent is running
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        counted = startup._agent_work
        done.set()
        await asyncio.gather(*_calling._ABANDONED, return_exceptions=True)
        await asyncio.sleep(0)
        return [counted, startup._agent_work]


    found["async timeout"] = asyncio.run(abandoned_at_its_timeout())
    found["async cancelled"] = asyncio.run(cancelled_from_outside())
    print(json.dumps(found))
    """
)


@pytest.fixture(scope="module")
def found():
    done = subprocess.run(
        [sys.executable, "-c", SCENARIOS], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_run_counts_its_agents_at_work_and_leaves_none_counted(found) -> None:
    assert len(found["during a run"]) == 6
    assert min(found["during a run"]) >= 1  # the run's, and a sync agent's own thread besides
    assert found["after each run"] == [0, 0]


def test_a_sync_agent_abandoned_at_its_timeout_is_counted_until_its_thread_ends(found) -> None:
    assert found["sync timed out"] is True
    assert found["sync abandoned"] == 1  # its thread still runs
    assert found["sync ended"] == 0


def test_an_async_agent_abandoned_at_its_timeout_is_counted_until_it_is_done(found) -> None:
    assert found["async timeout"] == [True, 1, 0]


def test_an_async_agent_cancelled_from_outside_is_counted_until_it_is_done(found) -> None:
    assert found["async cancelled"] == [1, 0]
