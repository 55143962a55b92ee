"""Pasted scenarios: one prompt per line, grouped under ``# Headings``.

.. code-block:: text

    # Orders
    Where is my order 4821? | tools: lookup_order
    `Cancel my subscription` must not refuse | not_contains: I cannot

A backticked prompt may be followed by notes; options follow ``|`` as ``name: value``
(``tools`` and ``tags`` take comma-separated lists; ``contains`` and ``not_contains`` one text
each, and may repeat; ``key`` names the scenario). A YAML or JSON document (a suite, its
groups, or a list of scenarios) is accepted too. Scenarios without a key get ``<group>_<n>``,
skipping reserved keys whatever their case, behind an optional prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay.errors import SpecError
from assay.load._documents import composes_as_mapping, parse_json, parse_yaml, read_text
from assay.load._errors import suggestion, validate
from assay.load.entry import MissingAgent
from assay.load.formats import PastedDocModel
from assay.load.scenario import Expectations, Origin, Scenario, scenario_from
from assay.spec import JSON, Suite

PASTED_SUFFIXES = (".txt", ".md", ".text")
_OPTIONS = ("tools", "contains", "not_contains", "key", "tags")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_DOCUMENT = re.compile(r"^(?:suite|groups)\s*:", re.MULTILINE)
_DEFAULT_GROUP = "scenario"


@dataclass(frozen=True, slots=True)
class _Draft:
    """A scenario as read, before keys are made."""

    scenario: Scenario
    group_name: str | None


class ScenarioParser:
    """Pasted text, JSON or grouped YAML → scenarios (or attribute mappings)."""

    @classmethod
    def scenarios(cls, text: str, *, reserved_keys: Iterable[str] = (),
                  key_prefix: str | None = None, include_production_only: bool = True,
                  location: str = "<pasted>") -> list[Scenario]:
        """The scenarios of a paste, with keys made for the ones that name none."""
        return [draft.scenario for draft in _selected(text, reserved_keys, key_prefix,
                                                      include_production_only, location)]

    @classmethod
    def parse(cls, text: str, *, reserved_keys: Iterable[str] = (),
              key_prefix: str | None = None, include_production_only: bool = True,
              location: str = "<pasted>") -> list[dict[str, JSON]]:
        """The scenarios as plain attributes.

        Each has its key, prompt, group, group_name, notes, expect, ... and ``position``,
        which numbers the scenarios within this paste, from 0.
        """
        drafts = _selected(text, reserved_keys, key_prefix, include_production_only, location)
        return [{**draft.scenario.to_json(), **_group(draft), "position": index}
                for index, draft in enumerate(drafts)]


def _selected(text: str, reserved: Iterable[str], prefix: str | None,
              include_production_only: bool, location: str) -> list[_Draft]:
    drafts = _keyed(_drafts(text, location), reserved, prefix, location)
    return [d for d in drafts if include_production_only or not d.scenario.production_only]


def _group(draft: _Draft) -> dict[str, JSON]:
    described: dict[str, JSON] = {"group": draft.scenario.group, "group_name": draft.group_name}
    return {key: value for key, value in described.items() if value}


def load_pasted(path: str | Path, *, agent: Any = None, agent_name: str | None = None,
                key_prefix: str | None = None) -> Suite:
    """A suite (named after the file) from a text file of pasted scenarios."""
    file = Path(path)
    location = str(file)
    scenarios = ScenarioParser.scenarios(read_text(file), key_prefix=key_prefix,
                                         location=location)
    runner = agent if agent is not None else MissingAgent(f"{location} (pass --agent)")
    suite = Suite(file.stem, agent=runner,
                  agent_name=agent_name or ("unspecified" if agent is None else None))
    for position, scenario in enumerate(scenarios):
        suite.add(scenario.case(position))
    return suite


def slug(text: str) -> str:
    """Letters and digits, lower-cased, runs of anything else as one underscore."""
    return re.sub(r"[\W_]+", "_", text.casefold()).strip("_")


def _drafts(text: str, location: str) -> list[_Draft]:
    if _is_document(text):
        return _document(text, location)
    drafts: list[_Draft] = []
    group: tuple[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            group = (slug(heading) or _DEFAULT_GROUP, heading) if heading else None
            continue
        drafts.append(_line(_BULLET.sub("", line), group, location, number))
    if not drafts:
        raise SpecError("holds no scenarios", location=location)
    return drafts


def _is_document(text: str) -> bool:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return True
    # A grouped YAML document has its keys at the top level, unindented, and is a mapping:
    # a prompt that merely begins "suite:" in a list of prompts is not one.
    return bool(_DOCUMENT.search(text)) and composes_as_mapping(text)


def _line(line: str, group: tuple[str, str] | None, location: str, number: int) -> _Draft:
    where = f"line {number}"
    head, *options = _split_options(line)
    prompt, notes = _prompt(head.strip(), location, where)
    values: dict[str, list[str]] = {}
    for option in options:
        name, value = _option(option, location, where)
        values.setdefault(name, []).extend(value)
    key = values.get("key", [None])[-1]
    expect = Expectations(tuple(values.get("tools", ())), tuple(values.get("contains", ())),
                          tuple(values.get("not_contains", ())))
    scenario = Scenario(key or "", prompt, None if group is None else group[0], expect,
                        notes, tags=tuple(values.get("tags", ())),
                        origin=Origin(location, where))
    return _Draft(scenario, None if group is None else group[1])


def _split_options(line: str) -> list[str]:
    """Split ``prompt | option | option``; a backticked prompt may contain ``|`` itself."""
    stripped = line.lstrip()
    if stripped.startswith("`"):
        closing = stripped.find("`", 1)
        if closing > 0:
            head, *options = stripped[closing + 1:].split("|")
            return [stripped[:closing + 1] + head, *options]
    return line.split("|")


def _prompt(head: str, location: str, where: str) -> tuple[str, str | None]:
    if head.startswith("`"):
        closing = head.find("`", 1)
        if closing < 0:
            raise SpecError("a backticked prompt needs its closing backtick",
                            location=location, field=where)
        prompt, rest = head[1:closing].strip(), head[closing + 1:]
        notes = rest.strip().lstrip("-—–:").strip() or None
    else:
        prompt, notes = head, None
    if not prompt:
        raise SpecError("has an option but no prompt", location=location, field=where)
    return prompt, notes


def _option(text: str, location: str, where: str) -> tuple[str, list[str]]:
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or name not in _OPTIONS:
        raise SpecError(f"unknown option {name!r}{suggestion(name, _OPTIONS)}; options are "
                        f"{', '.join(_OPTIONS)} (name: value)", location=location, field=where)
    value = value.strip()
    if not value:
        raise SpecError(f"option {name!r} has no value", location=location, field=where)
    if name in ("tools", "tags"):
        return name, [part.strip() for part in value.split(",") if part.strip()]
    return name, [value]


def _document(text: str, location: str) -> list[_Draft]:
    stripped = text.lstrip()
    raw = parse_json(text, location) if stripped.startswith(("{", "[")) else parse_yaml(
        text, location)
    if isinstance(raw, list):
        raw = {"groups": [{"scenarios": raw}]}
    model = validate(PastedDocModel, raw, location)
    drafts: list[_Draft] = []
    for g_index, group in enumerate(model.groups):
        key = group.key or (slug(group.name) if group.name else None)
        for s_index, item in enumerate(group.scenarios):
            origin = Origin(location, f"groups[{g_index}].scenarios[{s_index}]")
            scenario = scenario_from(item, key or None, origin)
            drafts.append(_Draft(replace(scenario, key=item.key or ""), group.name))
    if not drafts:
        raise SpecError("holds no scenarios", location=location)
    return drafts


def _keyed(drafts: list[_Draft], reserved: Iterable[str], prefix: str | None,
           location: str) -> list[_Draft]:
    """Keep the keys a paste names; make ``[prefix_]<group>_<n>`` for the others."""
    prefix_slug = None
    if prefix is not None:
        prefix_slug = slug(prefix)
        if not prefix_slug:
            raise SpecError(f"key prefix {prefix!r} has no letters or digits a key can use",
                            location=location, field="key_prefix")
    taken = {key.casefold() for key in reserved}
    named = [d.scenario.key for d in drafts if d.scenario.key]
    _refuse_duplicates(named, location)
    taken |= {key.casefold() for key in named}
    counters: dict[str, int] = {}
    keyed: list[_Draft] = []
    for draft in drafts:
        if not draft.scenario.key:
            key = _next_key(draft.scenario.group, prefix_slug, taken, counters)
            draft = replace(draft, scenario=replace(draft.scenario, key=key))
        keyed.append(draft)
    return keyed


def _next_key(group: str | None, prefix: str | None, taken: set[str],
              counters: dict[str, int]) -> str:
    stem = "_".join(part for part in (prefix, group or _DEFAULT_GROUP) if part)
    number = counters.get(stem, 0)
    while True:
        number += 1
        key = f"{stem}_{number}"
        if key.casefold() not in taken:
            counters[stem] = number
            taken.add(key.casefold())
            return key


def _refuse_duplicates(keys: list[str], location: str) -> None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            raise SpecError(f"duplicate scenario key {key!r}", location=location, field="key")
        seen.add(key)
