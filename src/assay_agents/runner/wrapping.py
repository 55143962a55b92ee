"""A caller's wrapper around each sample: a context manager (sync or async) per sample.

``around_sample(ctx)`` is called with the sample's :class:`~assay.AgentContext` and returns a
context manager (``with``) or an async one (``async with``); the agent, the checks, the
judging and the diagnosis of that sample run inside it, in the sample's own task, so context
it sets (a trace, a tenant, a log field) is the agent's and the judge's too. What it raises,
entering or leaving, becomes that sample's error: the run goes on.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay_agents.agent import AgentContext
from assay_agents.results import SampleResult, decide_status
from assay_agents.results.storable import storable
from assay_agents.results.tracebacks import TRACEBACK_KEY
from assay_agents.runner._traceback import user_traceback
from assay_agents.runner.hooks import SampleCall

#: What ``around_sample`` is: called with the sample's context, it returns a context manager.
SampleWrapper = Callable[[AgentContext], Any]


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A sample's result, and whether the wrapper around it failed (then it is an error)."""

    result: SampleResult
    failed: bool


async def wrapped(
    wrapper: SampleWrapper, ctx: AgentContext, model: str | None, call: SampleCall
) -> Wrapped:
    """Execute ``call()`` inside ``wrapper(ctx)``; a wrapper's exception is the sample's error."""
    result: SampleResult | None = None
    try:
        async with contextlib.AsyncExitStack() as stack:
            manager = wrapper(ctx)
            if callable(getattr(manager, "__aenter__", None)):
                await stack.enter_async_context(manager)
            elif callable(getattr(manager, "__enter__", None)):
                stack.enter_context(manager)
            else:
                raise TypeError(f"it returned {type(manager).__name__}, not a context manager")
            result = await call()
    except Exception as error:
        return Wrapped(_failed(ctx, model, result, error), failed=True)
    return Wrapped(result, failed=False)


def _failed(
    ctx: AgentContext, model: str | None, result: SampleResult | None, error: Exception
) -> SampleResult:
    stage = "before the sample" if result is None else "after the sample"
    message = f"around_sample failed {stage}: {type(error).__name__}: {error}"
    trace = user_traceback(error)
    if result is None:
        result = SampleResult(
            case_id=ctx.case.id, model=model, sample=ctx.sample, status=decide_status(message, ())
        )
    else:
        # What the agent did stays as evidence; its fault is diagnosed again for the error.
        message = message if result.error is None else f"{message}\n{result.error}"
    metadata = dict(result.metadata)
    if trace is not None:
        metadata.setdefault(TRACEBACK_KEY, trace)
    return storable(
        dataclasses.replace(
            result,
            error=message,
            status=decide_status(message, result.metrics),
            metadata=metadata,
            fault=None,
            recommendation=None,
            diagnosis=None,
        )
    )
