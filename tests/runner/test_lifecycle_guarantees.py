"""The lifecycle's guarantees through the Python API, on both backends."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import threading
import time

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import StoreError
from assay_agents.evaluation.writer import DurableSink
from assay_agents.report.prose import verdict_lines
from assay_agents.results import RunSettings, RunStatus, SampleStatus
from assay_agents.results.storable import storable


def hostile_agent(text: str, ctx: assay.AgentContext) -> object:
    if text == "nul":
        return {"answer": "ok", "error": "bad\x00byte"}
    if text == "surrogate":
        return assay.Outcome(answer="ok", metadata={"note": "half \ud800 pair"})
    if text == "huge tokens":
        return assay.Outcome(answer="ok", usage=assay.Usage(input_tokens=10**30))
    if text == "nan":
        return assay.Outcome(answer="ok", duration_ms=float("nan"))
    if text == "exit":
        sys.exit(3)
    return "ok"


HOSTILE = ("fine 1", "nul", "surrogate", "huge tokens", "nan", "exit", "fine 2")


def test_one_bad_value_costs_only_its_own_sample(store: assay.Store) -> None:
    suite = assay.Suite("Hostile values", agent=hostile_agent, checks=[checks.contains("ok")])
    for text in HOSTILE:
        suite.case(text, id=text.replace(" ", "-"))
    evaluation = assay.evaluate(suite, db=store, progress=False)
    stored = store.get_run(evaluation.run.id)
    assert stored.status is RunStatus.COMPLETED and len(stored.samples) == len(HOSTILE)
    by_case = {sample.case_id: sample for sample in stored.samples}
    assert by_case["fine-1"].status is SampleStatus.PASSED
    assert by_case["fine-2"].status is SampleStatus.PASSED
    expected = {
        "nul": "error",
        "surrogate": "metadata",
        "huge-tokens": "usage.input_tokens",
        "nan": "duration_ms",
        "exit": "sys.exit(3)",
    }
    for case_id, field in expected.items():
        sample = by_case[case_id]
        assert sample.status is SampleStatus.ERROR, case_id
        assert sample.error is not None and field in sample.error, (case_id, sample.error)
        assert "\x00" not in sample.error and "\ud800" not in sample.error
    assert evaluation.verdict.exit_code == assay.ExitCode.FAILED


def test_storable_names_the_field_and_repeats_nothing_of_the_value() -> None:
    sample = assay.SampleResult(
        "c", None, 0, SampleStatus.PASSED, answer="x", metadata={"deep": [{"k": "a\x00b"}]}
    )
    made = storable(sample)
    assert made.status is SampleStatus.ERROR and made.answer is None
    assert made.error == "a value could not be stored: metadata.deep[0].k contains a NUL character"


class RefusingStore:
    """A real store that refuses, as a database would, any batch holding one marked sample."""

    def __init__(self, store: assay.Store) -> None:
        self.store = store
        self.batches: list[int] = []

    def save_samples(self, run_id, samples, *, token=None, skip_stored=False):
        self.batches.append(len(samples))
        if any(sample.answer == "refuse me" for sample in samples):
            raise StoreError("value out of range for this column")
        self.store.save_samples(run_id, samples, token=token, skip_stored=skip_stored)


def test_a_refused_value_is_isolated_and_stored_as_that_samples_error(store: assay.Store) -> None:
    suite = assay.Suite("Refused", agent=lambda text, ctx: text, checks=[checks.contains("e")])
    for text in ("one", "refuse me", "three"):
        suite.case(text)
    run = store.create_run(_running(suite))
    refusing = RefusingStore(store)
    notes: list[str] = []
    sink = DurableSink(refusing, run.id, token=None, note=notes.append)  # type: ignore[arg-type]
    results = [
        assay.SampleResult(f"c{i}", None, 0, SampleStatus.PASSED, answer=text)
        for i, text in enumerate(("one", "refuse me", "three"))
    ]

    async def write() -> None:
        for result in results:
            await sink.put(result)
        await sink.close()

    asyncio.run(write())
    stored = {s.case_id: s for s in store.get_run(run.id).samples}
    assert stored["c0"].answer == "one" and stored["c2"].answer == "three"
    assert stored["c1"].status is SampleStatus.ERROR and stored["c1"].answer is None
    assert "the store refused this sample: value out of range" in (stored["c1"].error or "")
    assert refusing.batches[0] == 3 and ("c1", None, 0) in sink.replaced
    assert any("stored as an error" in note for note in notes)


def _running(suite: assay.Suite) -> assay.Run:
    from datetime import UTC, datetime

    return assay.Run(
        id=f"run-{time.monotonic_ns()}",
        suite=suite.name,
        agent="a",
        fingerprint="f",
        status=RunStatus.RUNNING,
        started_at=datetime.now(UTC),
        settings=RunSettings(samples=1, models=()),
    )


def test_a_sync_agents_timeout_starts_when_the_agent_does(store: assay.Store) -> None:
    calls: list[str] = []

    def agent(text: str, ctx: assay.AgentContext) -> str:
        calls.append(text)
        time.sleep(0.3)
        return "ok"

    suite = assay.Suite("Timed", agent=agent, checks=[checks.contains("ok")], concurrency=1)
    for index in range(5):
        suite.case(f"q{index}")
    run = assay.run(suite, db=store, timeout=1.0, progress=False)
    # At concurrency 1, each sample waits for the ones before (1.2 s for the last, beyond its
    # 1 s timeout); none of that wait is counted, so every sample passes.
    assert [sample.status for sample in run.samples] == [SampleStatus.PASSED] * 5
    assert len(calls) == 5
    assert all((sample.duration_ms or 0) >= 290 for sample in run.samples)


def test_a_hung_sync_agent_times_out_without_holding_up_the_next_sample(store: assay.Store) -> None:
    # The hung agent is released only by the next sample: had the runner waited for it, the
    # next sample could not start until the safety wait ran out.
    released = threading.Event()
    hung_still_blocked: list[bool] = []

    def agent(text: str, ctx: assay.AgentContext) -> str:
        if text == "hang":
            released.wait(120)
        else:
            hung_still_blocked.append(not released.is_set())
            released.set()
        return "ok"

    suite = assay.Suite("Hang", agent=agent, checks=[checks.contains("ok")], concurrency=1)
    suite.case("hang")
    suite.case("quick")
    run = assay.run(suite, db=store, timeout=0.3, progress=False)
    assert hung_still_blocked == [True]
    statuses = {sample.case_id: sample for sample in run.samples}
    hung = next(s for s in run.samples if s.status is SampleStatus.ERROR)
    assert "timed out after 0.3 s" in (hung.error or "")
    assert sum(1 for s in statuses.values() if s.status is SampleStatus.PASSED) == 1


marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="caller")


def test_a_run_leaves_no_process_wide_trace(store: assay.Store) -> None:
    from assay_agents.judging.judge import wait_listener

    suite = assay.Suite("Clean", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q")
    frozen_before = gc.get_freeze_count()
    enabled = gc.isenabled()
    handlers = {number: __import__("signal").getsignal(number) for number in (15, 1)}
    token = marker.set("mine")
    try:
        assay.run(suite, db=store, progress=False)
        assert marker.get() == "mine" and wait_listener.get() is None
    finally:
        marker.reset(token)
    assert gc.get_freeze_count() == frozen_before and gc.isenabled() == enabled
    assert {n: __import__("signal").getsignal(n) for n in (15, 1)} == handlers


def test_a_caller_who_froze_the_heap_keeps_it_frozen(store: assay.Store) -> None:
    suite = assay.Suite("Frozen", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q")
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assay.run(suite, db=store, progress=False)
        # Still frozen (an unfreeze would have emptied it); a few frozen objects may die.
        assert gc.get_freeze_count() > frozen * 0.9
    finally:
        gc.unfreeze()


def test_run_inside_a_running_loop_says_to_await_run_async(store: assay.Store) -> None:
    suite = assay.Suite("Loop", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
    suite.case("q")

    async def inside() -> None:
        with pytest.raises(assay.ConfigurationError, match=r"await assay\.run_async"):
            assay.run(suite, db=store, progress=False)
        run = await assay.run_async(suite, db=store, progress=False)
        assert run.status is RunStatus.COMPLETED

    asyncio.run(inside())


def test_evaluate_returns_the_verdict_the_cli_prints(store: assay.Store) -> None:
    suite = assay.Suite("Verdict", agent=lambda text, ctx: text, checks=[checks.contains("ok")])
    suite.case("ok then")
    suite.case("nope")
    evaluation = assay.evaluate(suite, db=store, progress=False, gate=assay.Gate(min_pass_rate=0.5))
    assert evaluation.verdict.passed and evaluation.verdict.exit_code == assay.ExitCode.OK
    assert tuple(verdict_lines(evaluation.verdict.findings)) == (
        "gate: passed · deterministic pass rate 50% ≥ 50%",
        "  side-effect failures: not measured — no side-effect checks",
    )
    assert evaluation.verdict.reasons == ()
    strict = assay.evaluate(suite, db=store, progress=False)
    assert strict.verdict.failed and strict.verdict.exit_code == 1
    assert strict.verdict.reasons == ("failed samples",)
    assert strict.comparison is not None and strict.run.baseline_id == evaluation.run.id


class Exploding(dict):
    def items(self):
        raise RuntimeError("boom")


def outlandish_agent(text: str, ctx: assay.AgentContext) -> object:
    deep: object = "leaf"
    for _ in range(3000):
        deep = {"x": deep}
    values = {
        "deep": assay.Outcome(answer="ok", metadata={"d": deep}),
        "huge int duration": assay.Outcome(answer="ok", duration_ms=10**400),
        "exploding metadata": assay.Outcome(answer="ok", metadata=Exploding(a=1)),
        "huge cost": assay.Outcome(answer="ok", usage=assay.Usage(1, 1, 1e308)),
        "huge duration": assay.Outcome(answer="ok", duration_ms=1e308),
    }
    return values.get(text, "ok")


def test_values_that_cannot_even_be_read_cost_only_their_sample(store: assay.Store) -> None:
    suite = assay.Suite("Outlandish", agent=outlandish_agent, checks=[checks.contains("ok")])
    texts = (
        "deep",
        "huge int duration",
        "exploding metadata",
        "huge cost",
        "huge duration",
        "plain",
    )
    for text in texts:
        suite.case(text, id=text.replace(" ", "-"))
    evaluation = assay.evaluate(suite, db=store, progress=False)
    run = store.get_run(evaluation.run.id)
    assert run.status is RunStatus.COMPLETED and len(run.samples) == len(texts)
    statuses = {sample.case_id: sample.status for sample in run.samples}
    assert statuses.pop("plain") is SampleStatus.PASSED
    assert set(statuses.values()) == {SampleStatus.ERROR}
    by_case = {sample.case_id: sample.error or "" for sample in run.samples}
    assert "usage.cost_usd" in by_case["huge-cost"]
    assert "duration_ms" in by_case["huge-duration"]
    assert run.summary is not None and run.summary.cost_usd is None


def test_a_judge_value_that_cannot_be_stored_costs_only_that_metric(store: assay.Store) -> None:
    from assay_agents import judges

    reply = '{"score": 1, "reason": "a\\u0000b"}'
    judge = judges.function("nul-judge", lambda system, prompt: reply)
    suite = assay.Suite(
        "Judged NUL", agent=lambda text, ctx: "30 days", judge=judge, checks=[checks.contains("30")]
    )
    suite.case("How long?", expected="30 days")
    run = assay.run(suite, db=store, progress=False)
    sample = store.get_run(run.id).samples[0]
    assert sample.answer == "30 days" and sample.error is None
    check = next(metric for metric in sample.metrics if metric.kind == "check")
    judged = [metric for metric in sample.metrics if metric.kind == "judge"]
    assert check.passed and judged
    assert all(
        metric.error is not None and "cannot be stored" in metric.error and metric.score is None
        for metric in judged
    )


def test_an_async_agent_swallowing_its_cancellation_still_times_out(store: assay.Store) -> None:
    async def agent(text: str, ctx: assay.AgentContext) -> str:
        if text == "hang":
            while True:
                try:  # noqa: SIM105 - swallowing the cancellation is the point
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    pass
        return "ok"

    suite = assay.Suite("Swallower", agent=agent, checks=[checks.contains("ok")])
    suite.case("hang")
    suite.case("fine")
    started = time.monotonic()
    run = assay.run(suite, db=store, timeout=0.3, progress=False)
    # Not a timing bound: only a guard that the abandoned agent did not hold the run for good.
    assert time.monotonic() - started < 120
    errors = [sample.error for sample in run.samples if sample.status is SampleStatus.ERROR]
    assert len(errors) == 1 and "timed out after 0.3 s" in (errors[0] or "")


class FlakyCompletion:
    """A real store whose completion fails twice as a lost connection would, then works."""

    def __init__(self, store: assay.Store) -> None:
        self._store = store
        self.failures = 2

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def complete_run(self, *args, **kwargs):
        if self.failures:
            self.failures -= 1
            raise StoreError("connection lost", transient=True)
        return self._store.complete_run(*args, **kwargs)


def test_the_completing_write_is_retried_like_every_write(store: assay.Store) -> None:
    from assay_agents.evaluation import EvaluationOptions, evaluate_with
    from assay_agents.runner import QuietProgress

    suite = assay.Suite(
        "Flaky completion", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")]
    )
    suite.case("q")
    flaky = FlakyCompletion(store)
    notes: list[str] = []
    progress = QuietProgress()
    progress.note = notes.append  # type: ignore[method-assign]
    evaluation = asyncio.run(evaluate_with(suite, EvaluationOptions.build(suite), flaky, progress))  # type: ignore[arg-type]
    assert flaky.failures == 0 and store.get_run(evaluation.run.id).status is RunStatus.COMPLETED
    assert sum("retrying to complete the run" in note for note in notes) == 2
