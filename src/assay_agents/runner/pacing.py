"""Adaptive concurrency per (provider, model): halve on a rate limit, climb by one after a window.

:class:`AdaptiveLimit` is the state machine, pure and driven by the clock readings it is
given. :class:`Pacing` puts one in front of each model's samples (and each judge model's
calls), waits out the ``Retry-After`` a server asks for, and keeps each sample's account:
its rate-limit retries (bounded), the seconds it waited and the adjustments its calls caused.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from assay_agents.ratelimit import PaceKey, RateLimit, rate_limit_of
from assay_agents.results.pacing import Adjustment, SamplePacing

#: Successes in a row after which a model's concurrency climbs by one.
DEFAULT_WINDOW = 10
#: A rate limit multiplies the concurrency by this (rounded down, never under the floor).
DROP_FACTOR = 0.5
#: Rate-limit retries one sample may make, its agent's and its judge's calls together.
DEFAULT_RATE_LIMIT_RETRIES = 6
#: The longest wait before a retry, whatever a server asked (seconds).
MAX_WAIT = 60.0
#: The wait before a retry when the server named none: this, doubled each retry (seconds).
FIRST_WAIT = 0.5

#: Which limiter a call is gated by: the samples of a model, or a judge model's calls.
Role = str
AGENT: Role = "agent"
JUDGE: Role = "judge"
#: The key of samples run without a model.
NO_MODEL: PaceKey = ("", "")


@dataclass(frozen=True, kw_only=True, slots=True)
class Adaptive:
    """How concurrency adapts: its floor and ceiling, and the retries a sample may make.

    ``ceiling`` None is the starting value: a model never runs more samples at once than
    configured, it only recovers after a drop. ``window`` is the successes in a row that
    earn one more.
    """

    floor: int = 1
    ceiling: int | None = None
    retries: int = DEFAULT_RATE_LIMIT_RETRIES
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True, slots=True)
class Change:
    """A limit moved from ``before`` to ``after``, for ``reason``."""

    before: int
    after: int
    reason: str


@dataclass(slots=True)
class AdaptiveLimit:
    """Calls allowed in flight at once for one model, adapting to what the provider says.

    A rate limit drops the limit to ``limit × 0.5`` (never under ``floor``) and pauses new
    calls until the wait the server asked has passed; calls already in flight when it
    dropped do not drop it again. ``window`` successes in a row raise it by one, up to
    ``ceiling``. Every method takes the current time: the machine has no clock of its own.
    """

    limit: int
    floor: int = 1
    ceiling: int = 1
    window: int = DEFAULT_WINDOW
    in_flight: int = 0
    streak: int = 0
    paused_until: float = -math.inf
    dropped_at: float = -math.inf

    def __post_init__(self) -> None:
        self.ceiling = max(self.ceiling, self.floor)
        self.limit = min(max(self.limit, self.floor), self.ceiling)

    def ready(self, now: float) -> float:
        """0 when a call may start now; else the seconds to wait (``inf``: until one ends)."""
        if now < self.paused_until:
            return self.paused_until - now
        return 0.0 if self.in_flight < self.limit else math.inf

    def take(self) -> None:
        """A call starts."""
        self.in_flight += 1

    def give(self) -> None:
        """A call ended."""
        self.in_flight = max(0, self.in_flight - 1)

    def succeeded(self) -> Change | None:
        """A call succeeded: after ``window`` in a row, one more is allowed (to the ceiling)."""
        self.streak += 1
        if self.streak < self.window or self.limit >= self.ceiling:
            return None
        self.streak = 0
        self.limit += 1
        return Change(self.limit - 1, self.limit, f"{self.window} successes")

    def limited(self, now: float, started: float, wait: float | None, reason: str) -> Change | None:
        """A call started at ``started`` was refused at ``now``; the server asked ``wait`` s."""
        self.streak = 0
        if wait:
            self.paused_until = max(self.paused_until, now + wait)
        if started < self.dropped_at:
            return None  # in flight under the limit that was already dropped
        self.dropped_at = now
        after = max(self.floor, int(self.limit * DROP_FACTOR))
        if after == self.limit:
            return None
        before, self.limit = self.limit, after
        return Change(before, after, reason)


@dataclass(slots=True)
class _Account:
    """One sample's pacing while it runs."""

    key: PaceKey
    shown: str
    label: str
    budget: int
    retries: int = 0
    waited: float = 0.0
    adjustments: list[Adjustment] = field(default_factory=list)
    #: The rate limit the agent itself raised in the attempt just made.
    raised: RateLimit | None = None

    def take_raised(self) -> RateLimit | None:
        """The rate limit the last attempt's agent raised, if any (forgotten once taken)."""
        raised, self.raised = self.raised, None
        return raised

    def record(self) -> SamplePacing | None:
        made = SamplePacing(self.retries, round(self.waited, 3), tuple(self.adjustments))
        return None if made.empty else made


class _Waiter:
    """One task waiting for a slot: woken when one may be free, or after a pause."""

    __slots__ = ("_future",)

    def __init__(self) -> None:
        self._future: asyncio.Future[None] | None = None

    async def sleep(self, timeout: float | None) -> None:
        self._future = asyncio.get_running_loop().create_future()
        if timeout is None:
            await self._future
        else:
            await asyncio.wait({self._future}, timeout=timeout)
        self._future = None

    def wake(self) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_result(None)


_account: contextvars.ContextVar[_Account | None] = contextvars.ContextVar(
    "assay_sample_pacing", default=None
)


def note_agent_error(error: BaseException) -> None:
    """The agent raised ``error``: when it is a rate limit, the sample may be run again."""
    account = _account.get()
    if account is not None:
        account.raised = rate_limit_of(error)


def waiting_message(seconds: float, why: str, shown: str) -> str:
    """``waiting 12 s, rate limited (gpt-4.1-mini)``: what the progress display says."""
    amount = f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.1f}".removesuffix(".0")
    return f"waiting {amount} s, {why} ({shown})"


class Pacing:
    """The adaptive limits of one run, and the :class:`~assay_agents.ratelimit.Pacer` its calls use.

    ``start`` is each model's starting concurrency. ``clock`` (monotonic seconds), ``wall``
    (the time adjustments are stamped with) and ``sleep`` are injectable for tests.
    """

    def __init__(
        self,
        start: int,
        adaptive: Adaptive | None = None,
        *,
        note: Callable[[str], None] = lambda message: None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = lambda: datetime.now(UTC),
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.adaptive = adaptive or Adaptive()
        self.start = start
        self._note = note
        self._clock = clock
        self._wall = wall
        self._sleep = sleep
        self._limits: dict[tuple[Role, PaceKey], AdaptiveLimit] = {}
        self._names: dict[tuple[Role, PaceKey], str] = {}
        self._queues: dict[tuple[Role, PaceKey], collections.deque[_Waiter]] = {}
        #: Every adjustment, in order (those no sample owns too: the verdict's judge calls).
        self.adjustments: list[Adjustment] = []

    def limit(self, role: Role, key: PaceKey) -> AdaptiveLimit:
        """The limit of ``key`` in ``role``, made at the starting value on first use."""
        found = self._limits.get((role, key))
        if found is None:
            ceiling = self.adaptive.ceiling or self.start
            found = AdaptiveLimit(
                self.start, self.adaptive.floor, ceiling, window=self.adaptive.window
            )
            self._limits[(role, key)] = found
        return found

    def now(self) -> float:
        """The pacing clock (monotonic seconds)."""
        return self._clock()

    # -- the samples of a model (the runner) ----------------------------------------------

    @contextlib.contextmanager
    def sample(self, key: PaceKey, label: str, shown: str) -> Iterator[_Account]:
        """Account for one sample of ``key`` (its attempts are gated by :meth:`attempt`)."""
        self._names.setdefault((AGENT, key), label)
        account = _Account(key, shown, label, self.adaptive.retries)
        token = _account.set(account)
        try:
            yield account
        finally:
            _account.reset(token)

    def attempt(self, key: PaceKey) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold one of the model's sample slots while an attempt runs."""
        return self._held((AGENT, key))

    def retry(self, account: _Account, raised: RateLimit, started: float) -> float | None:
        """After an attempt whose agent raised ``raised``: the wait, None when spent."""
        return self._limited((AGENT, account.key), raised, started, account)

    def attempt_succeeded(self, key: PaceKey) -> None:
        """An attempt ended without a rate limit of its agent's."""
        self._succeeded((AGENT, key))

    # -- the Pacer port (chat adapters, judges) --------------------------------------------

    def slot(self, key: PaceKey) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold one of a judge model's call slots."""
        self._names.setdefault((JUDGE, key), f"judge {key[1]}")
        return self._held((JUDGE, key))

    def limited(self, key: PaceKey | None, limit: RateLimit, started: float) -> float | None:
        """A call was refused for its rate: adapt, and say how long to wait (None: give up)."""
        account = _account.get()
        if key is None:
            where = (AGENT, NO_MODEL if account is None else account.key)
        else:
            where = (JUDGE, key)
        return self._limited(where, limit, started, account)

    def succeeded(self, key: PaceKey) -> None:
        """A judge call succeeded."""
        self._succeeded((JUDGE, key))

    def retried(self) -> bool:
        """Whether the sample may retry another transient failure (counted when it may)."""
        account = _account.get()
        if account is None or account.retries >= account.budget:
            return False
        account.retries += 1
        return True

    async def wait(
        self, key: PaceKey | None, seconds: float, why: str, shown: str, detail: str = ""
    ) -> None:
        """Say what is waited for (and ``detail``, after a semicolon), then wait."""
        message = waiting_message(seconds, why, shown)
        self._note(f"{message}; {detail}" if detail else message)
        account = _account.get()
        if account is not None:
            account.waited += seconds
        await self._sleep(seconds)

    # -- the machinery ----------------------------------------------------------------------

    def _limited(
        self,
        where: tuple[Role, PaceKey],
        limit: RateLimit,
        started: float,
        account: _Account | None,
    ) -> float | None:
        state = self.limit(*where)
        now = self.now()
        wait = None if limit.wait is None else min(limit.wait, MAX_WAIT)
        self._adjusted(where, state.limited(now, started, wait, limit.reason), account)
        if account is None:
            # A call no sample owns (the run's verdict): a judge's own policy bounds its
            # attempts; anything else is not retried here.
            retry = 1
            if where[0] != JUDGE:
                return None
        elif account.retries >= account.budget:
            return None
        else:
            account.retries += 1
            retry = account.retries
        backoff = min(MAX_WAIT, FIRST_WAIT * 2 ** (retry - 1))
        return max(wait if wait is not None else backoff, state.paused_until - now, 0.0)

    def _succeeded(self, where: tuple[Role, PaceKey]) -> None:
        self._adjusted(where, self.limit(*where).succeeded(), _account.get())
        self._wake(where)

    def _adjusted(
        self, where: tuple[Role, PaceKey], change: Change | None, account: _Account | None
    ) -> None:
        if change is None:
            return
        name = self._names.get(where) or (where[1][1] or "the agent")
        made = Adjustment(self._wall(), name, change.before, change.after, change.reason)
        self.adjustments.append(made)
        if account is not None:
            account.adjustments.append(made)

    def _held(self, where: tuple[Role, PaceKey]) -> _Slot:
        return _Slot(self, where)

    def _release(self, where: tuple[Role, PaceKey]) -> None:
        self.limit(*where).give()
        self._wake(where)

    async def _acquire(self, where: tuple[Role, PaceKey]) -> None:
        """Take a slot, first come first served (as a semaphore: with 1, in order)."""
        state = self.limit(*where)
        queue = self._queues.setdefault(where, collections.deque())
        if not queue and state.ready(self.now()) == 0:
            state.take()
            return
        me = _Waiter()
        queue.append(me)
        try:
            while True:
                wait = state.ready(self.now()) if queue[0] is me else math.inf
                if wait == 0:
                    queue.popleft()
                    state.take()
                    self._wake(where)  # the next in line may fit too
                    return
                await me.sleep(None if math.isinf(wait) else wait)
        except BaseException:
            if me in queue:
                queue.remove(me)
                self._wake(where)
            raise

    def _wake(self, where: tuple[Role, PaceKey]) -> None:
        queue = self._queues.get(where)
        if queue:
            queue[0].wake()


class _Slot:
    """One slot of a limit, held for an ``async with`` (a class: one per attempt and call)."""

    __slots__ = ("_pacing", "_where")

    def __init__(self, pacing: Pacing, where: tuple[Role, PaceKey]) -> None:
        self._pacing = pacing
        self._where = where

    async def __aenter__(self) -> None:
        await self._pacing._acquire(self._where)

    async def __aexit__(self, *exited: object) -> None:
        self._pacing._release(self._where)
