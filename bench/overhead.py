"""Pure per-sample overhead: 10,000 samples of an in-process agent, three checks each,
persisted to SQLite. Prints samples per second and peak RSS.
Targets: >= 2,000 samples/s; peak RSS < 250 MB.  Run: ``python bench/overhead.py``.
"""

from __future__ import annotations

import asyncio
import resource
import tempfile
import time

import assay_agents as assay
from assay_agents import checks

SAMPLES = 10_000


async def agent(text: str, ctx: assay.AgentContext) -> str:
    return f"answer to {text}"


def build_suite() -> assay.Suite:
    suite = assay.Suite(
        "overhead bench",
        agent=agent,
        checks=[checks.contains("answer"), checks.not_contains("error"), checks.min_length(5)],
    )
    for index in range(SAMPLES):
        suite.case(f"question {index}")
    return suite


def main() -> None:
    suite = build_suite()
    with tempfile.TemporaryDirectory() as folder:
        store = assay.Store.open(f"sqlite:///{folder}/bench.db", migrate=True)
        started = time.perf_counter()
        run = asyncio.run(assay.run_async(suite, db=store, concurrency=64, progress=False))
        elapsed = time.perf_counter() - started
        stored = len(store.sample_keys(run.id))
        store.close()
    assert run.summary is not None and run.summary.passed == SAMPLES
    assert stored == SAMPLES
    rate = SAMPLES / elapsed
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"samples={SAMPLES} checks/sample=3 elapsed={elapsed:.2f}s")
    print(
        f"throughput = {rate:,.0f} samples/s (target >= 2,000) {'OK' if rate >= 2000 else 'MISSED'}"
    )
    print(f"peak RSS = {peak_mb:.0f} MB (target < 250) {'OK' if peak_mb < 250 else 'MISSED'}")


if __name__ == "__main__":
    main()
