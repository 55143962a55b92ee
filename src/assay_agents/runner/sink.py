"""Where sample results go as they land: a small interface, and an in-memory sink.

The durable store writer lives in :mod:`assay_agents.evaluation.writer`: the engine knows no store.
"""

from __future__ import annotations

from typing import Protocol

from assay_agents.results import SampleResult


class ResultSink(Protocol):
    """Receives every sample result as it lands."""

    async def put(self, result: SampleResult) -> None:
        """Accept one result."""
        ...

    async def close(self) -> None:
        """Make everything accepted so far durable; no more results will come."""
        ...


class MemorySink:
    """Keeps results in memory (tests, dry runs)."""

    def __init__(self) -> None:
        self.results: list[SampleResult] = []

    async def put(self, result: SampleResult) -> None:
        """Append the result."""
        self.results.append(result)

    async def close(self) -> None:
        """Nothing to do: memory is the destination."""
