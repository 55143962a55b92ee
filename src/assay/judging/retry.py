"""Retrying transient provider failures: bounded exponential backoff honouring Retry-After."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from assay.judging.judge import report_wait

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """At most ``attempts`` calls; waits ``base × 2^n`` seconds, capped at ``ceiling``.

    A server's Retry-After (or retry-after-ms) wins over the computed wait, up to the ceiling.
    """

    attempts: int = 4
    base: float = 0.5
    ceiling: float = 30.0


async def with_retries(call: Callable[[], Awaitable[T]],
                       transient: Callable[[BaseException], Mapping[str, str] | None],
                       policy: RetryPolicy, label: str) -> T:
    """Run ``call``; when ``transient`` says an error is (giving its headers), wait and retry."""
    for attempt in range(1, policy.attempts + 1):
        try:
            return await call()
        except Exception as error:
            headers = transient(error)
            if headers is None or attempt == policy.attempts:
                raise
            wait = _wait(headers, attempt, policy)
            report_wait(f"judge {label}: {_describe(error)}; retrying in {wait:.1f} s "
                        f"(attempt {attempt + 1} of {policy.attempts})")
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _wait(headers: Mapping[str, str], attempt: int, policy: RetryPolicy) -> float:
    told = retry_after(headers)
    computed = policy.base * 2 ** (attempt - 1)
    return min(policy.ceiling, told if told is not None else computed)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a server asked to wait: ``retry-after-ms``, or ``retry-after`` (seconds/date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def _describe(error: BaseException) -> str:
    status = getattr(error, "status_code", None)
    return f"HTTP {status}" if status else type(error).__name__
