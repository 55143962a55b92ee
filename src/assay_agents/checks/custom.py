"""Custom checks: a function of the answer and the context, returning a verdict."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay_agents.checks import _values
from assay_agents.checks.base import Check, CheckContext, CheckError, Verdict

CustomFunction = Callable[[str | None, CheckContext], Any]


@dataclass(frozen=True, kw_only=True)
class Custom(Check):
    """A user function ``fn(answer, ctx)`` returning a bool, a score, or ``(score, reason)``.

    Sync or async. The function's source is not hashed: bump the suite's version when its
    logic changes.
    """

    category: str = "custom"  # type: ignore[misc]
    function: CustomFunction = field(repr=False, compare=False)
    factory: ClassVar[str] = "custom"
    _private: ClassVar[frozenset[str]] = frozenset({"function"})

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.category(self.name, self.category)
        if not callable(self.function):
            raise _values.refuse(
                self.name, f"function must be callable {_values.got(self.function)}"
            )

    def evaluate(self, ctx: CheckContext) -> Any:
        """Call the function; the runner awaits it when it is async."""
        result = self.function(ctx.answer, ctx)
        if inspect.isawaitable(result):
            return _await_verdict(result)
        return to_verdict(result)


async def _await_verdict(pending: Any) -> Verdict:
    return to_verdict(await pending)


def to_verdict(value: Any) -> Verdict:
    """Read what a custom function returned; anything unreadable is a check error."""
    if isinstance(value, Verdict):
        return value
    if isinstance(value, bool):
        return Verdict.of(value, "passed" if value else "failed")
    if isinstance(value, tuple) and len(value) == 2:
        score, reason = value
        if not isinstance(reason, str):
            raise CheckError(f"the reason must be a string, not {type(reason).__name__}")
        return Verdict(_score(score), reason)
    return Verdict(_score(value), f"scored {value}")


def _score(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CheckError(
            f"a custom check returns a bool, a score in [0, 1] or (score, reason); got {value!r}"
        )
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise CheckError(f"score {value!r} is outside [0, 1]")
    return float(value)
