"""Pooling one item's samples: each figure as its docstring defines it."""

from assay_agents.compare.pooling import AGENT, pool_item
from assay_agents.results import SampleResult, SampleStatus, errored, scored


def _sample(index, status, metrics=(), error=None):
    return SampleResult(
        case_id="c", model=None, sample=index, status=status, error=error, metrics=metrics
    )


def test_each_metric_pools_its_scores_passes_errors_and_first_reasons():
    samples = [
        _sample(0, SampleStatus.PASSED, (scored("a", "check", "content", 0.5, 1.0, "fine"),)),
        _sample(
            1,
            SampleStatus.FAILED,
            (
                scored("b", "check", "content", 0.5, 0.25, ""),
                scored("a", "check", "content", 0.5, 0.25, "too short"),
            ),
        ),
        _sample(
            2,
            SampleStatus.ERROR,
            (errored("a", "check", "content", 0.5, "raised"), scored("b", "check", "x", 0.5, 0.0)),
            error="boom",
        ),
        _sample(3, SampleStatus.NOT_EVALUATED, error="gone"),
    ]
    pooled = pool_item(samples)
    assert list(pooled.metrics) == [AGENT, "a", "b"]  # first seen, after the agent's
    agent = pooled.metrics[AGENT]
    assert (agent.score, agent.errors, agent.samples, agent.error) == (0.5, 0.5, 4, "boom")
    a = pooled.metrics["a"]
    # The errored result counts zero in the mean and never passes.
    assert (a.score, a.passed, a.errors, a.samples) == (1.25 / 3, 1 / 3, 1 / 3, 3)
    assert (a.reason, a.error) == ("too short", "raised")
    b = pooled.metrics["b"]
    # An empty reason is no reason: the next failing one is taken, if any.
    assert (b.score, b.passed, b.errors, b.reason, b.error) == (0.125, 0.0, 0.0, None, None)
    assert b.category == "content"  # the first result's
    assert (pooled.passed, pooled.evaluated) == (1, 3)
