"""The judge protocol: a label plus one completion call, sync or async.

A judge is a port of the evaluation: whatever answers ``complete(instructions, prompt)``
will do, so a cache, a meter or a rate limiter is a judge that wraps another. The two
strings are all a judge is ever given (built from a :class:`~assay_agents.judging.JudgeInput`
when grading), which also makes them a complete cache key.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A completion and, when the provider reported them, its tokens and cost."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cost_estimated: bool = False
    #: Served from a cache: no call was made, so it cost nothing (see
    #: :mod:`assay_agents.judging.cache`).
    cached: bool = False


#: What ``complete`` returns: the reply text, or a :class:`JudgeReply` with its usage,
#: directly or awaitable (an ``async def complete`` returns a coroutine of either).
JudgeCompletion: TypeAlias = str | JudgeReply | Awaitable[str | JudgeReply]


@runtime_checkable
class Judge(Protocol):
    """Anything with a ``label`` and ``complete(instructions, prompt)``.

    ``complete`` returns the reply text (or a :class:`JudgeReply` with usage), sync or async.
    Each call is a fresh conversation: nothing carries over between assessments.

    A judge that wraps another sets ``__wrapped__`` to it (as :func:`functools.wraps` does):
    it then has the wrapped judge's identity (:func:`judge_identity`), unless it says
    otherwise with an ``identity()`` method of its own; the evaluation prepares the
    wrapped judge too. A judge may also offer ``prepare()`` (set-up run once, off the event
    loop, before any sample), ``endpoint()`` (the host it calls, for its identity) and
    ``endpoint_url()`` (the whole endpoint without credentials, for cache keys: see
    :mod:`assay_agents.judging.cache`).
    """

    label: str

    def complete(self, instructions: str, prompt: str) -> JudgeCompletion:
        """Ask the judge model once."""
        ...


@dataclass(frozen=True, slots=True)
class FunctionJudge:
    """A judge made of a label and a function ``fn(instructions, prompt)``."""

    label: str
    function: Callable[[str, str], JudgeCompletion]

    def complete(self, instructions: str, prompt: str) -> JudgeCompletion:
        """Call the function."""
        return self.function(instructions, prompt)


def judge_identity(judge: Judge) -> str:
    """Which judge grades, as stored on a run: runs graded by different judges compare apart.

    The judge's own ``identity()`` when it has one; else, for a judge wrapping another
    (``__wrapped__``: a cache, a meter), the wrapped judge's; else its label, with the host
    of its endpoint when it has one of its own. Runs graded by one model behind different
    endpoints are not comparable for judge metrics, so the endpoint is part of the identity.
    """
    chain = judge_chain(judge)
    for part in chain:
        identity = getattr(part, "identity", None)
        if callable(identity):
            return str(identity())
    innermost = chain[-1]
    label = str(getattr(innermost, "label", ""))
    endpoint = getattr(innermost, "endpoint", None)
    host = endpoint() if callable(endpoint) else None
    return f"{label} @ {host}" if host else label


def judge_chain(judge: Judge) -> list[Judge]:
    """The judge, then the judge it wraps, and so on (each is prepared before a run)."""
    chain = [judge]
    while (inner := getattr(chain[-1], "__wrapped__", None)) is not None:
        if any(inner is seen for seen in chain):
            break  # a wrapper that wraps itself: its own end
        chain.append(inner)
    return chain


async def ask(judge: Judge, instructions: str, prompt: str) -> JudgeReply:
    """Call the judge once and normalise what it returned."""
    result = judge.complete(instructions, prompt)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, JudgeReply):
        return result
    if isinstance(result, str):
        return JudgeReply(result)
    raise TypeError(f"the judge returned {type(result).__name__}, not text")


#: Where a judge reports that it is waiting before a retry (the progress display listens).
wait_listener: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "assay_judge_wait_listener", default=None
)


def report_wait(message: str) -> None:
    """Tell whoever is displaying progress that a judge call is waiting to retry."""
    listener = wait_listener.get()
    if listener is not None:
        listener(message)


@dataclass(slots=True)
class AttemptCount:
    """HTTP attempts made for one judge call: retries included, never fewer than recorded."""

    made: int = 0


_attempts: contextvars.ContextVar[AttemptCount | None] = contextvars.ContextVar(
    "assay_judge_attempts", default=None
)


@contextlib.contextmanager
def counting_attempts() -> Iterator[AttemptCount]:
    """Count the attempts a judge makes while answering one call (see :func:`count_attempt`).

    The count is a mutable object, so attempts made in tasks the judge starts are counted too.
    """
    count = AttemptCount()
    token = _attempts.set(count)
    try:
        yield count
    finally:
        _attempts.reset(token)


def count_attempt() -> None:
    """Record one HTTP attempt of the judge call in progress (retrying judges call this)."""
    count = _attempts.get()
    if count is not None:
        count.made += 1
