"""The harness: what an application writes once so that file suites can run against it.

Everything that varies between applications lives in the harness: seeding a fresh world
from a case's ``setup`` into the application's own domain, handing back the agent to run,
and reading afterwards what the turn recorded in the application's own storage. Everything
that must not vary (sampling, assertions, judging, reports) belongs to Assay.

>>> class TripHarness:
...     def start(self, case, sample):           # a fresh world per sample
...         return TripAssistant(seed_database(case.setup), sample=sample)
...     def observe(self, agent):                # read back from storage, after the turn
...         return {"commands": agent.db.commands(), "events": agent.db.events(),
...                 "truncated": False}
>>> suite = assay.Suite("trip", agent=assay.harness_agent(TripHarness()))  # doctest: +SKIP

The sample index is handed to ``start`` on purpose: a harness driving a scripted model can
answer differently per sample and exercise variance with no network at all.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from assay_agents.agent.context import AgentContext
from assay_agents.agent.outcome import Observation, Outcome, coerce_outcome
from assay_agents.errors import SpecError
from assay_agents.spec import Case


@runtime_checkable
class Harness(Protocol):
    """Seeds a world per sample and reads back what the turn recorded.

    Methods may be sync or async. ``start`` returns the agent (any Assay agent callable);
    ``observe`` is given that same agent after the turn and returns a mapping of channel
    names to lists (plus ``truncated``) or an :class:`~assay.Observation`. An optional
    ``stop(agent)`` is always called last, to release the world.
    """

    def start(self, case: Case, sample: int) -> Any:
        """Seed a fresh world from ``case.setup`` and return the agent for this sample."""
        ...

    def observe(self, agent: Any) -> Any:
        """Read the observation the turn left in the application's storage."""
        ...


@dataclass(frozen=True, slots=True)
class HarnessAgent:
    """An Assay agent that runs one sample through a :class:`Harness`.

    ``max_observed`` is a ceiling on the items read per channel. It is never silent: a
    channel holding more is cut there and the observation marked truncated, so every
    assertion reading it fails rather than passing over what nobody read.
    """

    harness: Any
    max_observed: int | None = None

    def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """Start a world, run the agent in it, observe, and stop the world."""
        agent = _settle(self.harness.start(ctx.case, ctx.sample))
        if not callable(agent):
            raise SpecError(f"the harness's start() returned {agent!r}, not an agent")
        try:
            outcome = coerce_outcome(_settle(agent(value, ctx)))
            if outcome.error is not None:
                return outcome
            observed = _observation(_settle(self.harness.observe(agent)))
        finally:
            stop = getattr(self.harness, "stop", None)
            if callable(stop):
                _settle(stop(agent))
        if outcome.observation is not None:
            raise SpecError(
                "both the agent and the harness reported an observation; "
                "let the harness read it from storage"
            )
        return replace(outcome, observation=self._ceiling(observed))

    def _ceiling(self, observed: Observation) -> Observation:
        limit = self.max_observed
        if limit is None or all(len(items) <= limit for items in observed.channels.values()):
            return observed
        cut = {name: items[:limit] for name, items in observed.channels.items()}
        return Observation(channels=cut, truncated=True, bound=f"max_observed={limit}")


def harness_agent(harness: Any, *, max_observed: int | None = None) -> HarnessAgent:
    """Wrap a :class:`Harness` as the agent of a suite.

    Each sample runs in the worker thread Assay gives sync agents; async harness methods or
    agents run to completion on an event loop of that sample's own.
    """
    for method in ("start", "observe"):
        if not callable(getattr(harness, method, None)):
            raise SpecError(
                f"{harness!r} is not a harness: it needs start(case, sample) and observe(agent)",
                field="harness",
            )
    if max_observed is not None and (
        isinstance(max_observed, bool) or not isinstance(max_observed, int) or max_observed < 1
    ):
        raise SpecError(f"{max_observed!r} is not a positive whole number", field="max_observed")
    return HarnessAgent(harness, max_observed)


def _settle(value: Any) -> Any:
    """The value itself, or the result of awaiting it on a loop of this thread's own."""
    if inspect.isawaitable(value):
        import asyncio  # only async harnesses need it; `import assay_agents` stays light

        return asyncio.run(_wait(value))
    return value


async def _wait(value: Any) -> Any:
    return await value


def _observation(value: Any) -> Observation:
    if not isinstance(value, Observation | Mapping):
        raise SpecError(
            f"the harness's observe() returned {type(value).__name__}; return a "
            "mapping of channel lists (and truncated) or an assay.Observation",
            field="observation",
        )
    if isinstance(value, Mapping) and not isinstance(value.get("truncated", False), bool):
        raise SpecError("must be true or false", field="observation.truncated")
    # The same normalisation as an agent's own outcome: portable lists, typed JSON.
    observed = coerce_outcome(Outcome(observation=value)).observation  # type: ignore[arg-type]
    assert observed is not None
    return observed
