from assay_agents.record import read_summary, write_summary
from assay_agents.results import (
    MetricResult,
    SampleResult,
    SampleStatus,
    item_rates,
    summarise,
)
from assay_agents.results.reliability import is_provider_failure


def metric(name, category, passed, kind="check", error=None):
    return MetricResult(name, kind, category, 1.0, 1.0 if passed else 0.0, passed, error=error)


def sample(case, index, status, *metrics, error=None, model=None, metadata=None):
    return SampleResult(
        case, model, index, status, metrics=metrics, error=error, metadata=metadata or {}
    )


SAMPLES = [
    sample(
        "a",
        0,
        SampleStatus.FAILED,
        metric("forbid.commands", "side_effects", False),
        metric("commands", "side_effects", False),
        metric("contains", "content", True),
    ),
    sample("a", 1, SampleStatus.PASSED, metric("commands", "side_effects", True)),
    sample(
        "b",
        0,
        SampleStatus.FAILED,
        metric("contains", "content", False),
        metric("tone", "judge", False, kind="judge"),
    ),
    sample(
        "b",
        1,
        SampleStatus.ERROR,
        metric("ms", "budget", False, error="no duration"),
        metric("own", "custom", False),
    ),
    sample("c", 0, SampleStatus.ERROR, error="RateLimitError: slow down"),
    sample("c", 1, SampleStatus.ERROR, error="KeyError: 'trip-9'"),
    sample("d", 0, SampleStatus.NOT_EVALUATED),
    sample("d", 1, SampleStatus.ERROR, error="boom", metadata={"failure": "provider"}),
]


def test_failing_samples_are_counted_per_category_once_each():
    summary = summarise(SAMPLES)
    assert summary.failing_by_category == {
        "side_effects": 1,
        "content": 1,
        "actions": 0,
        "budget": 1,
        "judge": 1,
        "custom": 1,
    }


def test_agent_errors_provider_failures_and_not_evaluated_are_rates():
    summary = summarise(SAMPLES)
    assert summary.agent_error_rate == 1 / 8  # KeyError (the budget error is a metric)
    assert summary.provider_failure_rate == 2 / 8  # RateLimitError, and a declared one
    assert summary.not_evaluated_rate == 1 / 8
    assert is_provider_failure(SAMPLES[4]) and not is_provider_failure(SAMPLES[5])
    empty = summarise([])
    assert empty.agent_error_rate is None and empty.failing_by_category["side_effects"] == 0


def test_a_flaky_case_is_a_rate_over_its_samples():
    rates = {(r.case_id, r.model): r for r in item_rates(SAMPLES)}
    assert (rates[("a", None)].passed, rates[("a", None)].samples) == (1, 2)
    assert rates[("a", None)].rate == 0.5 and rates[("a", None)].flaky
    assert ("d", None) in rates and rates[("d", None)].samples == 1  # not-evaluated left out
    assert not rates[("b", None)].flaky


def test_new_fields_round_trip_and_old_stored_summaries_still_load():
    summary = summarise(SAMPLES)
    assert read_summary(write_summary(summary)) == summary
    old = write_summary(summary)
    for key in (
        "failing_by_category",
        "agent_error_rate",
        "provider_failure_rate",
        "not_evaluated_rate",
    ):
        old.pop(key)
        for tally in old["by_model"].values():
            tally.pop(key, None)
    restored = read_summary(old)
    assert restored.failing_by_category == {} and restored.agent_error_rate is None
    assert restored.passed == summary.passed
