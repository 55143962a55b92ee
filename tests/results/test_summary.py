from assay_agents.record import read_summary, write_summary
from assay_agents.results import MetricResult, SampleResult, SampleStatus, nearest_rank, summarise


def sample(case, status, score=None, model=None, index=0, error=None, duration=None):
    metrics = (
        () if score is None else (MetricResult("m", "check", "content", 1.0, score, score >= 1.0),)
    )
    return SampleResult(
        case, model, index, status, error=error, metrics=metrics, duration_ms=duration
    )


def test_pass_rate_and_scores_exclude_not_evaluated_samples():
    summary = summarise(
        [
            sample("a", SampleStatus.PASSED, 1.0),
            sample("b", SampleStatus.FAILED, 0.0),
            sample("c", SampleStatus.ERROR, error="boom"),
            sample("d", SampleStatus.NOT_EVALUATED),
        ]
    )
    assert (summary.passed, summary.failed, summary.errors, summary.not_evaluated) == (1, 1, 1, 1)
    assert summary.pass_rate == 1 / 3
    assert summary.check_score == 1 / 3  # the agent error counts zero
    assert summary.cases == 4 and summary.cases_passed == 1


def test_nothing_evaluated_gives_null_rates_never_a_pass():
    summary = summarise([sample("a", SampleStatus.NOT_EVALUATED)])
    assert summary.pass_rate is None and summary.check_score is None


def test_a_case_passes_only_when_every_sample_passed():
    summary = summarise(
        [
            sample("a", SampleStatus.PASSED, 1.0, index=0),
            sample("a", SampleStatus.FAILED, 0.0, index=1),
            sample("b", SampleStatus.PASSED, 1.0),
        ]
    )
    assert (summary.cases, summary.cases_passed) == (2, 1)


def test_percentiles_by_nearest_rank():
    values = [float(v) for v in range(1, 21)]
    assert nearest_rank(values, 50) == 10.0
    assert nearest_rank(values, 95) == 19.0
    assert nearest_rank([5.0], 95) == 5.0
    assert nearest_rank([], 50) is None


def test_per_model_tallies_and_round_trip():
    summary = summarise(
        [
            sample("a", SampleStatus.PASSED, 1.0, model="m1", duration=10.0),
            sample("a", SampleStatus.FAILED, 0.0, model="m2", duration=30.0),
        ]
    )
    assert summary.by_model["m1"].pass_rate == 1.0
    assert summary.by_model["m2"].pass_rate == 0.0
    assert read_summary(write_summary(summary)) == summary
