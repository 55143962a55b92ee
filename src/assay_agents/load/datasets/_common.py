"""What every importer shares: what could not be mapped, scenario drafts, keys and values."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load._pasted_lines import slug
from assay_agents.spec import JSON

_KEY_STEM = 54  # a key ``<stem>_<n>`` stays within 64 characters


@dataclass(frozen=True, slots=True)
class Unmapped:
    """One part of the other tool's file that the suite does not carry, and why."""

    path: str
    why: str

    def line(self, location: str) -> str:
        """``file: path: why``, as the command prints it."""
        where = f"{location}: {self.path}" if self.path else location
        return f"{where}: {self.why}"


@dataclass(slots=True)
class Draft:
    """A scenario being built: its key, prompt, expectations and the rest of a YAML scenario."""

    key: str
    prompt: str
    expect: dict[str, Any] = field(default_factory=dict)
    notes: str | None = None
    params: dict[str, Any] | None = None
    rubrics: list[JSON] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)

    def add(self, name: str, *texts: str) -> None:
        """Append ``texts`` to the expectation list ``name``."""
        self.expect.setdefault(name, []).extend(texts)

    def to_json(self) -> dict[str, JSON]:
        """The scenario as the YAML suite writes it, empty parts left out."""
        described: dict[str, Any] = {
            "key": self.key,
            "prompt": self.prompt,
            "expect": self.expect,
            "notes": self.notes,
            "params": self.params,
            "rubrics": self.rubrics,
            "facts": self.facts,
        }
        return {name: value for name, value in described.items() if value not in (None, {}, [])}


class Keys:
    """Scenario keys from the other tool's ids or names, unique, else ``<tool>_<n>``."""

    def __init__(self, tool: str) -> None:
        self._tool = slug(tool)
        self._taken: set[str] = set()

    def key(self, named: object, position: int) -> str:
        """A key for the item at ``position`` (from 1) that the tool names ``named``."""
        if isinstance(named, int) and not isinstance(named, bool):
            named = f"{self._tool}_{named}"  # a number alone makes a poor key
        stem = slug(named, _KEY_STEM) if isinstance(named, str) else ""
        candidate = stem or f"{self._tool}_{position}"
        number = 1
        key = candidate
        while key.casefold() in self._taken:
            number += 1
            key = f"{candidate}_{number}"
        self._taken.add(key.casefold())
        return key


def text_of(value: object) -> str:
    """A value as the text an agent is given: a string as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def required_text(item: dict[str, Any], name: str, location: str, path: str) -> str:
    """The non-empty text ``item[name]``, or a spec error naming the file and the field."""
    value = item.get(name)
    if value is None:
        raise SpecError("is missing", location=location, field=f"{path}.{name}".lstrip("."))
    if not isinstance(value, str) or not value.strip():
        raise SpecError(
            f"must be a non-empty text (got {type(value).__name__})",
            location=location,
            field=f"{path}.{name}".lstrip("."),
        )
    return value


def mapping(value: object, location: str, path: str, what: str) -> dict[str, Any]:
    """``value`` if it is a mapping, else a spec error saying what was expected there."""
    if not isinstance(value, dict):
        raise SpecError(
            f"must be {what} (got {type(value).__name__})", location=location, field=path or None
        )
    return value


def json_params(value: object) -> dict[str, Any] | None:
    """Metadata kept as the scenario's params: a mapping, or ``None`` when there is none."""
    if isinstance(value, dict) and value:
        return value
    return None


def field_at(path: str, name: str) -> str:
    """The path of field ``name`` of the item at ``path`` (``[2].input``, ``line 3: input``)."""
    return f"{path}: {name}" if path.startswith("line ") else f"{path}.{name}"


def milliseconds(seconds: float) -> float | int:
    """``seconds`` in milliseconds, written as a whole number when it is one."""
    value = seconds * 1000
    return int(value) if float(value).is_integer() else value
