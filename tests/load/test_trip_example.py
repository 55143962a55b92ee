"""The trip example end to end: its app, its harness and its items, through the real runner."""

import asyncio

import pytest

import assay_agents as assay
from assay_agents.report.prose import gate_line
from assay_agents.results import item_rates, summarise
from assay_agents.runner import Execution, MemorySink, Runner


def execute(suite, **execution):
    runner = Runner(
        suite.agent, sink=MemorySink(), execution=Execution(samples=suite.samples, **execution)
    )
    return asyncio.run(runner.execute(suite.plan()))


@pytest.fixture(scope="module")
def trip(request):
    return assay.load_suite(request.config.rootpath / "examples" / "trip" / "items")


@pytest.fixture(scope="module")
def results(trip):
    return execute(trip, sample_concurrency=trip.sample_concurrency)


def by_case(results, case_id):
    return [sample for sample in results if sample.case_id == case_id]


def test_a_correct_scenario_passes_and_the_ledger_is_read_to_the_end(results):
    samples = by_case(results, "trip.set_name")
    assert [s.status.value for s in samples] == ["passed"] * 4
    # Nine thousand earlier events, and exactly this turn's event observed.
    assert samples[0].observation.channels["events"] == ["trip.name_set"]
    assert not samples[0].observation.truncated


def test_four_samples_of_an_alternating_model_give_a_pass_rate_of_one_half(results):
    rates = {rate.case_id: rate for rate in item_rates(results)}
    assert rates["trip.set_travel_date"].rate == 0.5 and rates["trip.set_travel_date"].flaky
    failed = by_case(results, "trip.set_travel_date")[1].metric("commands")
    assert (
        f"{failed.name}: {failed.reason}"
        == "commands: expected [trip.set_travel_date], got [trip.set_name]"
    )


def test_a_forbidden_command_that_appears_fails(results):
    for sample in by_case(results, "trip.move_without_rebooking"):
        assert sample.metric("contains").passed
        assert not sample.metric("forbid.commands").passed
        assert "forbidden [trip.rebook] appeared" in sample.metric("forbid.commands").reason


def test_a_reply_to_a_card_is_never_understood_as_a_new_command(results):
    for sample in by_case(results, "trip.confirm_rebooking"):
        assert sample.status is assay.SampleStatus.PASSED
        assert sample.observation.channels["acts"] == []
        assert sample.observation.channels["interaction_status"] == ["answered"]


def test_the_scripted_model_fails_loudly_on_a_call_nobody_scripted(trip):
    suite = assay.Suite("trip", agent=trip.agent)  # the same harness, an unscripted message
    suite.case(
        "Book me a hotel", setup={"cases": [{"case_id": "trip-1"}]}, observation={"commands": []}
    )
    sample = execute(suite)[0]
    assert sample.error.startswith("UnscriptedCall: nobody scripted")


def test_summary_categories_and_the_gate(trip, results):
    summary = summarise(results)
    assert summary.failing_by_category["side_effects"] == 6
    assert summary.failing_by_category["content"] == 0
    assert summary.check_pass_rate == 10 / 16
    verdict = trip.gate.evaluate(summary)
    assert [gate_line(finding) for finding in verdict.violations] == [
        "6 sample(s) failed a side-effect assertion (at most 0 allowed)"
    ]
    assert assay.Gate(min_pass_rate=0.5, max_side_effect_failures=6).evaluate(summary).passed


def comparable(results):
    return [
        (
            r.case_id,
            r.sample,
            r.status,
            r.answer,
            r.observation,
            [(m.name, m.passed, m.reason) for m in r.metrics],
        )
        for r in results
    ]


@pytest.mark.parametrize("sample_concurrency", [None, 2, 4])
def test_sample_concurrency_changes_nothing_but_the_execution_order(
    trip, results, sample_concurrency
):
    again = execute(trip, sample_concurrency=sample_concurrency, concurrency=16)
    assert comparable(again) == comparable(results)
