"""Metering a judge: one record per answered call, handed to the caller's ``on_usage``.

A host that meters what its judge spends passes ``on_usage=fn`` to
:func:`assay_agents.judges.openai` (or :func:`assay_agents.judges.litellm`); ``fn`` gets a
:class:`JudgeCall` after each answered call. The callback is the host's code: an exception in it is
reported once per judge (on the progress display, else on stderr) and never changes a grade.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

#: What a judge call was for: grading a criterion, refining a recommendation, or the
#: run's pick of the best model.
JudgeCallKind: TypeAlias = Literal["score", "refine", "verdict"]

#: The longest text of a failing callback's error that a warning quotes.
_QUOTED = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeCall:
    """One answered judge call: what it was for, which model, its tokens, cost and latency.

    ``cost_usd`` is the provider's figure (LiteLLM's) or an estimate from the price list
    (``cost_estimated``), ``None`` when unpriced; ``latency_ms`` is the whole call, retries
    and their waits included.
    """

    kind: JudgeCallKind
    model: str
    judge: str
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    cost_estimated: bool
    latency_ms: float


#: A host's meter: called with each answered call.
UsageCallback: TypeAlias = Callable[[JudgeCall], object]

_kind: contextvars.ContextVar[JudgeCallKind] = contextvars.ContextVar(
    "assay_judge_call_kind", default="score"
)


@contextlib.contextmanager
def calling_for(kind: JudgeCallKind) -> Iterator[None]:
    """Judge calls made inside are for ``kind`` (the graders set it around their call)."""
    token = _kind.set(kind)
    try:
        yield
    finally:
        _kind.reset(token)


def call_kind() -> JudgeCallKind:
    """What the judge call in progress is for (``score`` unless a grader said otherwise)."""
    return _kind.get()


@dataclass(slots=True)
class Meter:
    """A judge's ``on_usage`` and whether its failure was already reported (once per judge)."""

    callback: UsageCallback
    label: str
    failed: bool = False

    def deliver(self, call: JudgeCall) -> None:
        """Hand ``call`` to the callback; report its first exception, never raise it."""
        try:
            self.callback(call)
        except Exception as error:
            if self.failed:
                return
            self.failed = True
            text = str(error)
            text = text if len(text) <= _QUOTED else text[:_QUOTED] + "…"
            _warn(
                f"warning: judge {self.label}: on_usage raised {type(error).__name__}: {text} "
                "(reported once; grades are unaffected)"
            )


def meter(on_usage: object, label: str) -> Meter | None:
    """The meter of ``on_usage`` (``None`` without one); a value that is no function is refused."""
    if on_usage is None:
        return None
    if not callable(on_usage):
        raise TypeError(f"on_usage must be a function of one JudgeCall, not {on_usage!r}")
    return Meter(on_usage, label)


def _warn(message: str) -> None:
    from assay_agents.judging.judge import wait_listener
    from assay_agents.text import one_line

    listener = wait_listener.get()
    if listener is not None:
        listener(one_line(message))
    else:
        print(one_line(message), file=sys.stderr)
