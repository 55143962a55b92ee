import asyncio
import random
import threading
import time

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.runner import Execution, MemorySink, Runner


def suite_of(agent, cases=3):
    suite = assay.Suite("S", agent=agent)
    for index in range(cases):
        suite.case(f"c{index}", checks=[checks.contains("even")])
    return suite


def execute(suite, **execution):
    runner = Runner(suite.agent, sink=MemorySink(), execution=Execution(**execution))
    return asyncio.run(runner.execute(suite.plan()))


def comparable(results):
    return [
        (r.case_id, r.sample, r.status, r.answer, [(m.name, m.passed, m.reason) for m in r.metrics])
        for r in results
    ]


async def varying(text, ctx):
    # Finishes in a random order; the answer depends only on the sample index.
    await asyncio.sleep(random.random() / 100)
    return f"{text}:{'even' if ctx.sample % 2 == 0 else 'odd'}"


@pytest.mark.parametrize("sample_concurrency", [None, 1, 2, 8])
def test_results_are_the_same_set_in_index_order_whatever_the_setting(sample_concurrency):
    reference = execute(suite_of(varying), samples=6, sample_concurrency=1)
    results = execute(
        suite_of(varying), samples=6, concurrency=8, sample_concurrency=sample_concurrency
    )
    assert [(r.case_id, r.sample) for r in results] == [
        (f"c{c}", k) for c in range(3) for k in range(6)
    ]
    assert comparable(results) == comparable(reference)
    assert [r.status.value for r in results[:6]] == ["passed", "failed"] * 3


def test_one_at_a_time_runs_each_cases_samples_in_index_order():
    started: dict[str, list[int]] = {}
    running: dict[str, int] = {}
    peaks: dict[str, int] = {}
    lock = threading.Lock()

    def agent(text, ctx):
        with lock:
            started.setdefault(text, []).append(ctx.sample)
            running[text] = running.get(text, 0) + 1
            peaks[text] = max(peaks.get(text, 0), running[text])
        time.sleep(0.002)
        with lock:
            running[text] -= 1
        return "even"

    execute(suite_of(agent), samples=5, concurrency=8, sample_concurrency=1)
    assert started == {f"c{i}": [0, 1, 2, 3, 4] for i in range(3)}
    assert peaks == {f"c{i}": 1 for i in range(3)}


def test_the_limit_is_per_case_and_the_global_limit_still_holds():
    active = {"now": 0, "peak": 0, "entered": 0}
    per_case: dict[str, int] = {}
    case_peaks: dict[str, int] = {}
    lock = threading.Lock()
    # The first six calls wait for each other: six in flight at once is reached by design,
    # not by how fast the machine happens to be (a broken barrier fails the run's samples).
    first_wave = threading.Barrier(6, timeout=30)

    def agent(text, ctx):
        with lock:
            active["now"] += 1
            active["entered"] += 1
            waits = active["entered"] <= 6
            active["peak"] = max(active["peak"], active["now"])
            per_case[text] = per_case.get(text, 0) + 1
            case_peaks[text] = max(case_peaks.get(text, 0), per_case[text])
        if waits:
            first_wave.wait()
        with lock:
            active["now"] -= 1
            per_case[text] -= 1
        return "even"

    results = execute(suite_of(agent, cases=4), samples=4, concurrency=6, sample_concurrency=2)
    assert len(results) == 16 and all(result.error is None for result in results)
    assert max(case_peaks.values()) == 2 and active["peak"] == 6


def test_the_suite_setting_reaches_the_run(tmp_path, monkeypatch):
    order: list[int] = []

    def agent(text, ctx):
        order.append(ctx.sample)
        return "even"

    suite = assay.Suite("S", agent=agent, samples=4, sample_concurrency=1)
    suite.case("c", checks=[checks.contains("even")])
    monkeypatch.chdir(tmp_path)  # the embedded default database, created on first use
    run = assay.run(suite, progress=False)
    assert order == [0, 1, 2, 3] and run.settings.sample_concurrency == 1
    with pytest.raises(assay.SpecError, match="sample_concurrency"):
        assay.Suite("S", agent=agent, sample_concurrency=0)
