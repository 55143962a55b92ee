"""Rescoring a stored 1,000-sample run with a cached judge: no agent, no judge call.

A run of 1,000 samples (one check and one judge criterion each) fills the judge cache in a
SQLite history; ``assay.rescore`` then grades the stored outcomes again, every judge call
answered from the cache, and stores the new run linked to the original and compared with it.
Prints the rescore's wall time. Target: under 2 s.  Run: ``python bench/rescore.py``.
"""

from __future__ import annotations

import json
import tempfile
import time

import assay_agents as assay
from assay_agents import checks, judges

SAMPLES = 1_000
TARGET = 2.0


async def agent(text: str, ctx: assay.AgentContext) -> str:
    return f"The answer to {text} is thirty days."


def complete(instructions: str, prompt: str) -> str:
    return json.dumps({"score": 5, "reason": "Clear and polite."})


#: A function judge is code, which a run cannot build again: the rescore is handed it.
JUDGE = judges.function("bench-judge", complete)


def build_suite() -> assay.Suite:
    suite = assay.Suite(
        "rescore bench",
        agent=agent,
        judge=JUDGE,
        checks=[checks.contains("days")],
        criteria=["tone"],
    )
    for index in range(SAMPLES):
        suite.case(f"question {index}", id=f"q{index:04d}")
    return suite


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = assay.Store.open(f"sqlite:///{folder}/bench.db", migrate=True)
        started = time.perf_counter()
        original = assay.run(build_suite(), db=store, cache=True, concurrency=64, progress=False)
        first = time.perf_counter() - started
        started = time.perf_counter()
        evaluation = assay.rescore(original.id, db=store, judge=JUDGE, cache=True, progress=False)
        elapsed = time.perf_counter() - started
        store.close()
    rescored = evaluation.run
    assert len(rescored.samples) == SAMPLES and rescored.summary is not None
    assert rescored.summary.judge_cached == SAMPLES, rescored.summary.judge_cached
    assert rescored.links == {"rescored_from": original.id}
    assert evaluation.comparison is not None and evaluation.comparison.excluded == ()
    print(f"samples={SAMPLES} judge calls={rescored.summary.judge_calls} (all cached)")
    print(f"the original run (instant agent, filling the cache) took {first:.2f} s")
    verdict = "OK" if elapsed < TARGET else "MISSED"
    print(f"rescore = {elapsed:.2f} s (target < {TARGET:g} s) {verdict}")


if __name__ == "__main__":
    main()
