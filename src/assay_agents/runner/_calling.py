"""Calling the agent and timing only the agent: from the moment it is invoked to its return.

A sync agent runs on a thread of its own, started when its sample's turn comes: its clock
and its timeout start when the thread does, never while it waits for a worker. A timed-out
sync agent cannot be killed; its daemon thread is left to finish on its own and never keeps
the process alive or holds up a later sample.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay_agents.startup import agent_work_ended, agent_work_started


@dataclass(frozen=True, slots=True)
class Timed:
    """What the agent returned (or raised) and how long it ran, in milliseconds."""

    value: Any
    error: BaseException | None
    elapsed_ms: float
    timed_out: bool = False


def is_async(agent: Callable[..., Any]) -> bool:
    """Whether calling ``agent`` gives a coroutine (a coroutine function or such an object)."""
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(
        getattr(agent, "__call__", None)  # noqa: B004 - an async __call__, not any callable
    )


async def call_timed(
    agent: Callable[..., Any], value: Any, context: Any, timeout: float | None
) -> Timed:
    """Call ``agent(value, context)``; whatever happens, a :class:`Timed` comes back."""
    if is_async(agent):
        return await _call_async(agent(value, context), timeout)
    timed = await _call_sync(agent, value, context, timeout)
    if timed.error is None and not timed.timed_out and inspect.isawaitable(timed.value):
        # A sync callable that hands back an awaitable: its time goes on while it runs.
        rest = await _call_async(
            timed.value, None if timeout is None else max(timeout - timed.elapsed_ms / 1000, 0.0)
        )
        return Timed(rest.value, rest.error, timed.elapsed_ms + rest.elapsed_ms, rest.timed_out)
    return timed


async def _call_async(awaitable: Any, timeout: float | None) -> Timed:
    if timeout is None:
        # In this very task: no extra layer on the hot path.
        return await _guarded(awaitable)
    # In a task of its own, so that an agent which swallows its cancellation cannot hold
    # the sample past its timeout: it is cancelled and left behind. _guarded catches what
    # it raises (SystemExit too), so nothing escapes the event loop from that task.
    started = time.perf_counter()
    task = asyncio.ensure_future(_guarded(awaitable))
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        _abandon(task)
        raise
    if task in done:
        timed = task.result()
        if timed.elapsed_ms / 1000 <= timeout:
            return timed
    else:
        _abandon(task)
    return Timed(None, None, _since(started), timed_out=True)


def _abandon(task: asyncio.Future[Timed]) -> None:
    """Cancel an agent's task and leave it: counted as agent work until it is done.

    An agent that swallows or takes its time over the cancellation may go on running after
    its sample, and its run, have ended.
    """
    task.cancel()
    if task.done():
        return
    _ABANDONED.add(task)
    task.add_done_callback(_ABANDONED.discard)
    agent_work_started()
    task.add_done_callback(lambda _: agent_work_ended())


#: Agent tasks cancelled at their timeout and still running: held so they are not
#: garbage-collected mid-flight.
_ABANDONED: set[asyncio.Future[Timed]] = set()


async def _guarded(awaitable: Any) -> Timed:
    started = time.perf_counter()
    try:
        result = await awaitable
    except (Exception, SystemExit) as error:
        return Timed(None, error, _since(started))
    return Timed(result, None, _since(started))


async def _call_sync(
    agent: Callable[..., Any], value: Any, context: Any, timeout: float | None
) -> Timed:
    loop = asyncio.get_running_loop()
    started: asyncio.Future[float] = loop.create_future()
    finished: asyncio.Future[Timed] = loop.create_future()
    # Context variables travel into the thread (per-sample replay relies on them).
    call = contextvars.copy_context().run

    def work() -> None:
        # Counted for as long as the thread lives (abandoned at its timeout, it may run on),
        # from before its sample learns that it started.
        agent_work_started()
        try:
            begun = time.perf_counter()
            _resolve(loop, started, begun)
            try:
                outcome = Timed(call(agent, value, context), None, _since(begun))
            except BaseException as error:  # SystemExit too: it is this sample's error
                outcome = Timed(None, error, _since(begun))
            _resolve(loop, finished, outcome)
        finally:
            agent_work_ended()

    threading.Thread(target=work, name="assay-agent", daemon=True).start()
    begun = await started
    remaining = None if timeout is None else max(timeout - (time.perf_counter() - begun), 0.0)
    try:
        async with asyncio.timeout(remaining):
            return await asyncio.shield(finished)
    except TimeoutError:
        return Timed(None, None, _since(begun), timed_out=True)


def _resolve(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], value: Any) -> None:
    def settle() -> None:
        if not future.done():
            future.set_result(value)

    # RuntimeError: the loop closed while an abandoned agent was still running.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle)


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def accepting_context(agent: Callable[..., Any]) -> Callable[..., Any]:
    """``agent`` as a ``(input, ctx)`` callable: one that takes the input alone gets only it.

    ``def agent(question)`` is a natural first agent; it is called with the input, not
    refused with a ``TypeError`` on every sample. Any other signature is used as it is.
    """
    if _positional_arity(agent) != 1:
        return agent
    if is_async(agent):

        async def input_only_async(value: Any, context: Any) -> Any:
            return await agent(value)

        return input_only_async

    def input_only(value: Any, context: Any) -> Any:
        return agent(value)

    return input_only


def _positional_arity(agent: Callable[..., Any]) -> int | None:
    """How many positional arguments ``agent`` takes, or ``None`` when it takes any number."""
    try:
        parameters = inspect.signature(agent).parameters.values()
    except (TypeError, ValueError):  # a builtin or an extension without a signature
        return None
    positional = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if parameter.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            positional += 1
    return positional
