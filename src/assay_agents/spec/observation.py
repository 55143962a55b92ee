"""Expectations about what the system recorded: named observation channels and forbid lists.

A case may assert any channel its harness reports (``commands``, ``events``, ...):

* absent means *not asserted*: leaving ``commands`` out says nothing about commands;
* present means *exactly this, in order*; an empty list asserts that nothing was recorded;
* a forbid list fails when any named item appears, wherever it appears.

Each asserted channel becomes one deterministic metric of category ``side_effects``, named
after the channel (``commands``) or ``forbid.<channel>``. The spec layer only declares them;
:mod:`assay_agents.checks.observation` reads the observation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON, canonical_json, portable
from assay_agents.spec.metrics import PlannedMetric

#: The reliability category of every observation assertion.
SIDE_EFFECTS = "side_effects"
#: Metric names of forbid lists start with this.
FORBID_PREFIX = "forbid."

ChannelMode = Literal["exact", "forbid"]
Channels = dict[str, list[JSON]]


@dataclass(frozen=True, slots=True)
class ChannelAssertion:
    """One planned assertion on one channel: ``exact`` (the whole list) or ``forbid``.

    It meets :class:`~assay_agents.spec.metrics.CheckDefinition`, so it plans and fingerprints like
    any check; the expected items are read from the case itself when the sample is checked.
    """

    channel: str
    mode: ChannelMode = "exact"
    threshold: float = 1.0
    category: str = SIDE_EFFECTS

    @property
    def name(self) -> str:
        """``commands`` for an exact assertion, ``forbid.commands`` for a forbid list."""
        return self.channel if self.mode == "exact" else FORBID_PREFIX + self.channel

    def settings(self) -> dict[str, JSON]:
        """Portable settings for fingerprints and storage."""
        return {"type": "observation", "channel": self.channel, "mode": self.mode}

    def with_threshold(self, threshold: float) -> ChannelAssertion:
        """The same assertion with another threshold."""
        return replace(self, threshold=threshold)


def validate_channels(value: Mapping[str, Any] | None, field: str) -> Channels | None:
    """A mapping of channel names to lists of JSON items, or ``None`` when absent."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SpecError("must map channel names to lists", field=field)
    channels: Channels = {}
    for name, items in value.items():
        if not isinstance(name, str) or not name.strip():
            raise SpecError("channel names are non-empty strings", field=field)
        if isinstance(items, str | bytes) or not isinstance(items, list | tuple):
            raise SpecError(
                "must be a list ([] asserts that nothing was recorded)", field=f"{field}.{name}"
            )
        converted = portable(list(items), f"{field}.{name}")
        assert isinstance(converted, list)
        channels[name] = converted
    return channels


def refuse_contradictions(observation: Channels | None, forbid: Channels | None) -> None:
    """Refuse an item that one channel both requires and forbids: it can never pass."""
    for channel, banned in (forbid or {}).items():
        required = {canonical_json(item) for item in (observation or {}).get(channel, [])}
        both = [item for item in banned if canonical_json(item) in required]
        if both:
            raise SpecError(
                f"{render_items(both)} is both required (expect.{channel}) and forbidden",
                field=f"forbid.{channel}",
            )


def channel_metrics(observation: Channels | None, forbid: Channels | None) -> list[PlannedMetric]:
    """The metrics a case's channel expectations imply: exact ones, then forbid lists.

    Channels are sorted so that the order keys were written in never changes a fingerprint.
    """
    assertions = [ChannelAssertion(name) for name in sorted(observation or {})]
    assertions += [ChannelAssertion(name, "forbid") for name in sorted(forbid or {})]
    return [PlannedMetric(a.name, "check", a.category, a.threshold, a) for a in assertions]


def render_items(items: list[JSON]) -> str:
    """``[trip.set_name, trip.rebook]``: strings as they are, anything else as JSON."""
    return (
        "["
        + ", ".join(item if isinstance(item, str) else canonical_json(item) for item in items)
        + "]"
    )
