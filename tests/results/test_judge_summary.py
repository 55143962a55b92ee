"""Summaries of judged samples: unmeasured deterministic rates, attempts, spreads, no scores."""

from assay_agents.record import read, read_sample, read_summary, write, write_summary
from assay_agents.results import (
    JudgeUsage,
    MetricResult,
    SampleResult,
    SampleStatus,
    Vote,
    errored,
    summarise,
)


def judged(case, score=1.0, *, votes=None, usage=None):
    usage = None if usage is None else read(JudgeUsage, usage, "judge_usage")
    metric = MetricResult("tone", "judge", "judge", 0.5, score, score >= 0.5, "ok", None, votes)
    return SampleResult(
        case,
        None,
        0,
        SampleStatus.PASSED if score >= 0.5 else SampleStatus.FAILED,
        metrics=(metric,),
        judge_usage=usage,
    )


def checked(case, passed=True):
    metric = MetricResult("m", "check", "content", 1.0, 1.0 if passed else 0.0, passed)
    return SampleResult(
        case, None, 0, SampleStatus.PASSED if passed else SampleStatus.FAILED, metrics=(metric,)
    )


def test_no_deterministic_check_means_no_deterministic_rate_not_zero():
    summary = summarise([judged("a"), judged("b")])
    assert summary.pass_rate == 1.0 and summary.check_pass_rate is None
    agent_error = SampleResult("c", None, 0, SampleStatus.ERROR, error="boom")
    assert summarise([judged("a"), agent_error]).check_pass_rate is None


def test_the_deterministic_rate_counts_only_samples_with_checks_and_agent_errors():
    agent_error = SampleResult("c", None, 0, SampleStatus.ERROR, error="boom")
    summary = summarise([checked("a"), checked("b", passed=False), judged("j"), agent_error])
    assert summary.check_pass_rate == 1 / 3


def test_one_vote_has_no_spread_and_two_do():
    one = (Vote(score=1.0, raw=5, reason="ok"),)
    two = (*one, Vote(score=0.5, raw=3, reason="meh"))
    assert summarise([judged("a", votes=one)]).judge["tone"].mean_vote_spread is None
    assert summarise([judged("a", votes=two)]).judge["tone"].mean_vote_spread == 2


def test_attempts_are_summed_and_older_usage_counts_one_attempt_per_call():
    # Usage written before attempts were counted reads as one attempt per call.
    older = read_sample({**write(judged("b")), "judge_usage": {"calls": 3}}, "sample")
    assert older.judge_usage is not None and older.judge_usage.attempts == 3
    summary = summarise([judged("a", usage={"calls": 2, "attempts": 5}), older])
    assert (summary.judge_calls, summary.judge_attempts) == (5, 8)
    assert read_summary(write_summary(summary)) == summary


def test_a_metric_that_errored_has_no_score():
    metric = errored("m", "check", "content", 1.0, "boom")
    assert metric.score is None and not metric.passed and metric.effective_score == 0.0
    assert read(MetricResult, write(metric), "metric").score is None
