"""Retrying transient provider failures: bounded backoff honouring Retry-After, one deadline.

Every HTTP attempt is counted (:func:`assay_agents.judging.judge.count_attempt`), every wait is
reported (:func:`assay_agents.judging.judge.report_wait`), and one overall deadline bounds the
attempts and the waits together. Within :func:`sample_deadline` that deadline is shared by
every judge call of one sample, so a hanging endpoint costs a sample at most the deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from assay_agents.judging.judge import count_attempt, report_wait
from assay_agents.ratelimit import PaceKey, Pacer, current_pacer, rate_limit_of, retry_after

T = TypeVar("T")

__all__ = [
    "DEFAULT_JUDGE_TIMEOUT",
    "JudgeTimeout",
    "RetryPolicy",
    "retry_after",
    "sample_deadline",
    "with_retries",
]

#: The overall deadline of one sample's judging (one call outside :func:`sample_deadline`),
#: retries and waits included (``--judge-timeout``).
DEFAULT_JUDGE_TIMEOUT = 120.0


class JudgeTimeout(TimeoutError):
    """A judge call, retries and waits included, outlasted its deadline (``judge_timeout``).

    The vote records it as an error: a deadline is never a pass.
    """


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """At most ``attempts`` calls; waits ``base × 2^n`` seconds, capped at ``ceiling``.

    A server's Retry-After (or retry-after-ms) wins over the computed wait, up to the ceiling.
    """

    attempts: int = 4
    base: float = 0.5
    ceiling: float = 30.0


@dataclass(frozen=True, slots=True)
class _Deadline:
    seconds: float
    ends: float  # on the event loop's clock
    #: What the deadline bounds, when more than this one call (see sample_deadline).
    scope: str = ""

    def left(self) -> float:
        return self.ends - asyncio.get_running_loop().time()

    def reached(self) -> JudgeTimeout:
        return JudgeTimeout(
            f"no answer within the judge timeout of {self.seconds:g} s"
            f"{self.scope}, retries included (--judge-timeout)"
        )

    def too_far(self, error: BaseException, wait: float) -> JudgeTimeout:
        return JudgeTimeout(
            f"{_describe(error)}; retrying in {wait:.1f} s would pass the "
            f"judge timeout of {self.seconds:g} s{self.scope} (--judge-timeout)"
        )


@dataclass(slots=True)
class _SampleBudget:
    seconds: float | None = None
    ends: float | None = None


_sample_budget: contextvars.ContextVar[_SampleBudget | None] = contextvars.ContextVar(
    "assay_judge_sample_budget", default=None
)

_SAMPLE_SCOPE = " for the whole judging of the sample"


@contextlib.contextmanager
def sample_deadline() -> Iterator[None]:
    """Judge calls made inside (every criterion and vote of one sample) share one deadline.

    It is the first call's ``judge_timeout``, counted from that call's start: a hanging
    endpoint holds a sample for at most that, however many criteria and votes it has. A
    call that starts once the time is spent fails at once with :class:`JudgeTimeout`.
    """
    token = _sample_budget.set(_SampleBudget())
    try:
        yield
    finally:
        _sample_budget.reset(token)


def _deadline(seconds: float) -> _Deadline:
    now = asyncio.get_running_loop().time()
    budget = _sample_budget.get()
    if budget is None:
        return _Deadline(seconds, now + seconds)
    if budget.seconds is None or budget.ends is None:
        budget.seconds, budget.ends = seconds, now + seconds
    return _Deadline(budget.seconds, budget.ends, _SAMPLE_SCOPE)


async def with_retries(
    call: Callable[[], Awaitable[T]],
    transient: Callable[[BaseException], Mapping[str, str] | None],
    policy: RetryPolicy,
    label: str,
    *,
    deadline: float | None = None,
    key: PaceKey | None = None,
) -> T:
    """Run ``call``; when ``transient`` says an error is (giving its headers), wait and retry.

    ``deadline`` (seconds) bounds the attempts and the waits together: reaching it raises
    :class:`JudgeTimeout`, and a wait that would outlast it gives up at once. Inside
    :func:`sample_deadline` it bounds every call of the sample together instead.

    With ``key`` (the judge's ``(provider, model)``), inside a run each attempt holds one of
    that model's adaptive slots, and a rate limit lowers its concurrency, pauses it for the
    wait the server asked, and counts against the sample's rate-limit retries.
    """
    paced = _paced(key)
    if deadline is None:
        return await _attempts(call, transient, policy, label, None, paced)
    bound = _deadline(deadline)
    if bound.left() <= 0:
        raise bound.reached()
    scope = asyncio.timeout_at(bound.ends)
    try:
        async with scope:
            return await _attempts(call, transient, policy, label, bound, paced)
    except TimeoutError:
        if scope.expired():
            raise bound.reached() from None
        raise


async def _attempts(
    call: Callable[[], Awaitable[T]],
    transient: Callable[[BaseException], Mapping[str, str] | None],
    policy: RetryPolicy,
    label: str,
    deadline: _Deadline | None,
    paced: tuple[Pacer, PaceKey] | None = None,
) -> T:
    attempts = max(1, policy.attempts)
    for attempt in range(1, attempts + 1):
        count_attempt()
        started = 0.0 if paced is None else paced[0].now()
        try:
            return await _attempt(call, paced)
        except Exception as error:
            headers = transient(error)
            limit = None if paced is None else rate_limit_of(error)
            paced_wait = None
            if paced is not None and limit is not None:
                paced_wait = paced[0].limited(paced[1], limit, started)
                if paced_wait is None:
                    raise  # the sample's rate-limit retries are spent
            if headers is None or attempt == attempts:
                raise
            wait = _wait(headers, attempt, policy)
            if paced_wait is not None:
                wait = min(policy.ceiling, max(wait, paced_wait))
            if deadline is not None and wait >= deadline.left():
                raise deadline.too_far(error, wait) from error
            if paced is not None and limit is not None:
                await paced[0].wait(
                    paced[1],
                    wait,
                    limit.reason,
                    f"judge {paced[1][1]}",
                    f"HTTP {limit.status}, attempt {attempt + 1} of {attempts}",
                )
                continue
            report_wait(
                f"judge {label}: {_describe(error)}; retrying in {wait:.1f} s "
                f"(attempt {attempt + 1} of {attempts})"
            )
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _paced(key: PaceKey | None) -> tuple[Pacer, PaceKey] | None:
    pacer = None if key is None else current_pacer.get()
    return None if pacer is None or key is None else (pacer, key)


async def _attempt(call: Callable[[], Awaitable[T]], paced: tuple[Pacer, PaceKey] | None) -> T:
    if paced is None:
        return await call()
    pacer, key = paced
    async with pacer.slot(key):
        result = await call()
    pacer.succeeded(key)
    return result


def _wait(headers: Mapping[str, str], attempt: int, policy: RetryPolicy) -> float:
    told = retry_after(headers)
    computed = policy.base * 2 ** (attempt - 1)
    return max(0.0, min(policy.ceiling, told if told is not None else computed))


def _describe(error: BaseException) -> str:
    status = getattr(error, "status_code", None)
    return f"HTTP {status}" if status else type(error).__name__
