"""What an integration may put around each sample: a scope, and a capture of what the agent did.

Both are optional parts of an :class:`~assay_agents.runner.Execution`. A tracer opens a span per
sample with :class:`AroundSample` (and records its trace on the result); a span capture
reads the agent's own spans with :class:`Capture` and builds the outcome's actions and usage
from them before any check runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from assay_agents.agent import Outcome
from assay_agents.results import SampleResult

#: Set on a tracer provider that exports nowhere (the one a span capture sets when none
#: was): a process with only that one does not count as tracing.
EXPORTS_NOWHERE = "assay_exports_nowhere"

#: One sample's whole execution (the agent, its checks, its judging and diagnosis).
SampleCall = Callable[[], Awaitable[SampleResult]]


class AroundSample(Protocol):
    """Wraps each sample's execution, in the sample's own task.

    ``around(item, call)`` awaits ``call()`` and returns its result (which it may amend,
    with the sample's trace ids say); context it sets is the agent's and the judge's too.
    """

    def __call__(self, item: Any, call: SampleCall) -> Awaitable[SampleResult]:
        """Execute the sample inside the scope; see the class."""
        ...


class CaptureWatch(Protocol):
    """What a capture saw during one agent call; it amends the agent's outcome."""

    def merged(self, outcome: Outcome) -> Outcome:
        """``outcome`` completed with what was captured (what the agent returned wins)."""
        ...


class Capture(Protocol):
    """Watches each agent call (entered in the sample's context, around the call only)."""

    def watch(self) -> AbstractContextManager[CaptureWatch]:
        """Watch the agent call made inside the block."""
        ...


@dataclass(frozen=True, slots=True)
class GroupedCapture:
    """A capture whose calls recorded without a group take the one ``groups`` names."""

    capture: Capture
    groups: Mapping[str, str]

    def watch(self) -> AbstractContextManager[CaptureWatch]:
        """Watch as the wrapped capture does, then name the groups."""
        return _grouped(self.capture, self.groups)


@contextlib.contextmanager
def _grouped(capture: Capture, groups: Mapping[str, str]) -> Iterator[CaptureWatch]:
    with capture.watch() as watch:
        yield _GroupedWatch(watch, groups)


@dataclass(frozen=True, slots=True)
class _GroupedWatch:
    watch: CaptureWatch
    groups: Mapping[str, str]

    def merged(self, outcome: Outcome) -> Outcome:
        merged = self.watch.merged(outcome)
        if not merged.actions:
            return merged
        actions = tuple(
            dataclasses.replace(action, group=self.groups[action.name])
            if action.group is None and action.name in self.groups
            else action
            for action in merged.actions
        )
        return dataclasses.replace(merged, actions=actions)
