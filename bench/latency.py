"""Harness overhead against the floor on a latency-bound workload.

1,000 cases at concurrency 50, each calling a local OpenAI-compatible server that answers after
50 ms through the real ``openai`` client, scored by exact match and persisted to SQLite. The
floor is the same 1,000 calls with plain ``asyncio.gather`` and the same client, no harness.
Target: Assay / floor <= 1.2.  Run: ``python bench/latency.py``.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from openai import AsyncOpenAI

sys.path.insert(0, str(Path(__file__).parent))
from _server import serve

import assay
from assay import checks

CASES = 1_000
CONCURRENCY = 50
DELAY = 0.05
ROUNDS = 5


def client(base_url: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)


async def ask(api: AsyncOpenAI, text: str) -> str:
    reply = await api.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": text}]
    )
    return reply.choices[0].message.content or ""


async def floor(base_url: str) -> float:
    api = client(base_url)
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(index: int) -> str:
        async with limit:
            return await ask(api, f"question {index}")

    started = time.perf_counter()
    answers = await asyncio.gather(*(one(i) for i in range(CASES)))
    elapsed = time.perf_counter() - started
    await api.close()
    assert answers.count("ok") == CASES
    return elapsed


async def harness(base_url: str, database: str) -> float:
    api = client(base_url)

    async def agent(text: str, ctx: assay.AgentContext) -> str:
        return await ask(api, text)

    suite = assay.Suite("latency bench", agent=agent, checks=[checks.exact_match()])
    for index in range(CASES):
        suite.case(f"question {index}", expected="ok")
    store = assay.Store.open(database, migrate=True)
    started = time.perf_counter()
    run = await assay.run_async(suite, db=store, concurrency=CONCURRENCY, progress=False)
    elapsed = time.perf_counter() - started
    store.close()
    await api.close()
    assert run.summary is not None and run.summary.passed == CASES, run.summary
    return elapsed


def main() -> None:
    ideal = math.ceil(CASES / CONCURRENCY) * DELAY
    floors, harnesses = [], []
    with serve(DELAY) as base_url, tempfile.TemporaryDirectory() as folder:
        asyncio.run(floor(base_url))  # warm the server and the client code paths
        # Alternate the two, so each ratio compares measurements taken side by side: the
        # machine's speed drifts between rounds more than the harness costs.
        for round_ in range(ROUNDS):
            floors.append(asyncio.run(floor(base_url)))
            harnesses.append(asyncio.run(harness(base_url, f"sqlite:///{folder}/{round_}.db")))
    ratios = sorted(h / f for h, f in zip(harnesses, floors, strict=True))
    ratio = statistics.median(ratios)
    print(
        f"cases={CASES} concurrency={CONCURRENCY} latency={DELAY * 1000:.0f}ms "
        f"ideal={ideal:.2f}s rounds={ROUNDS}"
    )
    print(f"floor (asyncio.gather + openai):  {', '.join(f'{v:.2f}' for v in floors)} s")
    print(f"assay (runner + checks + SQLite): {', '.join(f'{v:.2f}' for v in harnesses)} s")
    print(f"assay / floor per round: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(
        f"median assay / floor = {ratio:.2f} (target <= 1.20) {'OK' if ratio <= 1.2 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
