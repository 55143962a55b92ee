"""Pooling one item's samples: each figure as its docstring defines it."""

import pytest

from assay_agents.compare import pooling
from assay_agents.compare.pooling import AGENT, pool_item, pool_run
from assay_agents.results import MetricResult, SampleResult, SampleStatus, errored, scored


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


ITEMS = [("p", 0.5, 1.0), ("q", 0.5, 1.0), ("r", 0.5, 0.0), ("s", 1, 1.0)]


def _run_of(items):
    """Samples of items ``(case, threshold, score)``: one sample each, one metric each."""
    return [
        SampleResult(
            case_id=case,
            model=None,
            sample=0,
            status=SampleStatus.PASSED if score >= threshold else SampleStatus.FAILED,
            metrics=(scored("a", "check", "content", threshold, score, "why"),),
        )
        for case, threshold, score in items
    ]


def test_items_pooled_to_the_same_figures_share_one_value_and_no_other_does():
    pooled = pool_run(_run_of(ITEMS))
    assert list(pooled) == [("p", None), ("q", None), ("r", None), ("s", None)]
    assert pooled["p", None] is pooled["q", None]  # equal as stored: held once
    assert pooled["p", None].metrics[AGENT] is pooled["r", None].metrics[AGENT]
    assert pooled["r", None] is not pooled["p", None]
    # 1 and 1.0 compare equal, but a threshold keeps the type it was stored with.
    assert pooled["s", None] is not pooled["p", None]
    assert type(pooled["s", None].metrics["a"].threshold) is int
    for case, threshold, score in ITEMS:
        assert pooled[case, None] == pool_item(_run_of([(case, threshold, score)]))


def test_sharing_is_bounded_and_pools_every_item_as_alone(monkeypatch):
    monkeypatch.setattr(pooling, "SHARED_VALUES", 3)
    items = [(f"c{index}", 0.5, (index % 5) / 4) for index in range(40)]
    pooled = pool_run(_run_of(items))
    assert [key[0] for key in pooled] == [case for case, _, _ in items]
    for case, threshold, score in items:
        assert pooled[case, None] == pool_item(_run_of([(case, threshold, score)]))


def test_samples_in_order_pool_as_they_come_and_an_item_that_comes_apart_is_refused():
    samples = [
        SampleResult(
            case_id=case,
            model=model,
            sample=index,
            status=SampleStatus.PASSED,
            metrics=(scored("a", "check", "content", 0.5, score, "why"),),
        )
        for case, model, scores in [("p", "m", (1.0, 0.5)), ("p", "n", (0.0,)), ("q", "m", (1.0,))]
        for index, score in enumerate(scores)
    ]
    whole = pool_run(samples)
    assert pool_run(samples, in_order=True) == whole
    assert list(pool_run(samples, in_order=True)) == list(whole)
    apart = [samples[0], samples[2], samples[1]]
    assert pool_run(apart)["p", "m"] == whole["p", "m"]
    with pytest.raises(ValueError, match=r"the samples of item \('p', 'm'\) do not come together"):
        pool_run(apart, in_order=True)


def test_a_metric_without_a_threshold_pools_as_alone():
    samples = [
        SampleResult(
            case_id=case,
            model=None,
            sample=0,
            status=SampleStatus.PASSED,
            metrics=(MetricResult("a", "check", "content", None, 1.0, True),),  # type: ignore[arg-type]
        )
        for case in ("p", "q")
    ]
    pooled = pool_run(samples)
    assert pooled["p", None] == pool_item(samples[:1]) and pooled["q", None] is pooled["p", None]
    assert pooled["p", None].metrics["a"].threshold is None
