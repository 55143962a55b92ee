"""Where each part of a case came from: ``authored``, ``derived`` or ``recorded``.

* ``authored`` (the default): a person wrote it. A difference between two runs is a broken
  pairing, and the item is excluded from the comparison.
* ``derived``: the code under test writes it (a state block a projector produces, say). A
  difference is the intended effect of the change being measured, when both runs declare it.
* ``recorded``: lifted from what the system actually emitted. It must never differ; when it
  does, recorded testimony was regenerated, which is a defect in the corpus or the tooling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from assay_agents.errors import SpecError

Provenance = Literal["authored", "derived", "recorded"]

PROVENANCES: tuple[str, ...] = ("authored", "derived", "recorded")

#: The parts of a case a provenance can be declared for (as named in its definition).
#: ``checks`` are the metrics the case is held to (a run stores them as its ``metrics``).
PROVENANCE_PARTS: tuple[str, ...] = (
    "input",
    "reference",
    "expected_actions",
    "observation",
    "forbid",
    "checks",
    "setup",
    "metadata",
    "api",
)

#: A name for several parts at once: ``expect`` is every expectation the case declares.
GROUPS: dict[str, tuple[str, ...]] = {
    "expect": ("expected_actions", "observation", "forbid", "checks")
}

# ``expected`` is what Suite.case calls the reference; accept the name the user typed.
_ALIASES = {"expected": "reference"}


def validate_provenance(
    value: Mapping[str, Any] | None, field: str = "provenance"
) -> dict[str, str]:
    """Check a declaration strictly: a mapping of known parts (or groups) to provenances."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError("must map case parts to authored, derived or recorded", field=field)
    declared: dict[str, str] = {}
    for raw, provenance in value.items():
        part = _ALIASES.get(raw, raw) if isinstance(raw, str) else raw
        if part not in PROVENANCE_PARTS and part not in GROUPS:
            raise SpecError(
                f"unknown part {raw!r}; a provenance is declared for "
                f"{', '.join((*PROVENANCE_PARTS, *GROUPS))}",
                field=field,
            )
        if provenance not in PROVENANCES:
            raise SpecError(
                f"unknown provenance {provenance!r}; use {', '.join(PROVENANCES)}",
                field=f"{field}.{raw}",
            )
        declared[part] = provenance
    return declared


def resolve_parts(declared: Mapping[str, str], present: Iterable[str]) -> dict[str, str]:
    """Expand groups; refuse naming a part (or a group none of whose parts) the case has.

    A group keeps every member, present or not: a later run that adds an expectation under
    the same declaration is covered by it.
    """
    have = set(present)
    resolved: dict[str, str] = {}
    for part, provenance in declared.items():
        members = list(GROUPS.get(part, (part,)))
        if not have.intersection(members):
            raise SpecError(
                f"declares the provenance of {part!r}, which this case does not have",
                field=f"provenance.{part}",
            )
        resolved.update(dict.fromkeys(members, provenance))
    return resolved


def with_default(
    declared: Mapping[str, str], default: Mapping[str, str], present: Iterable[str]
) -> dict[str, str]:
    """A suite-wide default under a case's own declaration, for the parts the case has."""
    have = set(present)
    merged: dict[str, str] = {}
    for part, provenance in default.items():
        members = GROUPS.get(part, (part,))
        merged.update({member: provenance for member in members if member in have})
    merged.update(declared)
    return merged
