"""Recognising a provider's rate limit, and the port a rate-limited call reports through.

An HTTP 429 (rate limited) or 503/529 (overloaded), from the ``openai`` client, LiteLLM, an
``httpx`` response or anything shaped like them, is a :class:`RateLimit` with the wait the
server asked for (``Retry-After`` in seconds or as a date, ``retry-after-ms``, or the
``x-ratelimit-reset-*`` headers). A run installs a :class:`Pacer` (the runner's adaptive
concurrency); a chat adapter or a judge calls through :func:`paced`, which tells it of every
rate limit and success and waits as it says. Outside a run there is no pacer and a call is
made as it is.
"""

from __future__ import annotations

import contextvars
import email.utils
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC
from typing import Protocol, TypeVar

T = TypeVar("T")

#: The statuses that mean "slow down": rate limited, service unavailable, overloaded.
RATE_LIMIT_STATUSES = {429: "rate limited", 503: "overloaded", 529: "overloaded"}

#: A rate limit's scope: ``(provider, model)``.
PaceKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A call refused for its rate: the HTTP status and the seconds the server asked to wait."""

    status: int
    wait: float | None = None

    @property
    def reason(self) -> str:
        """``rate limited`` (429) or ``overloaded`` (503, 529)."""
        return RATE_LIMIT_STATUSES.get(self.status, "rate limited")


def rate_limit_of(error: BaseException) -> RateLimit | None:
    """The rate limit ``error`` (or an error it was raised from) reports, None for others.

    Duck-typed, so no client is imported: ``openai.RateLimitError`` and ``APIStatusError``,
    LiteLLM's errors and ``httpx.HTTPStatusError`` all carry a status and a response.
    """
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(seen) < 5 and not any(current is s for s in seen):
        seen.append(current)
        status = _status(current)
        if status in RATE_LIMIT_STATUSES:
            response = getattr(current, "response", None)
            headers = getattr(response, "headers", None)
            return RateLimit(status, server_wait(headers) if headers is not None else None)
        current = current.__cause__ or current.__context__
    return None


def _status(error: BaseException) -> int | None:
    for value in (
        getattr(error, "status_code", None),
        getattr(getattr(error, "response", None), "status_code", None),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def server_wait(headers: object) -> float | None:
    """Seconds the server asked to wait: ``Retry-After`` first, then the reset headers."""
    try:
        pairs = dict(headers.items()) if hasattr(headers, "items") else {}
    except Exception:  # a mapping that cannot be read asks for nothing
        return None
    told = retry_after(pairs)
    return told if told is not None else reset_after(pairs)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a server asked to wait: ``retry-after-ms``, or ``retry-after`` (seconds/date).

    Never raises: a value of no usable shape (empty, garbage, NaN) is ``None``, as if not
    sent; a negative wait or a date in the past is 0; a huge one is returned as it is, for
    the caller's ceiling (and deadline) to bound.
    """
    lowered = {str(key).lower(): str(value).strip() for key, value in headers.items()}
    milliseconds = _number(lowered.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = lowered.get("retry-after")
    if not value:
        return None
    seconds = _number(value)
    return seconds if seconds is not None else _until(value)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def reset_after(headers: Mapping[str, str]) -> float | None:
    """Seconds until the exhausted limit resets (``x-ratelimit-reset-requests``/``-tokens``).

    OpenAI writes them as durations (``1s``, ``6m0s``, ``20ms``); a plain number is seconds.
    A limit whose ``x-ratelimit-remaining-*`` is not 0 is not the one exhausted: when some
    say 0, only theirs count; the longest wait wins.
    """
    lowered = {str(key).lower(): str(value).strip() for key, value in headers.items()}
    waits: dict[str, float] = {}
    for kind in ("requests", "tokens"):
        seconds = _duration(lowered.get(f"x-ratelimit-reset-{kind}"))
        if seconds is not None:
            waits[kind] = seconds
    exhausted = [k for k in waits if lowered.get(f"x-ratelimit-remaining-{k}") == "0"]
    chosen = [waits[k] for k in exhausted] or list(waits.values())
    return max(chosen) if chosen else None


def _duration(text: str | None) -> float | None:
    if not text:
        return None
    plain = _number(text)
    if plain is not None:
        return plain
    parts = _DURATION.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(amount) * scale[unit] for amount, unit in parts)


def _number(text: str | None) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else max(0.0, value)


def _until(text: str) -> float | None:
    try:
        moment = email.utils.parsedate_to_datetime(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return max(0.0, moment.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError, IndexError, OSError):
        return None


def _failure(error: BaseException) -> str:
    """``HTTP 500``, or the error's type (``APIConnectionError``)."""
    status = _status(error)
    return f"HTTP {status}" if status is not None else type(error).__name__


class Pacer(Protocol):
    """What a run's adaptive concurrency offers the calls made inside it.

    ``key`` is the ``(provider, model)`` a call goes to; ``None`` is the model of the sample
    the call is made for (a chat adapter's calls), whose samples the runner already gates.
    """

    def now(self) -> float:
        """The pacer's clock, in seconds (monotonic)."""
        ...

    def slot(self, key: PaceKey) -> AbstractAsyncContextManager[None]:
        """Hold one of the calls of ``key`` allowed in flight at once."""
        ...

    def limited(self, key: PaceKey | None, limit: RateLimit, started: float) -> float | None:
        """A call started at ``started`` was refused: the seconds to wait, None to give up."""
        ...

    def succeeded(self, key: PaceKey) -> None:
        """A call of ``key`` succeeded (a gated one)."""
        ...

    def retried(self) -> bool:
        """Whether one more retry of another transient failure is allowed (and count it)."""
        ...

    async def wait(
        self, key: PaceKey | None, seconds: float, why: str, shown: str, detail: str = ""
    ) -> None:
        """Wait ``seconds`` before a retry, saying so: ``waiting 12 s, rate limited (model)``.

        ``detail`` follows, after a semicolon (``attempt 2 of 4``).
        """
        ...


#: The pacer of the run in progress, when one is (set by the runner).
current_pacer: contextvars.ContextVar[Pacer | None] = contextvars.ContextVar(
    "assay_pacer", default=None
)

#: Backoff before retrying a transient failure that is not a rate limit (5xx, a dropped
#: connection), in seconds, doubled each time.
BACKOFF = 0.5


async def paced(
    call: Callable[[], Awaitable[T]],
    *,
    key: PaceKey | None,
    shown: str,
    transient: Callable[[BaseException], bool] = lambda error: False,
) -> T:
    """Make ``call`` under the run's pacer: rate limits waited out and retried, as it says.

    With a ``key`` each attempt holds one of its slots (a judge's calls); with ``None`` the
    call is the sample's own (a chat adapter's), already gated by the runner. Other errors
    ``transient`` accepts are retried with a short backoff while the sample may retry.
    Without a pacer (outside a run) the call is made once, as it is.
    """
    pacer = current_pacer.get()
    if pacer is None:
        return await call()
    failures = 0
    while True:
        started = pacer.now()
        try:
            if key is None:
                result = await call()
            else:
                async with pacer.slot(key):
                    result = await call()
        except Exception as error:
            limit = rate_limit_of(error)
            if limit is not None:
                wait = pacer.limited(key, limit, started)
                if wait is None:
                    raise
                await pacer.wait(key, wait, limit.reason, shown)
                continue
            if not transient(error) or not pacer.retried():
                raise
            failures += 1
            await pacer.wait(key, BACKOFF * 2 ** (failures - 1), _failure(error), shown)
            continue
        if key is not None:
            pacer.succeeded(key)
        return result
