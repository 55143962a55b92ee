"""What a conversation's client costs the built-in chat agent, with and without prepare().

``openai_chat`` opens a client per conversation (so one agent serves several runs and event
loops without leaking connections). A new client used to load the certificate store each
time, inside the sample's clock; ``prepare()`` now loads it once. This prints the median time
to open and close a conversation's client both ways.

Run: ``python bench/chat_client_setup.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from assay_agents import agents

ROUNDS = 20


async def opened(agent: agents.ChatAgent) -> float:
    started = time.perf_counter()
    async with agent.session():
        pass
    return time.perf_counter() - started


async def median_ms(agent: agents.ChatAgent) -> float:
    await opened(agent)  # imports and first-use work are not what is measured
    return statistics.median([await opened(agent) for _ in range(ROUNDS)]) * 1000


def main() -> None:
    prepared = agents.openai_chat("gpt-4.1-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    prepared.prepare()
    cold = agents.openai_chat("gpt-4.1-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    from openai import AsyncOpenAI

    async def unshared() -> float:
        started = time.perf_counter()
        async with AsyncOpenAI(base_url=cold.base_url, api_key="k", max_retries=2):
            pass
        return time.perf_counter() - started

    async def measure() -> tuple[float, float]:
        await unshared()
        before = statistics.median([await unshared() for _ in range(ROUNDS)]) * 1000
        return before, await median_ms(prepared)

    before, after = asyncio.run(measure())
    print(f"a client per conversation, loading certificates each time: {before:.1f} ms median")
    print(f"a client per conversation, certificates loaded in prepare(): {after:.1f} ms median")


if __name__ == "__main__":
    main()
