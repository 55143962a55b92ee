"""Fan-out on Ray: 2,000 samples of an agent that sleeps 100 ms, on a local cluster of 4 workers.

Prints the wall time against the ideal ``ceil(N / concurrency) × 100 ms`` (concurrency = the
workers) and their ratio (target: within 1.3×), and beside it the same number of bare Ray tasks
at the same window: what Ray itself costs on this machine. The cluster is started, and its
workers warmed up by a short run, before the clock starts.  Run: ``python bench/ray_fanout.py``.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time

import ray

import assay_agents as assay
from assay_agents import checks
from assay_agents.ray import RayExecutor

LATENCY = 0.1


def agent(text: str, ctx: assay.AgentContext) -> str:
    time.sleep(LATENCY)
    return f"answer to {text}"


def build_suite(cases: int, samples: int) -> assay.Suite:
    suite = assay.Suite(
        "ray fan-out bench", agent=agent, checks=[checks.contains("answer")], samples=samples
    )
    for index in range(cases):
        suite.case(f"question {index}")
    return suite


def timed_run(store: assay.Store, cases: int, samples: int, workers: int) -> float:
    suite = build_suite(cases, samples)
    started = time.perf_counter()
    run = assay.run(suite, db=store, concurrency=workers, executor=RayExecutor(), progress=False)
    elapsed = time.perf_counter() - started
    assert run.summary is not None and run.summary.passed == cases * samples
    assert len(store.sample_keys(run.id)) == cases * samples
    return elapsed


def ray_floor(total: int, workers: int) -> float:
    """The same number of bare Ray tasks (each sleeps 100 ms), at most ``workers`` in flight."""

    @ray.remote(num_cpus=1)
    def bare(index: int) -> int:
        time.sleep(LATENCY)
        return index

    ray.get([bare.remote(index) for index in range(workers * 2)])  # its workers started
    started = time.perf_counter()
    pending, flying = list(range(total)), []
    while pending or flying:
        while pending and len(flying) < workers:
            flying.append(bare.remote(pending.pop()))
        done, flying = ray.wait(flying, num_returns=1)
        ray.get(done)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    started = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    print(f"cluster started in {time.perf_counter() - started:.1f} s ({args.workers} CPUs)")
    try:
        with tempfile.TemporaryDirectory() as folder:
            store = assay.Store.open(f"sqlite:///{folder}/bench.db", migrate=True)
            warm = timed_run(store, args.workers, 2, args.workers)
            print(f"warm-up: {args.workers * 2} samples in {warm:.2f} s")
            cases, per_case = args.samples // 10, 10
            elapsed = timed_run(store, cases, per_case, args.workers)
            store.close()
        floor = ray_floor(cases * per_case, args.workers)
    finally:
        ray.shutdown()
    total = cases * per_case
    ideal = math.ceil(total / args.workers) * LATENCY
    ratio = elapsed / ideal
    print(f"samples={total} workers={args.workers} concurrency={args.workers}")
    print(f"elapsed = {elapsed:.2f} s; ideal ceil({total}/{args.workers}) × 100 ms = {ideal:.1f} s")
    print(f"ratio = {ratio:.3f} (target <= 1.3) {'OK' if ratio <= 1.3 else 'MISSED'}")
    print(
        f"bare Ray tasks, same window: {floor:.2f} s, ratio {floor / ideal:.3f}; "
        f"Assay over bare Ray: {elapsed / floor:.3f}"
    )


if __name__ == "__main__":
    main()
