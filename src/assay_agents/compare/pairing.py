"""Pairing the items of two runs, and deciding which pairings still measure anything.

Items (a case on a model) are paired by id and compared only where the case's definition is
the same in both runs, by item fingerprint. A case whose definition changed is a broken
pairing and is excluded, unless every changed part is declared ``derived`` by *both* runs (the
code under test writes it: the change is the intended effect being measured). A changed part
declared ``recorded`` by *either* run is a corpus defect: recorded testimony was regenerated,
which is a problem with the corpus, never a result about the agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay_agents.results import CaseSnapshot, Run
from assay_agents.results.changes import ChangedPart, Item, PairedItem, Pairing

#: Keys of a case snapshot that describe the definition rather than being part of it.
_NOT_PARTS = frozenset({"id", "provenance"})
# Snapshot keys whose provenance is declared under another name.
_PART_OF = {"metrics": "checks"}


def pair_items(
    baseline: Run, current: Run, baseline_items: Sequence[Item], current_items: Sequence[Item]
) -> tuple[PairedItem, ...]:
    """Pair the items both runs hold (in the current run's order) and judge each pairing."""
    held = set(baseline_items)
    before, after = baseline.cases_by_id(), current.cases_by_id()
    verdicts: dict[str, tuple[Pairing, tuple[ChangedPart, ...]]] = {}
    paired: list[PairedItem] = []
    for case_id, model in current_items:
        if (case_id, model) not in held:
            continue
        if case_id not in verdicts:
            verdicts[case_id] = judge_pairing(before.get(case_id), after.get(case_id))
        pairing, parts = verdicts[case_id]
        paired.append(PairedItem(case_id=case_id, model=model, pairing=pairing, parts=parts))
    return tuple(paired)


def judge_pairing(
    before: CaseSnapshot | None, after: CaseSnapshot | None
) -> tuple[Pairing, tuple[ChangedPart, ...]]:
    """Decide one case's pairing from the two definitions the runs used.

    A run without a snapshot of the case (built by hand, say) gives nothing to check, so the
    pairing stands.
    """
    if before is None or after is None or before.fingerprint == after.fingerprint:
        return Pairing.COMPARED, ()
    parts = tuple(_changed(before.definition, after.definition))
    if not parts:
        # The fingerprints differ but no part does: something outside the parts changed.
        parts = (ChangedPart("definition", "authored", "authored", "authored"),)
    provenances = {part.provenance for part in parts}
    if "recorded" in provenances:
        return Pairing.DEFECT, parts
    if provenances == {"derived"}:
        return Pairing.INTENDED, parts
    return Pairing.BROKEN, parts


def _changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[ChangedPart]:
    declared_before = _declared(before)
    declared_after = _declared(after)
    names = [key for key in (*before, *after) if key not in _NOT_PARTS]
    changed: list[ChangedPart] = []
    for name in dict.fromkeys(names):
        if before.get(name) != after.get(name):
            part = _PART_OF.get(name, name)
            old = declared_before.get(part, "authored")
            new = declared_after.get(part, "authored")
            changed.append(ChangedPart(name, effective_provenance(old, new), old, new))
    return changed


def _declared(definition: Mapping[str, Any]) -> dict[str, str]:
    declared = definition.get("provenance")
    return dict(declared) if isinstance(declared, Mapping) else {}


def effective_provenance(baseline: str, current: str) -> str:
    """``recorded`` when either run declares it, ``derived`` only when both do.

    Declaring ``derived`` makes the next comparison comparable; it never retroactively
    excuses a difference against a run that did not declare it.
    """
    if "recorded" in (baseline, current):
        return "recorded"
    if baseline == current == "derived":
        return "derived"
    return "authored"
