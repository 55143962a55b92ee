"""Assertions over what the system recorded: observation channels and forbid lists.

The observation is read from the application's own storage by its harness (commands,
events, ...), never from the agent's prose. Rules (see :mod:`assay_agents.spec.observation`):

* a channel the case asserts must equal the observed list exactly, in order;
* a forbid list fails when any named item appears;
* a truncated observation fails every assertion that reads it with
  ``truncated_observation``: nothing is ever passed over the part nobody read;
* an observation that was never reported, or lacks an asserted channel, is an error, not a
  pass: absent is not the same as empty.

>>> from assay_agents.spec.observation import ChannelAssertion
>>> check_for(ChannelAssertion("commands")).category
'side_effects'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from assay_agents.checks import _values
from assay_agents.checks.base import Check, CheckContext, CheckError, Verdict
from assay_agents.checks.quoting import QUOTED_ITEMS, item_text, quoted, quoted_items
from assay_agents.spec import JSON, canonical_json
from assay_agents.spec.observation import SIDE_EFFECTS, ChannelAssertion

#: The reason every assertion over a truncated observation fails with.
TRUNCATED = "truncated_observation"


@dataclass(frozen=True, kw_only=True)
class ChannelCheck(Check):
    """One channel of the case's ``observation`` (``exact``) or ``forbid`` (``forbid``)."""

    category: ClassVar[str] = SIDE_EFFECTS
    factory: ClassVar[str] = "observation"
    channel: str
    mode: Literal["exact", "forbid"] = "exact"

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.text(self.name, "channel", self.channel)
        if self.mode not in ("exact", "forbid"):
            raise _values.refuse(
                self.name, f"mode must be 'exact' or 'forbid' {_values.got(self.mode)}"
            )

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Read the channel from the observation and hold it to the case's expectation."""
        declared = ctx.case.observation if self.mode == "exact" else ctx.case.forbid
        if declared is None or self.channel not in declared:
            raise CheckError(f"the case declares no {self.mode} expectation for {self.channel!r}")
        observed = read_channel(ctx, self.channel)
        if isinstance(observed, Verdict):
            return observed
        if self.mode == "exact":
            return exact(declared[self.channel], observed)
        return forbidden(declared[self.channel], observed)


def check_for(assertion: ChannelAssertion) -> ChannelCheck:
    """The check that evaluates a planned channel assertion."""
    return ChannelCheck(
        name=assertion.name,
        threshold=assertion.threshold,
        channel=assertion.channel,
        mode=assertion.mode,
    )


def read_channel(ctx: CheckContext, channel: str) -> list[JSON] | Verdict:
    """The observed items, a failing verdict when truncated, or an error when unobserved."""
    observation = ctx.outcome.observation
    if observation is None:
        raise CheckError(
            "no observation was reported (a harness reports one after the turn; see assay.Harness)"
        )
    if observation.truncated:
        # Never pass over what nobody read: a forbidden item may hide past the ceiling.
        return Verdict(
            0.0, f"{TRUNCATED}: {_cut_by(observation.bound)}, so {channel} cannot be asserted"
        )
    if channel not in observation.channels:
        reported = quoted(sorted(observation.channels)) or "none"
        raise CheckError(f"the observation has no {channel!r} channel (reported: {reported})")
    return list(observation.channels[channel])


def _cut_by(bound: str | None) -> str:
    """Which ceiling stopped the read: the bound Assay applied, or the harness's own."""
    if bound is None:
        return "the harness reported its read truncated at a ceiling of its own"
    return f"the read was cut at {bound} items per channel (raise it to read everything)"


def exact(expected: list[JSON], observed: list[JSON]) -> Verdict:
    """Pass only when the observed list equals the expected one, item for item, in order.

    The reason quotes a few items of each list (:mod:`assay_agents.checks.quoting`) and, when
    either is longer than that, where they first differ; the lists stay in the evidence.
    """
    want_keys, got_keys = _keys(expected), _keys(observed)
    if want_keys == got_keys:
        return Verdict(1.0, f"{quoted_items(observed)}{_count(observed)} as expected")
    want, got = quoted_items(expected), quoted_items(observed)
    if want == got and len(expected) == len(observed):
        # Same text, different types ("1" and 1): show both as JSON.
        want, got = _as_json(want_keys), _as_json(got_keys)
    reason = f"expected {want}{_count(expected)}, got {got}{_count(observed)}"
    if max(len(expected), len(observed)) > QUOTED_ITEMS:
        reason += "; " + _first_difference(expected, observed, want_keys, got_keys)
    return Verdict(0.0, reason)


def forbidden(banned: list[JSON], observed: list[JSON]) -> Verdict:
    """Fail when any banned item appears; name what appeared and a few of those observed."""
    names = set(_keys(banned))
    hits = [item for item in observed if canonical_json(item) in names]
    if hits:
        return Verdict(
            0.0,
            f"forbidden {quoted_items(_unique(hits))} appeared; "
            f"got {quoted_items(observed)}{_count(observed)}",
        )
    return Verdict(1.0, f"none of {quoted_items(banned)} appeared")


def _count(items: list[JSON]) -> str:
    """`` (9,001 items)`` for a list longer than a reason quotes; nothing for a short one."""
    return f" ({len(items):,} items)" if len(items) > QUOTED_ITEMS else ""


def _as_json(keys: list[str]) -> str:
    return "[" + quoted(keys) + "]"  # already JSON text


def _first_difference(
    expected: list[JSON], observed: list[JSON], want: list[str], got: list[str]
) -> str:
    at = next(
        (i for i, (one, two) in enumerate(zip(want, got, strict=False)) if one != two),
        min(len(want), len(got)),
    )
    wanted = item_text(expected[at]) if at < len(expected) else "nothing more"
    seen = item_text(observed[at]) if at < len(observed) else "nothing more"
    return f"first difference at item {at + 1:,}: expected {wanted}, got {seen}"


def _keys(items: list[JSON]) -> list[str]:
    # Typed comparison: the string "1" is not the number 1.
    return [canonical_json(item) for item in items]


def _unique(items: list[JSON]) -> list[JSON]:
    seen: dict[str, JSON] = {}
    for item in items:
        seen.setdefault(canonical_json(item), item)
    return list(seen.values())
