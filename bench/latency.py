"""Harness overhead against the floor on a latency-bound workload.

1,000 cases at concurrency 50, then 2,000 at concurrency 200 (ideally 1.0 s and 0.5 s of
requests), each calling a local OpenAI-compatible server that answers after 50 ms through
the real ``openai`` client, scored by exact match and persisted to SQLite. The floor is the
same calls with plain ``asyncio.gather`` and the same client, no harness. Target at each:
Assay / floor <= 1.2.  Run: ``python bench/latency.py [--only 200] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from openai import AsyncOpenAI

sys.path.insert(0, str(Path(__file__).parent))
from _server import serve

import assay_agents as assay
from assay_agents import checks

#: (cases, concurrency) measured, in order.
SHAPES = ((1_000, 50), (2_000, 200))
DELAY = 0.05
ROUNDS = 5


def client(base_url: str) -> AsyncOpenAI:
    # 200 connections opened at once on a busy machine can take over the default 5 s.
    return AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0, timeout=60.0)


async def ask(api: AsyncOpenAI, text: str) -> str:
    reply = await api.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": text}]
    )
    return reply.choices[0].message.content or ""


async def floor(base_url: str, cases: int, concurrency: int) -> float:
    api = client(base_url)
    limit = asyncio.Semaphore(concurrency)

    async def one(index: int) -> str:
        async with limit:
            return await ask(api, f"question {index}")

    started = time.perf_counter()
    answers = await asyncio.gather(*(one(i) for i in range(cases)))
    elapsed = time.perf_counter() - started
    await api.close()
    assert answers.count("ok") == cases
    return elapsed


async def harness(base_url: str, database: str, cases: int, concurrency: int) -> float:
    api = client(base_url)

    async def agent(text: str, ctx: assay.AgentContext) -> str:
        return await ask(api, text)

    suite = assay.Suite("latency bench", agent=agent, checks=[checks.exact_match()])
    for index in range(cases):
        suite.case(f"question {index}", expected="ok")
    store = assay.Store.open(database, migrate=True)
    started = time.perf_counter()
    run = await assay.run_async(suite, db=store, concurrency=concurrency, progress=False)
    elapsed = time.perf_counter() - started
    store.close()
    await api.close()
    assert run.summary is not None and run.summary.passed == cases, run.summary
    return elapsed


def measure(base_url: str, folder: str, cases: int, concurrency: int, rounds: int) -> None:
    """Alternate the floor and Assay on one shape; print the paired ratios."""
    ideal = math.ceil(cases / concurrency) * DELAY
    floors, harnesses = [], []
    asyncio.run(floor(base_url, cases, concurrency))  # warm the server and the client paths
    # Alternate the two, so each ratio compares measurements taken side by side: the
    # machine's speed drifts between rounds more than the harness costs.
    for round_ in range(rounds):
        floors.append(asyncio.run(floor(base_url, cases, concurrency)))
        database = f"sqlite:///{folder}/{concurrency}-{round_}.db"
        harnesses.append(asyncio.run(harness(base_url, database, cases, concurrency)))
        # Each round as it ends: on a busy machine a whole shape takes minutes.
        print(
            f"  round {round_ + 1}: floor {floors[-1]:.2f} s, assay {harnesses[-1]:.2f} s",
            flush=True,
        )
    ratios = sorted(h / f for h, f in zip(harnesses, floors, strict=True))
    ratio = statistics.median(ratios)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"cases={cases} concurrency={concurrency} latency={DELAY * 1000:.0f}ms "
        f"ideal={ideal:.2f}s rounds={rounds} load average {load}"
    )
    print(f"  floor (asyncio.gather + openai):  {', '.join(f'{v:.2f}' for v in floors)} s")
    print(f"  assay (runner + checks + SQLite): {', '.join(f'{v:.2f}' for v in harnesses)} s")
    print(f"  assay / floor per round: {', '.join(f'{r:.2f}' for r in ratios)}")
    verdict = "OK" if ratio <= 1.2 else "MISSED"
    print(f"  median assay / floor = {ratio:.2f} (target <= 1.20) {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Assay against the floor, latency-bound")
    parser.add_argument("--only", type=int, help="measure only this concurrency")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    chosen = parser.parse_args()
    shapes = [shape for shape in SHAPES if chosen.only in (None, shape[1])]
    with serve(DELAY) as base_url, tempfile.TemporaryDirectory() as folder:
        for cases, concurrency in shapes:
            measure(base_url, folder, cases, concurrency, chosen.rounds)


if __name__ == "__main__":
    main()
