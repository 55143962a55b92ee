"""Pasted scenarios: one prompt per line, grouped under headings.

.. code-block:: text

    # Orders
    Where is my order 4821? | tools: lookup_order
    `Cancel my subscription` must not refuse | not_contains: I cannot

The line format is read by :mod:`assay_agents.load._pasted_lines`. A YAML or JSON document is
accepted too: a suite or its groups, a list of prompts and scenario tables (each naming its
``group`` and ``group_name``, and expectations beside its prompt if it likes), or one
scenario table. A text that starts like a document (``suite:``, ``groups:``, a suite's field
above its ``suite:``, a YAML tag) and does not parse is an error, never a list of prompts.
Positions count within each group. Scenarios without a key get ``<group>_<n>``, skipping
reserved keys whatever their case, behind an optional prefix; a made-up key and a group slug
are at most 64 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._documents import (
    composes_as_mapping,
    parse_json,
    parse_yaml,
    read_text,
    without_bom,
)
from assay_agents.load._errors import validate
from assay_agents.load._foreign_paste import refuse_foreign_document
from assay_agents.load._pasted_lines import capped, read_lines, slug
from assay_agents.load.entry import MissingAgent
from assay_agents.load.formats import PastedDocModel, PastedListedScenarioModel, PastedListModel
from assay_agents.load.scenario import Origin, Scenario, refuse_contradiction, scenario_from
from assay_agents.spec import JSON, Suite

PASTED_SUFFIXES = (".txt", ".md", ".text")
_DOCUMENT = re.compile(r"^(?:suite|groups)\s*:", re.MULTILINE)
# How a YAML document begins: a suite's keys, or a tag (!ruby/object:..., !!map).
_DOCUMENT_START = re.compile(r"^(?:(?:suite|groups)\s*:|(?:-{3}\s+|-\s+)?(?:!!|!\w+/))")
# The other fields a suite document may open with, before its suite: or groups: line.
_SUITE_FIELD = re.compile(r"^(?:description|version|agent|agent_name)\s*:")
_SUITE_KEYS = frozenset({"suite", "groups", "description", "version", "agent"})
_DEFAULT_GROUP = "scenario"
#: Expectations a pasted list's scenario may give beside its prompt rather than in ``expect``.
_BESIDE = ("tools", "forbid_tools", "contains", "not_contains")
_STEM_LIMIT = 54  # a made-up key, ``<stem>_<n>``, stays within 64 characters


@dataclass(frozen=True, slots=True)
class _Draft:
    """A scenario as read, before keys are made, with its group name and position."""

    scenario: Scenario
    group_name: str | None
    position: int


class ScenarioParser:
    """Pasted text, JSON or grouped YAML → scenarios (or attribute mappings)."""

    @classmethod
    def scenarios(
        cls,
        text: str,
        *,
        reserved_keys: Iterable[str] = (),
        key_prefix: str | None = None,
        include_production_only: bool = True,
        location: str = "<pasted>",
    ) -> list[Scenario]:
        """The scenarios of a paste, with keys made for the ones that name none.

        A paste with nothing in it has no scenarios.
        """
        return [
            draft.scenario
            for draft in _selected(
                text, reserved_keys, key_prefix, include_production_only, location
            )
        ]

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        reserved_keys: Iterable[str] = (),
        key_prefix: str | None = None,
        include_production_only: bool = True,
        location: str = "<pasted>",
    ) -> list[dict[str, JSON]]:
        """The scenarios as plain attributes.

        Each has its key, prompt, group, group_name, notes, expect, ... and ``position``,
        which numbers the scenarios within this paste from 0 (within each group of a grouped
        document) and is kept when production-only scenarios are left out.
        """
        drafts = _selected(text, reserved_keys, key_prefix, include_production_only, location)
        return [
            {**draft.scenario.to_json(), **_group(draft), "position": draft.position}
            for draft in drafts
        ]


def _selected(
    text: str,
    reserved: Iterable[str],
    prefix: str | None,
    include_production_only: bool,
    location: str,
) -> list[_Draft]:
    drafts = _keyed(_drafts(text, location), reserved, prefix, location)
    return [d for d in drafts if include_production_only or not d.scenario.production_only]


def _group(draft: _Draft) -> dict[str, JSON]:
    described: dict[str, JSON] = {"group": draft.scenario.group, "group_name": draft.group_name}
    return {key: value for key, value in described.items() if value}


def load_pasted(
    path: str | Path,
    *,
    agent: Any = None,
    agent_name: str | None = None,
    key_prefix: str | None = None,
) -> Suite:
    """A suite (named after the file) from a text file of pasted scenarios.

    A file with no scenario in it is refused: there would be nothing to run.
    """
    file = Path(path)
    location = str(file)
    text = read_text(file)
    refuse_foreign_document(text, location)
    scenarios = ScenarioParser.scenarios(text, key_prefix=key_prefix, location=location)
    if not scenarios:
        raise SpecError("holds no scenarios", location=location)
    runner = agent if agent is not None else MissingAgent(f"{location} (pass --agent)")
    suite = Suite(
        file.stem, agent=runner, agent_name=agent_name or ("unspecified" if agent is None else None)
    )
    for position, scenario in enumerate(scenarios):
        suite.add(scenario.case(position))
    return suite


def _drafts(text: str, location: str) -> list[_Draft]:
    text = without_bom(text)
    if _is_document(text):
        return _document(text, location)
    lines = read_lines(text, location)
    positions = _within_groups([line.scenario.group for line in lines])
    return [
        _Draft(line.scenario, line.group_name, position)
        for line, position in zip(lines, positions, strict=True)
    ]


def _within_groups(groups: list[str | None]) -> list[int]:
    """Each scenario's position among the scenarios of its group, from 0, in paste order."""
    counts: dict[str | None, int] = {}
    positions = []
    for group in groups:
        positions.append(counts.get(group, 0))
        counts[group] = positions[-1] + 1
    return positions


def _is_document(text: str) -> bool:
    """Whether ``text`` is a JSON or YAML document rather than lines of prompts."""
    if text.lstrip().startswith(("{", "[")):
        return True
    # Only the first two meaningful lines matter: stop there rather than list them all.
    meaningful = (
        line for line in text.splitlines() if line.strip() and not line.startswith(("#", "%"))
    )
    first = next(meaningful, "")
    if first.rstrip() == "---":
        first = next(meaningful, first)
    first = first.lstrip()
    if _DOCUMENT_START.match(first):
        return True  # it starts like a suite: parse it, and say why when it does not parse
    if _SUITE_FIELD.match(first) and _DOCUMENT.search(text):
        return True  # a suite's own field first (description: ...), and its suite: below
    # Otherwise a grouped document has its keys at the top level, unindented, and is a
    # mapping: a prompt that merely begins "suite:" in a list of prompts is not one.
    return bool(_DOCUMENT.search(text)) and composes_as_mapping(text)


def _document(text: str, location: str) -> list[_Draft]:
    raw = (
        parse_json(text, location)
        if text.lstrip().startswith(("{", "["))
        else parse_yaml(text, location)
    )
    if raw is None or raw == {}:
        return []
    if isinstance(raw, list):
        return _listed(validate(PastedListModel, raw, location).root, location, "")
    if isinstance(raw, dict) and not _SUITE_KEYS & raw.keys():
        return _listed([validate(PastedListedScenarioModel, raw, location)], location, None)
    return _grouped(validate(PastedDocModel, raw, location), location)


def _listed(
    items: list[PastedListedScenarioModel], location: str, path: str | None
) -> list[_Draft]:
    """A list of scenarios (or one, whose path is ``None``), each naming its own group."""
    drafts: list[_Draft] = []
    for index, item in enumerate(items):
        group = item.group or slug(item.group_name or "") or None
        origin = Origin(location, "" if path is None else f"[{index}]")
        scenario = _expectations_beside(item, scenario_from(item, group, origin), origin)
        drafts.append(_Draft(replace(scenario, key=item.key or ""), item.group_name, index))
    positions = _within_groups([draft.scenario.group for draft in drafts])
    return [replace(d, position=p) for d, p in zip(drafts, positions, strict=True)]


def _expectations_beside(
    item: PastedListedScenarioModel, scenario: Scenario, origin: Origin
) -> Scenario:
    """The scenario with the expectations given beside its prompt (``"tools": [...]``)."""
    given = {name: getattr(item, name) for name in _BESIDE if getattr(item, name) is not None}
    if not given:
        return scenario
    for name in given:
        if getattr(scenario.expect, name):
            raise origin.error(
                SpecError(f"is given twice, here and in expect.{name}; give one", field=name)
            )
    beside: dict[str, Any] = {name: tuple(value) for name, value in given.items()}
    expect = replace(scenario.expect, **beside)
    try:
        refuse_contradiction(expect, "forbid_tools")
    except SpecError as error:
        raise origin.error(error) from None
    return replace(scenario, expect=expect)


def _grouped(model: PastedDocModel, location: str) -> list[_Draft]:
    """A suite's groups; positions count within each group."""
    drafts: list[_Draft] = []
    for g_index, group in enumerate(model.groups):
        key = group.key or (slug(group.name) if group.name else None)
        for s_index, item in enumerate(group.scenarios):
            origin = Origin(location, f"groups[{g_index}].scenarios[{s_index}]")
            scenario = scenario_from(item, key or None, origin)
            drafts.append(_Draft(replace(scenario, key=item.key or ""), group.name, s_index))
    return drafts


def _keyed(
    drafts: list[_Draft], reserved: Iterable[str], prefix: str | None, location: str
) -> list[_Draft]:
    """Keep the keys a paste names; make ``[prefix_]<group>_<n>`` for the others."""
    prefix_slug = None
    if prefix is not None and prefix.strip():  # a prefix of only whitespace is no prefix
        prefix_slug = slug(prefix)
        if not prefix_slug:
            raise SpecError(
                f"key prefix {prefix!r} has no letters or digits a key can use",
                location=location,
                field="key_prefix",
            )
    taken = {key.casefold() for key in reserved}
    named = [d.scenario.key for d in drafts if d.scenario.key]
    _refuse_duplicates(named, location)
    taken |= {key.casefold() for key in named}
    counters: dict[str, int] = {}
    stems: dict[str | None, str] = {}  # each group slugged once, not once per scenario
    keyed: list[_Draft] = []
    for draft in drafts:
        if not draft.scenario.key:
            group = draft.scenario.group
            if group not in stems:
                stems[group] = _stem(group, prefix_slug)
            key = _next_key(stems[group], taken, counters)
            draft = _Draft(replace(draft.scenario, key=key), draft.group_name, draft.position)
        keyed.append(draft)
    return keyed


def _stem(group: str | None, prefix: str | None) -> str:
    """``[prefix_]<group>``, capped to leave a key room for ``_<n>`` within 64 characters."""
    stem = "_".join(part for part in (prefix, slug(group or "") or _DEFAULT_GROUP) if part)
    return capped(stem, _STEM_LIMIT)


def _next_key(stem: str, taken: set[str], counters: dict[str, int]) -> str:
    number = counters.get(stem, 0)
    while True:
        number += 1
        key = f"{stem}_{number}"
        if key.casefold() not in taken:
            counters[stem] = number
            taken.add(key.casefold())
            return key


def _refuse_duplicates(keys: list[str], location: str) -> None:
    """Refuse a key named twice; keys are compared ignoring case, as made keys are."""
    seen: dict[str, str] = {}
    for key in keys:
        first = seen.get(key.casefold())
        seen.setdefault(key.casefold(), key)
        if first is not None:
            also = "" if first == key else f" (the same as {first!r} ignoring case)"
            raise SpecError(f"duplicate scenario key {key!r}{also}", location=location, field="key")
