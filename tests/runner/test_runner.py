import asyncio
import random
import threading
import time

import assay_agents as assay
from assay_agents import checks
from assay_agents.results import SampleStatus
from assay_agents.runner import Execution, MemorySink, Runner


def execute(suite, *, samples=1, concurrency=8, models=(), timeout=None, model_concurrency=None):
    sink = MemorySink()
    runner = Runner(
        suite.agent,
        sink=sink,
        execution=Execution(
            samples=samples,
            concurrency=concurrency,
            timeout=timeout,
            model_concurrency=model_concurrency,
        ),
    )
    specs = assay.agent.parse_models(models)
    results = asyncio.run(runner.execute(suite.plan(), specs))
    return results, sink


def test_statuses_follow_the_rule():
    def agent(text, ctx):
        if text == "raise":
            raise ValueError("bad input")
        return {"answer": text, "actions": None}

    suite = assay.Suite("S", agent=agent)
    suite.case("good", expected="good", checks=[checks.exact_match()])
    suite.case("bad", expected="other", checks=[checks.exact_match()])
    suite.case("raise", checks=[checks.contains("x")])
    suite.case("uninstrumented", expected_actions=[{"group": "g", "name": "a"}])
    suite.case("unmeasured")
    results, _ = execute(suite)
    assert [r.status for r in results] == [
        SampleStatus.PASSED,
        SampleStatus.FAILED,
        SampleStatus.ERROR,
        SampleStatus.ERROR,
        SampleStatus.NOT_EVALUATED,
    ]
    assert results[2].error == "ValueError: bad input" and results[2].check_score == 0.0
    assert results[3].metrics[0].error and not results[3].metrics[0].passed


def test_async_agents_and_invalid_outcomes():
    async def agent(text, ctx):
        await asyncio.sleep(0)
        return {"answer": text} if text != "weird" else 42

    suite = assay.Suite("S", agent=agent)
    suite.case("ok", checks=[checks.contains("ok")])
    suite.case("weird", checks=[checks.contains("x")])
    results, _ = execute(suite)
    assert results[0].status is SampleStatus.PASSED
    assert results[1].status is SampleStatus.ERROR
    assert "invalid outcome" in results[1].error


def test_results_come_back_in_definition_order_whatever_the_concurrency():
    async def agent(text, ctx):
        await asyncio.sleep(random.random() / 200)
        return f"{text}:{ctx.model.label}:{ctx.sample}"

    suite = assay.Suite("S", agent=agent)
    for index in range(12):
        suite.case(f"c{index}", checks=[checks.contains("c")])
    results, sink = execute(suite, samples=3, concurrency=16, models=["m1", "m2"])
    keys = [(r.case_id, r.model, r.sample) for r in results]
    assert keys == [(f"c{i}", m, k) for i in range(12) for m in ("m1", "m2") for k in range(3)]
    assert [r.answer for r in results] == [f"{c}:{m}:{k}" for c, m, k in keys]
    assert sorted(r.key for r in sink.results) == sorted(keys)


def test_concurrency_limits_are_honoured():
    # A sample waits until as many run as the limit allows (or as are left), so four overlap
    # however slowly threads start; it then stays a moment, in which a fifth joining (a limit
    # not kept) would show in the peak. A kept limit passes whatever the timing.
    limit, total = 4, 20
    state = {"now": 0, "peak": 0, "finished": 0}
    changed = threading.Condition()

    def full():
        return state["now"] >= min(limit, total - state["finished"])

    def agent(text, ctx):
        with changed:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            changed.notify_all()
            changed.wait_for(full, timeout=30)
        time.sleep(0.01)
        with changed:
            state["now"] -= 1
            state["finished"] += 1
            changed.notify_all()
        return "x"

    suite = assay.Suite("S", agent=agent)
    for index in range(total):
        suite.case(f"c{index}", checks=[checks.contains("x")])
    results, _ = execute(suite, concurrency=limit)
    assert [r.status for r in results] == [SampleStatus.PASSED] * total
    assert state["peak"] == limit


def test_per_model_limit():
    running = {"m1": 0, "m2": 0}
    peaks = {"m1": 0, "m2": 0}

    async def agent(text, ctx):
        label = ctx.model.label
        running[label] += 1
        peaks[label] = max(peaks[label], running[label])
        await asyncio.sleep(0.005)
        running[label] -= 1
        return "x"

    suite = assay.Suite("S", agent=agent)
    for index in range(10):
        suite.case(f"c{index}", checks=[checks.contains("x")])
    execute(suite, concurrency=8, models=["m1", "m2"], model_concurrency=2)
    assert peaks == {"m1": 2, "m2": 2}


def test_timeout_becomes_an_error_sample_and_others_go_on():
    async def agent(text, ctx):
        if text == "slow":
            await asyncio.sleep(5)
        return "done"

    suite = assay.Suite("S", agent=agent)
    suite.case("slow", checks=[checks.contains("done")])
    suite.case("fast", checks=[checks.contains("done")])
    results, _ = execute(suite, timeout=0.05)
    assert "timed out" in results[0].error
    assert results[1].status is SampleStatus.PASSED


def test_agent_receives_a_copy_and_cannot_mutate_the_suite():
    def agent(messages, ctx):
        messages.append({"role": "assistant", "content": "injected"})
        ctx.case.metadata["facts"].append("changed")
        return "x"

    suite = assay.Suite("S", agent=agent)
    suite.case(
        [{"role": "user", "content": "hi"}],
        name="chat",
        metadata={"facts": []},
        checks=[checks.contains("x")],
    )
    before = suite.fingerprint()
    execute(suite, samples=2)
    assert suite.cases[0].input == [{"role": "user", "content": "hi"}]
    assert suite.cases[0].metadata == {"facts": []}
    assert suite.fingerprint() == before


def test_context_carries_model_sample_and_setup():
    seen = []

    def agent(text, ctx):
        seen.append((ctx.model, ctx.sample, ctx.setup, ctx.case.id))
        return "x"

    suite = assay.Suite("S", agent=agent)
    suite.case("q", id="c", setup={"orders": [42]}, checks=[checks.contains("x")])
    execute(suite, samples=2)
    assert sorted(seen, key=lambda item: item[1]) == [
        (None, 0, {"orders": [42]}, "c"),
        (None, 1, {"orders": [42]}, "c"),
    ]


def test_duration_is_measured_when_the_agent_does_not_report_it():
    def agent(text, ctx):
        time.sleep(0.02)
        return "x"

    suite = assay.Suite("S", agent=agent)
    suite.case("q", checks=[checks.max_latency_ms(10_000)])
    results, _ = execute(suite)
    assert results[0].duration_ms >= 20


def test_an_agent_that_swallows_its_cancellation_still_times_out():
    async def agent(text, ctx):
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)  # refuses to stop on time
        return "done"

    suite = assay.Suite("S", agent=agent)
    suite.case("stubborn", checks=[checks.contains("done")])
    results, _ = execute(suite, timeout=0.1)
    assert results[0].status is SampleStatus.ERROR and "timed out" in results[0].error
