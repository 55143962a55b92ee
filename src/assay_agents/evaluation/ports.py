"""The ports of the application layer: how one run's lifecycle reaches the world.

The lifecycle talks to a :class:`RunStore` (the SQL :class:`assay.Store`, or one in
memory), hands its samples to an :class:`Executor` (this process's engine, or a cluster),
and tells :class:`RunObserver` objects what the run does, beside the progress display (a
tracer, a metrics exporter). The judge is a port too (:class:`assay_agents.judging.Judge`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from assay_agents.agent import ModelSpec
from assay_agents.evaluation.verdict import Verdict
from assay_agents.judging import Judge
from assay_agents.results import (
    CaseSnapshot,
    GradedSample,
    JudgeUsage,
    Run,
    RunSummary,
    SampleResult,
    StoredComparison,
    Traces,
)
from assay_agents.results.baseline import BaselineChoice, RunOutcome
from assay_agents.results.cache import CacheStats
from assay_agents.results.run import Lease, ModelVerdict
from assay_agents.runner.engine import Execution, WorkItem
from assay_agents.runner.hooks import Capture, SampleCall
from assay_agents.runner.progress import Progress
from assay_agents.runner.sink import ResultSink
from assay_agents.spec import SuitePlan


@dataclass(frozen=True, kw_only=True)
class Work:
    """What the lifecycle hands an executor: one run's samples and how to execute them.

    ``items`` are the samples still to execute (a resumed run's stored ones are left out),
    each a case's plan (its checks and judge criteria included) on a model at an index.
    ``execution`` holds the limits (concurrency, per model, per item), the timeout, and
    the judge with its votes. Each result goes to ``sink`` as it lands; ``progress`` takes
    notes only (the run counts samples as they reach the sink).
    """

    plan: SuitePlan
    items: tuple[WorkItem, ...]
    models: tuple[ModelSpec, ...]
    agent: Callable[..., Any]
    execution: Execution
    sink: ResultSink
    progress: Progress


@runtime_checkable
class Executor(Protocol):
    """Executes a run's samples: in this process (:class:`LocalExecutor`) or elsewhere.

    ``name`` is stored in the run's settings. :meth:`execute` puts every item's result into
    ``work.sink`` as it lands (that is what is stored: an agent's failure is a result, not
    an exception), closes the sink, and returns the results in any order. The lifecycle
    cancels it (an ``asyncio`` cancellation) when the run must stop (Ctrl-C, a lost lease, a
    store that stays down): it then starts nothing more and closes the sink, so that what
    landed is kept. A run whose executor returns without every item's result is kept
    interrupted, and a resume executes what is missing. An executor may also have an
    ``async def connect(self) -> None``, called before the run is created: what it raises
    (a cluster out of reach) leaves nothing stored.
    """

    @property
    def name(self) -> str:
        """What the run's settings call it (``local``, ``ray``)."""
        ...

    async def execute(self, work: Work) -> Sequence[SampleResult]:
        """Execute every item of ``work``; see the class."""
        ...


#: The events a :class:`RunObserver` may listen to, in the order a run tells them.
OBSERVED_EVENTS = ("run_started", "sample_finished", "run_finished", "run_interrupted")


@runtime_checkable
class RunObserver(Protocol):
    """Told what a run does, beside the progress display: a tracer, an exporter, a log.

    Each method is called on the event loop, so it should be quick (hand slow work to a
    thread). An observer may leave out the events it has no use for. One that raises is
    reported on the progress display and told the rest as before: it cannot stop the run,
    lose a sample or change the verdict.
    """

    def run_started(self, run: Run, total: int) -> None:
        """The run (new or resumed) is about to execute ``total`` samples."""
        ...

    def sample_finished(self, run: Run, result: SampleResult) -> None:
        """One sample landed (it is on its way to the store)."""
        ...

    def run_finished(self, run: Run, verdict: Verdict) -> None:
        """The run is completed and stored; ``verdict`` is the decision about it."""
        ...

    def run_interrupted(self, run: Run, reason: str) -> None:
        """The run stopped before completing (kept interrupted and resumable), and why."""
        ...


@runtime_checkable
class SampleTracer(Protocol):
    """An observer that also traces: it wraps each sample and each judge call.

    The run finds it among its observers (:class:`assay_agents.otel.Correlation` is one). Each
    sample executes inside :meth:`around_sample`, each judge call goes through the judge
    :meth:`traced_judge` returns, and what :meth:`run_traces` gives once the samples and
    the verdict are done is stored on the run. A suite with ``capture="spans"`` has its
    agent calls watched by :meth:`capture`.
    """

    def around_sample(self, item: WorkItem, call: SampleCall) -> Awaitable[SampleResult]:
        """Execute one sample (``call()``) inside the tracer's scope; return its result."""
        ...

    def traced_judge(self, judge: Judge) -> Judge:
        """``judge`` with each call traced."""
        ...

    def run_traces(self) -> Traces | None:
        """The run's own trace ids (its span's, the verdict's judge calls)."""
        ...

    def capture(self) -> Capture:
        """What watches each agent call for the spans it emits."""
        ...


class RunStore(Protocol):
    """Runs, their samples and their leases, persisted."""

    display_url: str

    def create_run(self, run: Run) -> Run:
        """Insert a new run (running, with its lease) and its case snapshots."""
        ...

    def claim(
        self,
        run_id: str,
        owner: Lease,
        *,
        lease_timeout: float,
        owner_alive: Callable[[Lease], bool | None],
    ) -> Run:
        """Take an open run over for ``owner`` (a resume)."""
        ...

    def heartbeat(self, run_id: str, token: str) -> bool:
        """Refresh the lease; ``False`` once another owner holds the run."""
        ...

    def save_samples(
        self,
        run_id: str,
        samples: Sequence[SampleResult],
        *,
        token: str | None = None,
        skip_stored: bool = False,
    ) -> None:
        """Persist a batch of samples in one transaction."""
        ...

    def sample_keys(self, run_id: str) -> set[tuple[str, str | None, int]]:
        """Keys of the samples stored for a run."""
        ...

    def sample_pages(self, run_id: str, *, size: int = 1000) -> Iterator[list[SampleResult]]:
        """The run's stored samples in report order, about ``size`` at a time."""
        ...

    def complete_run(
        self,
        run_id: str,
        *,
        summary: RunSummary,
        finished_at: datetime,
        comparison: StoredComparison | None = None,
        baseline_id: str | None = None,
        token: str | None = None,
        reload: bool = True,
        verdict: ModelVerdict | None = None,
        judge_usage: JudgeUsage | None = None,
        outcome: RunOutcome | None = None,
        baseline_choice: BaselineChoice | None = None,
        traces: Traces | None = None,
    ) -> Run | None:
        """Complete a run after verifying that every planned sample is stored."""
        ...

    def mark_interrupted(
        self,
        run_id: str,
        *,
        finished_at: datetime,
        error: str | None = None,
        token: str | None = None,
    ) -> None:
        """Keep a run resumable, recording why it stopped."""
        ...

    def get_run(self, ref: str) -> Run:
        """A run whole, by id or unique prefix."""
        ...

    def find_baseline(
        self, run: Run, *, same_judge: bool = False, where: Mapping[str, str] | None = None
    ) -> Run | None:
        """The automatic baseline of a run: the latest earlier passing run."""
        ...

    def pinned_baseline(self, suite: str, agent: str) -> Run | None:
        """The run pinned as the baseline of a suite and agent, if any."""
        ...

    def history(
        self,
        *,
        suite: str | None = None,
        agent: str | None = None,
        limit: int = 20,
        revision: str | None = None,
        label: str | None = None,
    ) -> list[Run]:
        """Runs newest first, without their samples (of a release: a revision prefix, a label)."""
        ...

    def find_control_pair(self, run: Run) -> tuple[Run, Run] | None:
        """The latest control pair of a run's definition."""
        ...


@runtime_checkable
class GradedRunStore(Protocol):
    """A store that reads a baseline as a comparison uses it: its cases, its samples as graded.

    The SQL and in-memory stores do; with any other :class:`RunStore` a run reads its
    baseline whole, as before.
    """

    def find_baseline(
        self,
        run: Run,
        *,
        same_judge: bool = False,
        where: Mapping[str, str] | None = None,
        samples: bool = True,
    ) -> Run | None:
        """The automatic baseline; without ``samples``, with its cases only."""
        ...

    def pinned_baseline(self, suite: str, agent: str, *, samples: bool = True) -> Run | None:
        """The pinned baseline; without ``samples``, with its cases only."""
        ...

    def graded_samples(self, run_id: str) -> Iterable[GradedSample]:
        """How each of a run's samples was graded, in report order: what a comparison pools.

        Iterated once, as it is pooled: a store may read it as it goes.
        """
        ...


class AlikeRunStore(GradedRunStore, Protocol):
    """A graded store whose two baseline reads also take ``alike``: the run compared with.

    A case defined exactly as in ``alike`` shares its definition rather than being held a
    second time (a baseline of 100,000 unchanged cases, held through a whole run). The SQL and
    in-memory stores take it; a graded store written without it is read as before (see
    :func:`reads_alike`: which keywords a method takes is not something ``isinstance`` sees).
    """

    def find_baseline(
        self,
        run: Run,
        *,
        same_judge: bool = False,
        where: Mapping[str, str] | None = None,
        samples: bool = True,
        alike: Run | None = None,
    ) -> Run | None:
        """The automatic baseline (as :class:`GradedRunStore`), sharing with ``alike``."""
        ...

    def pinned_baseline(
        self, suite: str, agent: str, *, samples: bool = True, alike: Run | None = None
    ) -> Run | None:
        """The pinned baseline (as :class:`GradedRunStore`), sharing with ``alike``."""
        ...


@runtime_checkable
class NamedBaselineStore(GradedRunStore, Protocol):
    """A graded store that also reads a baseline named by the run (``--baseline``) so.

    It reads the run with its cases only, its gradings then read as for an automatic one: a
    named baseline of 100,000 samples is never held whole. The SQL and in-memory stores do;
    with any other store a named baseline is read whole (:meth:`RunStore.get_run`).
    """

    def baseline_run(self, ref: str, *, alike: Sequence[CaseSnapshot] = ()) -> Run:
        """A run by id or unique prefix, with its cases and without its samples.

        A case defined exactly as one of ``alike`` (same id, fingerprint and definition)
        shares that one's definition; a reference that names no run is a StoreError, as
        :meth:`RunStore.get_run` raises.
        """
        ...


def reads_alike(store: GradedRunStore) -> bool:
    """Whether both of ``store``'s baseline reads take ``alike`` (an :class:`AlikeRunStore`)."""
    try:
        return all(
            "alike" in inspect.signature(read).parameters
            for read in (store.find_baseline, store.pinned_baseline)
        )
    except (TypeError, ValueError):  # a read whose signature cannot be read takes no more
        return False


@runtime_checkable
class CallCacheStore(Protocol):
    """A store that also keeps the replies of judge and model calls (``--cache``).

    Replies are JSON (the record codec's form, written by :mod:`assay_agents.evaluation.caching`);
    the SQL store keeps them in the history database, the memory store in memory.
    """

    def cache_get(self, key: str) -> Any:
        """The reply kept under ``key``, or ``None``."""
        ...

    def cache_put(self, key: str, reply: Any, *, kind: str, source: str) -> None:
        """Keep ``reply`` under ``key``; a key already kept keeps its first reply."""
        ...

    def cache_entries(self, kind: str, source: str, limit: int) -> dict[str, Any] | None:
        """Every reply kept for ``kind`` and ``source``, by key; ``None`` past ``limit``."""
        ...

    def cache_stats(self) -> list[CacheStats]:
        """What the cache holds, per kind and source."""
        ...

    def cache_clear(self, *, kind: str | None = None, source: str | None = None) -> int:
        """Delete cached replies (of ``kind`` and ``source`` when given); how many."""
        ...
