"""The local executor: the runner engine, in this process, on the run's event loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.evaluation.ports import Work
from assay_agents.results import SampleResult
from assay_agents.runner.engine import Runner


@dataclass(frozen=True, slots=True)
class LocalExecutor:
    """Executes samples concurrently in this process, within the work's limits (the default)."""

    name: str = "local"
    #: Whether :meth:`execute` returns the results too. A run reads its samples from the
    #: store, so by default none is held: 100,000 results in hand would be a gigabyte.
    returns_results: bool = False

    async def execute(self, work: Work) -> Sequence[SampleResult]:
        """Run every item on the engine; results stream to the work's sink as they land.

        They are returned too (in the items' order) only with ``returns_results``.
        """
        runner = Runner(
            work.agent,
            execution=work.execution,
            sink=work.sink,
            progress=work.progress,
            keep_results=self.returns_results,
        )
        return await runner.execute_items(work.items, work.models, description=work.plan.suite)
