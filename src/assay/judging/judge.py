"""The judge protocol: a label plus one completion call, sync or async."""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A completion and, when the provider reported them, its tokens and cost."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cost_estimated: bool = False


@runtime_checkable
class Judge(Protocol):
    """Anything with a ``label`` and ``complete(instructions, prompt)``.

    ``complete`` returns the reply text (or a :class:`JudgeReply` with usage), sync or async.
    Each call is a fresh conversation: nothing carries over between assessments.
    """

    label: str

    def complete(self, instructions: str, prompt: str) -> Any:
        """Ask the judge model once."""
        ...


@dataclass(frozen=True, slots=True)
class FunctionJudge:
    """A judge made of a label and a function ``fn(instructions, prompt)``."""

    label: str
    function: Callable[[str, str], str | JudgeReply | Awaitable[str | JudgeReply]]

    def complete(self, instructions: str, prompt: str) -> Any:
        """Call the function."""
        return self.function(instructions, prompt)


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
