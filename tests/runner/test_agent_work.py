"""Agent work is counted while it may run: a run's samples, and agents abandoned at their timeout.

While any is counted, ``assay-agents run`` does not hold the collector (an agent may make
cyclic garbage the whole time); the count must come back to zero, or the collector would
never be held again in that process.
"""

import threading

import assay_agents as assay
from assay_agents import startup


def test_a_run_counts_its_agents_at_work_and_leaves_none_counted() -> None:
    seen = []

    async def answer(text, ctx):
        seen.append(startup._agent_work)
        return "ok"

    def sync_answer(text, ctx):
        seen.append(startup._agent_work)
        if text == "boom":
            raise RuntimeError("boom")
        return "ok"

    for agent in (answer, sync_answer):
        suite = assay.Suite("Counted", agent=agent, concurrency=2)
        for text in ("a", "b", "boom"):
            suite.case(text, checks=[assay.checks.contains("ok")])
        assay.run(suite, db=assay.MemoryRunStore(), progress=False)
        assert startup._agent_work == 0
    assert len(seen) == 6
    assert min(seen) >= 1  # the run's, and a sync agent's own thread besides


def test_a_sync_agent_abandoned_at_its_timeout_is_counted_until_its_thread_ends() -> None:
    release = threading.Event()

    def stuck(text, ctx):
        release.wait(30)
        return "late"

    suite = assay.Suite("Abandoned", agent=stuck)
    suite.case("q", checks=[assay.checks.contains("late")])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False, timeout=0.05)
    assert "timed out" in (run.samples[0].error or "")
    assert startup._agent_work == 1  # its thread still runs
    release.set()
    for thread in threading.enumerate():
        if thread.name == "assay-agent":
            thread.join(30)
    assert startup._agent_work == 0
