import asyncio

import pytest

import assay_agents as assay
from assay_agents.runner import MemorySink, Runner


def run(agent, **case):
    suite = assay.Suite("S", agent=agent)
    suite.case(case.pop("input", "q"), id="c", **case)
    return asyncio.run(Runner(agent, sink=MemorySink()).execute(suite.plan()))[0]


class Harness:
    """Records what it is asked; each world is a dict the agent writes into."""

    def __init__(self):
        self.started, self.stopped = [], []

    def start(self, case, sample):
        world = {"setup": case.setup, "sample": sample, "commands": []}
        self.started.append((case.id, sample, case.setup))

        def agent(value, ctx):
            world["commands"].append(f"did:{value}")
            return "done"

        agent.world = world
        return agent

    def observe(self, agent):
        return {"commands": agent.world["commands"]}

    def stop(self, agent):
        self.stopped.append(agent.world["sample"])


def test_start_observe_and_stop_once_per_sample():
    harness = Harness()
    sample = run(
        assay.harness_agent(harness), setup={"trip": 1}, observation={"commands": ["did:q"]}
    )
    assert sample.status is assay.SampleStatus.PASSED
    assert harness.started == [("c", 0, {"trip": 1})] and harness.stopped == [0]
    assert sample.observation == assay.Observation({"commands": ["did:q"]})


def test_async_harnesses_and_agents():
    class AsyncHarness:
        async def start(self, case, sample):
            async def agent(value, ctx):
                await asyncio.sleep(0)
                return assay.Outcome(answer="ok")

            return agent

        async def observe(self, agent):
            return assay.Observation({"events": ["e"]}, truncated=False)

    sample = run(assay.harness_agent(AsyncHarness()), observation={"events": ["e"]})
    assert sample.status is assay.SampleStatus.PASSED


def test_what_goes_wrong_is_an_agent_error_and_the_world_is_still_stopped():
    failing = Harness()
    failing.observe = lambda agent: ["not", "a", "mapping"]
    sample = run(assay.harness_agent(failing), observation={"commands": []})
    assert "observe() returned list" in sample.error and failing.stopped == [0]

    both = Harness()
    both.start = lambda case, sample: lambda value, ctx: {"answer": "x", "observation": {"a": []}}
    both.observe = lambda agent: {"a": []}
    both.stop = lambda agent: None
    sample = run(assay.harness_agent(both), observation={"a": []})
    assert "both the agent and the harness reported an observation" in sample.error

    bad_flag = Harness()
    bad_flag.observe = lambda agent: {"commands": [], "truncated": "yes"}
    assert "truncated" in run(assay.harness_agent(bad_flag)).error


def test_an_agent_error_skips_the_observation():
    harness = Harness()
    harness.observe = lambda agent: pytest.fail("observed after an agent error")
    harness.start = lambda case, sample: lambda value, ctx: assay.Outcome(error="gave up")
    harness.stop = lambda agent: None
    assert run(assay.harness_agent(harness)).error == "gave up"


def test_not_a_harness():
    with pytest.raises(assay.SpecError, match="not a harness"):
        assay.harness_agent(object())
    with pytest.raises(assay.SpecError, match="max_observed"):
        assay.harness_agent(Harness(), max_observed=0)
    broken = Harness()
    broken.start = lambda case, sample: "not callable"
    assert "not an agent" in run(assay.harness_agent(broken)).error
