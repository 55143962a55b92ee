"""A run: one execution of a suite, with the definition it used and every sample result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from assay_agents.errors import SpecError
from assay_agents.results.baseline import BaselineChoice, RunOutcome
from assay_agents.results.comparison import StoredComparison
from assay_agents.results.judge_usage import JudgeUsage
from assay_agents.results.sample import SampleResult
from assay_agents.results.settings import RunSettings
from assay_agents.results.summary import RunSummary
from assay_agents.results.traces import Traces
from assay_agents.spec import JSON


class RunStatus(StrEnum):
    """Where a run is.

    ``running``, ``completed`` (finished, not necessarily passing) or ``interrupted``
    (stopped early; resumable).
    """

    RUNNING = "running"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class Lease:
    """Who executes a running run, and when it last said it was alive.

    A process refreshes ``heartbeat_at`` every few seconds while it runs; a run whose
    heartbeat is older than the lease timeout, or whose owner process is gone, may be taken
    over by ``--resume``. ``token`` is random per process, so an owner that lost its lease
    can tell. ``started`` is when the owner process started, as its system tells it (on
    Linux, the boot id and the start time): a live process with the owner's pid but another
    start is not the owner, its pid was reused. ``None`` where that cannot be read (and for
    runs stored before it was recorded): then the pid alone is the owner.
    """

    host: str
    pid: int
    token: str
    heartbeat_at: datetime | None = None
    started: str | None = None

    def age(self, now: datetime) -> float | None:
        """Seconds since the last heartbeat (``None`` when there never was one)."""
        if self.heartbeat_at is None:
            return None
        return (now - self.heartbeat_at).total_seconds()

    def expired(self, now: datetime, timeout: float) -> bool:
        """Whether the heartbeat is older than ``timeout`` seconds (or missing)."""
        age = self.age(now)
        return age is None or age > timeout


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    """The judge's pick of the best model in a run, with its rationale."""

    model: str
    rationale: str
    judge: str


def lease_lapsed(
    lease: Lease | None,
    started_at: datetime,
    now: datetime,
    timeout: float,
    owner_alive: Callable[[Lease], bool | None],
) -> bool:
    """Whether a running run's owner is gone, so that the run may be taken over.

    ``owner_alive`` knows the owner process is gone, or, when it cannot tell (``None``: e.g.
    another host), the heartbeat (for a run from before leases, the start) is older than
    ``timeout`` seconds. An owner it knows is alive keeps the run whatever its heartbeat
    says: a process busy in C code cannot beat, yet it will go on writing.
    """
    if lease is None:
        return (now - started_at).total_seconds() > timeout
    alive = owner_alive(lease)
    if alive is True:
        return False
    return alive is False or lease.expired(now, timeout)


@dataclass(frozen=True, slots=True)
class CaseSnapshot:
    """A case as the run defined it: reports read this, never today's suite."""

    case_id: str = field(metadata={"key": "id"})
    name: str
    position: int
    fingerprint: str
    definition: dict[str, JSON]

    def __post_init__(self) -> None:
        for name in ("case_id", "fingerprint"):
            if not getattr(self, name):
                raise SpecError("must not be empty", field="id" if name == "case_id" else name)
        if self.position < 0:
            raise SpecError(f"must be 0 or more, not {self.position!r}", field="position")


@dataclass(frozen=True, slots=True)
class Run:
    """One execution of a suite: identity, settings, definition snapshot and results."""

    id: str
    suite: str
    agent: str
    fingerprint: str
    status: RunStatus
    started_at: datetime
    suite_version: str | None = None
    sequence: int | None = None
    finished_at: datetime | None = None
    settings: RunSettings = field(default_factory=RunSettings)
    metadata: dict[str, JSON] = field(default_factory=dict)
    cases: tuple[CaseSnapshot, ...] = ()
    #: In report order. A tuple, or (returned by a run) the same samples held packed.
    samples: Sequence[SampleResult] = ()
    summary: RunSummary | None = None
    #: Against the baseline and between the models, once completed.
    comparison: StoredComparison | None = None
    baseline_id: str | None = None
    #: Relations to other runs, e.g. ``{"control": {"pair": [first_id, second_id]}}``.
    links: dict[str, JSON] = field(default_factory=dict)
    #: The owner of a run while it is running (and of the last attempt, once it stopped).
    lease: Lease | None = None
    #: Why an interrupted run stopped, when that was recorded.
    error: str | None = None
    #: The judge's pick of the best model (two or more models and a judge), once completed.
    verdict: ModelVerdict | None = None
    #: Judge calls no sample owns (the verdict), accounted on the run.
    judge_usage: JudgeUsage | None = None
    #: What the run came to once completed: only a passing run is an automatic baseline.
    outcome: RunOutcome | None = None
    #: Which baseline the run was compared with, and why (or why with none).
    baseline_choice: BaselineChoice | None = None
    #: The run's trace and its judge calls no sample owns, when a tracer recorded them.
    traces: Traces | None = None
    #: Its position in its suite's history, oldest first (``suite#12``), once stored.
    number: int | None = None

    @property
    def rescored_from(self) -> str | None:
        """The id of the run this run grades again (``assay-agents rescore``), or ``None``."""
        found = self.links.get(RESCORED_FROM)
        return found if isinstance(found, str) and found else None

    @property
    def handle(self) -> str:
        """``suite#12``: the run by its number in its suite's history (its id when unnumbered)."""
        return self.id if self.number is None else f"{self.suite}#{self.number}"

    def case(self, case_id: str) -> CaseSnapshot | None:
        """The snapshot of one case, by id (to look up many, use :meth:`cases_by_id`)."""
        return next((snapshot for snapshot in self.cases if snapshot.case_id == case_id), None)

    def cases_by_id(self) -> dict[str, CaseSnapshot]:
        """Every case snapshot by id: one pass, for callers that look up each case."""
        found: dict[str, CaseSnapshot] = {}
        for snapshot in self.cases:
            found.setdefault(snapshot.case_id, snapshot)
        return found

    def with_samples(self, samples: Sequence[SampleResult]) -> Run:
        """The same run holding other samples."""
        return replace(self, samples=samples)


#: The link a rescored run carries to the run whose recorded behaviour it grades again.
RESCORED_FROM = "rescored_from"


def split_handle(ref: str) -> tuple[str, int] | None:
    """``("suite-name", 12)`` for the run reference ``suite-name#12``; ``None`` otherwise."""
    suite, mark, number = ref.rpartition("#")
    if not mark or not suite or not number.isascii() or not number.isdigit():
        return None
    return suite, int(number)
