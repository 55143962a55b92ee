"""A run's summary is counted from what it stored, read back a page at a time.

The pages add up to the run's samples in report order, so the counted summary is the one
:func:`assay_agents.results.summarise` gives over the whole stored run, and the samples a run
returns (held packed) are the stored ones.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.results import summarise
from assay_agents.results.summary import RunTally
from assay_agents.testing import ScriptedServer, failure, verdict


def varied_agent(text: str, ctx: assay.AgentContext) -> assay.Outcome:
    """Answers that pass, fail, error and cost differently per case, model and sample."""
    if "broken" in text and ctx.sample == 1:
        raise RuntimeError("the agent broke")
    model = "" if ctx.model is None else ctx.model.label
    priced = None if "free" in text else 0.001 * (1 + len(model)) * (1 + ctx.sample)
    answer = "no idea" if "wrong" in text and model.endswith("b") else f"thirty days ({text})"
    return assay.Outcome(
        answer=answer,
        usage=assay.Usage(input_tokens=10 + ctx.sample, output_tokens=3, cost_usd=priced),
        metadata={"outcome": "clarification"} if "ask" in text else {},
    )


def varied_suite(judge: object = None) -> assay.Suite:
    suite = assay.Suite(
        "Counted",
        agent=varied_agent,
        judge=judge,
        checks=[checks.contains("thirty"), checks.min_length(4)],
    )
    for text in ("returns", "wrong turn", "broken belt", "free ask", "plain", "wrong ask"):
        suite.case(text, id=text.replace(" ", "-"), expected="30 days")
    return suite


def assert_counted_from_the_store(store: assay.Store, run: assay.Run) -> None:
    stored = store.get_run(run.id)
    whole = summarise(stored.samples, stored.judge_usage)
    assert stored.summary == whole == run.summary
    for size in (1, 2, 7, 1000):
        counting = RunTally()
        for page in store.sample_pages(run.id, size=size):
            counting.add_all(page)
        assert counting.summary(stored.judge_usage) == whole
    paged = list(itertools.chain.from_iterable(store.sample_pages(run.id, size=5)))
    assert paged == list(stored.samples) == list(run.samples)
    assert run.samples == stored.samples and stored.samples == run.samples


def test_a_run_on_several_models_with_errors_is_summarised_from_its_stored_samples(
    store: assay.Store,
) -> None:
    run = assay.run(
        varied_suite(), db=store, models=["model-a", "model-bb"], samples=3, progress=False
    )
    summary = run.summary
    assert summary is not None and set(summary.by_model) == {"model-a", "model-bb"}
    assert summary.errors == 2 * 1 and summary.failed > 0 and summary.passed > 0
    assert summary.clarification_rate is not None and summary.priced < summary.samples
    assert_counted_from_the_store(store, run)


def test_a_judged_run_is_summarised_from_its_stored_samples(store: assay.Store) -> None:
    count = itertools.count()

    def reply(body: object) -> object:
        # Every third judge call is refused: a judge failure counted apart from the agent's.
        number = next(count)
        if number % 3 == 2:
            return failure(400, message="refused")
        return verdict(number % 2, f"verdict {number}")

    with ScriptedServer(reply) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        run = assay.run(varied_suite(judge), db=store, samples=2, votes=2, progress=False)
    summary = run.summary
    assert summary is not None and summary.judge_calls > 0 and summary.judge
    assert_counted_from_the_store(store, run)


def test_a_resumed_run_counts_the_samples_stored_before_it_too(store, crash_after) -> None:
    suite = varied_suite()
    with pytest.raises(assay.IncompleteRunError) as raised:
        assay.run(suite, db=store, samples=2, progress=crash_after(5))
    run = assay.run(suite, db=store, resume=raised.value.run_id, samples=2, progress=False)
    assert run.summary is not None and run.summary.samples == 12 and len(run.samples) == 12
    assert_counted_from_the_store(store, run)


def test_an_evaluation_reads_in_a_line_whatever_the_size_of_its_run(tmp_path) -> None:
    """Python 3.11's ``asyncio.run`` formats its result's repr as it returns: it stays short."""
    suite = assay.Suite("Sized", agent=lambda text, ctx: "ok", checks=[checks.exact_match()])
    for number in range(300):
        suite.case(f"question {number} " + "x" * 50, expected="ok")
    with assay.Store.open(f"sqlite:///{tmp_path}/a.db", migrate=True) as store:
        first = asyncio.run(assay.evaluate_async(suite, db=store, progress=False))
        second = asyncio.run(assay.evaluate_async(suite, db=store, progress=False))
    assert repr(second) == (
        f"Evaluation(run={second.run.id!r}, suite='Sized', passed=300 of 300, "
        f"baseline={first.run.id!r}, failed=False, regressed=False)"
    )
