import asyncio

import pytest

import assay_agents as assay
from assay_agents.checks import CheckContext, CheckError
from assay_agents.checks.observation import TRUNCATED, ChannelCheck
from assay_agents.runner import Execution, MemorySink, Runner


def run_one(observation=None, forbid=None, observed=None, truncated=False):
    """Run one case whose agent reports ``observed`` through the real runner."""

    def agent(text, ctx):
        if observed is None:
            return "done"
        return assay.Outcome(answer="done", observation={**observed, "truncated": truncated})

    suite = assay.Suite("S", agent=agent)
    suite.case("q", id="c", observation=observation, forbid=forbid)
    results = asyncio.run(Runner(agent, sink=MemorySink()).execute(suite.plan()))
    return results[0]


def metric(sample, name):
    found = sample.metric(name)
    assert found is not None, [m.name for m in sample.metrics]
    return found


def test_a_wrong_command_fails_naming_the_expectation_both_lists_and_the_category():
    sample = run_one(
        observation={"commands": ["trip.set_travel_date"]}, observed={"commands": ["trip.set_name"]}
    )
    commands = metric(sample, "commands")
    assert not commands.passed and commands.category == "side_effects"
    assert (
        f"{commands.name}: {commands.reason}"
        == "commands: expected [trip.set_travel_date], got [trip.set_name]"
    )
    assert sample.status is assay.SampleStatus.FAILED


def test_exactly_this_in_order():
    expected = {"events": ["a", "b"]}
    assert metric(run_one(expected, observed={"events": ["a", "b"]}), "events").passed
    assert not metric(run_one(expected, observed={"events": ["b", "a"]}), "events").passed
    assert not metric(run_one(expected, observed={"events": ["a", "b", "c"]}), "events").passed
    assert not metric(run_one(expected, observed={"events": ["a"]}), "events").passed


def test_an_empty_list_asserts_nothing_was_recorded():
    assert metric(run_one({"commands": []}, observed={"commands": []}), "commands").passed
    failed = metric(run_one({"commands": []}, observed={"commands": ["x"]}), "commands")
    assert not failed.passed and failed.reason == "expected [], got [x]"


def test_an_absent_channel_is_not_asserted():
    sample = run_one({"commands": ["a"]}, observed={"commands": ["a"], "events": ["anything"]})
    assert [m.name for m in sample.metrics] == ["commands"]
    assert sample.status is assay.SampleStatus.PASSED


def test_items_compare_as_typed_json():
    failed = metric(run_one({"ids": [1]}, observed={"ids": ["1"]}), "ids")
    assert not failed.passed and failed.reason == 'expected [1], got ["1"]'
    assert metric(run_one({"ids": [{"a": 1}]}, observed={"ids": [{"a": 1}]}), "ids").passed


def test_a_forbidden_item_fails_wherever_it_appears():
    sample = run_one(
        observation={"commands": ["trip.set_name", "trip.rebook"]},
        forbid={"events": ["trip.rebooking_sent"]},
        observed={
            "commands": ["trip.set_name", "trip.rebook"],
            "events": ["trip.name_set", "trip.rebooking_sent"],
        },
    )
    assert metric(sample, "commands").passed  # every positive assertion holds...
    forbidden = metric(sample, "forbid.events")  # ...only the forbid list notices
    assert not forbidden.passed and forbidden.category == "side_effects"
    assert forbidden.reason == (
        "forbidden [trip.rebooking_sent] appeared; got [trip.name_set, trip.rebooking_sent]"
    )
    clean = run_one(forbid={"events": ["x"]}, observed={"events": ["y"]})
    assert metric(clean, "forbid.events").passed


def test_a_truncated_observation_fails_every_assertion_that_reads_it():
    sample = run_one(
        observation={"commands": ["a"]},
        forbid={"events": ["x"]},
        observed={"commands": ["a"], "events": []},
        truncated=True,
    )
    for name in ("commands", "forbid.events"):
        failed = metric(sample, name)
        assert not failed.passed and failed.error is None
        assert failed.reason.startswith(TRUNCATED)
        assert "harness reported its read truncated" in failed.reason


def test_an_observation_never_reported_is_an_error_not_a_pass():
    sample = run_one(observation={"commands": []})
    commands = metric(sample, "commands")
    assert commands.error and "no observation" in commands.error
    assert sample.status is assay.SampleStatus.ERROR


def test_a_channel_the_harness_did_not_report_is_an_error():
    sample = run_one(forbid={"commands": ["x"]}, observed={"events": []})
    assert "no 'commands' channel (reported: events)" in metric(sample, "forbid.commands").error


def test_the_check_refuses_a_case_without_the_expectation():
    suite = assay.Suite("S", agent=lambda text, ctx: "")
    case = suite.case("q")
    ctx = CheckContext(case, assay.Outcome(observation=assay.Observation({"x": []})))
    with pytest.raises(CheckError):
        ChannelCheck(name="x", channel="x").evaluate(ctx)


def test_a_channel_both_required_and_forbidden_is_refused_at_definition():
    suite = assay.Suite("S", agent=lambda text, ctx: "")
    with pytest.raises(assay.SpecError, match="both required"):
        suite.case("q", observation={"commands": ["a"]}, forbid={"commands": ["a"]})


def test_channel_metrics_enter_the_fingerprint_only_when_declared():
    def fingerprint(**parts):
        suite = assay.Suite("S", agent=lambda text, ctx: "", version="1")
        suite.case("q", **parts)
        return suite.fingerprint()

    plain = fingerprint()
    assert fingerprint(observation={"commands": []}) != plain
    assert fingerprint(forbid={"commands": ["x"]}) != fingerprint(observation={"commands": []})
    # Channel order in the declaration is not meaning.
    assert fingerprint(observation={"a": [], "b": []}) == fingerprint(
        observation={"b": [], "a": []}
    )


def test_the_max_observed_ceiling_is_never_silent():
    class Harness:
        def start(self, case, sample):
            return lambda text, ctx: "done"

        def observe(self, agent):
            return {"events": ["e"] * 5, "commands": ["c"]}

    agent = assay.harness_agent(Harness(), max_observed=3)
    suite = assay.Suite("S", agent=agent)
    suite.case("q", id="c", forbid={"events": ["never"]}, observation={"commands": ["c"]})
    runner = Runner(agent, execution=Execution(), sink=MemorySink())
    sample = asyncio.run(runner.execute(suite.plan()))[0]
    assert sample.observation.truncated and sample.observation.channels["events"] == ["e"] * 3
    assert all(not m.passed and m.reason.startswith(TRUNCATED) for m in sample.metrics)
    assert all("max_observed=3" in m.reason for m in sample.metrics)
    assert sample.observation.bound == "max_observed=3"
