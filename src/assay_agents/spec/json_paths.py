"""JSON paths that name the parts of a request body a replay comparison leaves out.

A path starts at ``$`` (the body) and steps into it: ``.name`` or ``["any name"]`` for an
object's field, ``[2]`` for an array item, ``[*]`` or ``.*`` for every field or item.
``$.metadata``, ``$.messages[*].name`` and ``$["x-trace"]`` are paths; ``metadata`` (no
``$``), ``$.`` and ``$[-1]`` are not. ``query.NAME`` names a query parameter instead, whose
value (and presence) is then not compared.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON

#: Every field of an object or item of an array.
WILDCARD = "*"
Step = str | int
_STEP = re.compile(
    r"""\.(?P<name>[A-Za-z_][A-Za-z0-9_-]*|\*)"""
    r"""|\[(?P<index>\d+|\*)\]"""
    r"""|\[(?P<quoted>"(?:[^"\\]|\\.)*")\]"""
)
_QUERY = re.compile(r"^query\.(?P<name>.+)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class JsonPath:
    """A parsed body path: its steps (field names, item indexes, :data:`WILDCARD`)."""

    text: str
    steps: tuple[Step, ...]

    def remove(self, document: JSON) -> JSON:
        """A copy of ``document`` without what this path names (absent parts are fine)."""
        return _removed(document, self.steps)


@dataclass(frozen=True, slots=True)
class Ignored:
    """What a declaration leaves out of its comparison: body paths and query names."""

    body: tuple[JsonPath, ...] = ()
    query: frozenset[str] = frozenset()

    def body_without(self, document: JSON) -> JSON:
        """``document`` with every ignored body path removed."""
        for path in self.body:
            document = path.remove(document)
        return document


def parse(text: object, field: str) -> JsonPath:
    """Parse one ``$``-rooted body path, or raise a :class:`SpecError` naming ``field``."""
    if not isinstance(text, str) or not text.startswith("$"):
        raise SpecError(
            f"{text!r} is not a JSON path such as '$.metadata' or '$.messages[*].name'",
            field=field,
        )
    steps: list[Step] = []
    position = 1
    while position < len(text):
        step = _STEP.match(text, position)
        if step is None:
            raise SpecError(
                f"{text!r} is not a JSON path: cannot read {text[position:]!r} "
                '(expected .name, [index], [*] or ["name"])',
                field=field,
            )
        steps.append(_step(step))
        position = step.end()
    if not steps:
        raise SpecError("'$' would ignore the whole body; name a part of it", field=field)
    return JsonPath(text, tuple(steps))


def ignored(value: object, field: str) -> Ignored:
    """The ``ignore`` list of a declaration: body paths and ``query.NAME`` entries."""
    if value is None:
        return Ignored()
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise SpecError("must be a list of JSON paths such as '$.metadata'", field=field)
    body: list[JsonPath] = []
    query: set[str] = set()
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        found = _QUERY.match(item) if isinstance(item, str) else None
        if found is not None:
            query.add(found.group("name"))
        else:
            body.append(parse(item, where))
    return Ignored(tuple(body), frozenset(query))


def _step(found: re.Match[str]) -> Step:
    name, index, quoted = found.group("name", "index", "quoted")
    if name is not None:
        return name
    if index is not None:
        return WILDCARD if index == WILDCARD else int(index)
    decoded = json.loads(quoted)
    assert isinstance(decoded, str)
    return decoded


def _removed(document: JSON, steps: tuple[Step, ...]) -> JSON:
    head, rest = steps[0], steps[1:]
    if isinstance(document, dict) and not isinstance(head, int):
        keys = list(document) if head == WILDCARD else [head]
        copy = dict(document)
        for key in keys:
            if key in copy:
                if rest:
                    copy[key] = _removed(copy[key], rest)
                else:
                    del copy[key]
        return copy
    if isinstance(document, list) and (isinstance(head, int) or head == WILDCARD):
        return _removed_items(document, head, rest)
    return document


def _removed_items(items: list[JSON], head: Step, rest: tuple[Step, ...]) -> JSON:
    chosen = range(len(items)) if head == WILDCARD else [head]
    copy = list(items)
    for position in chosen:
        if isinstance(position, int) and position < len(copy):
            # An ignored item keeps its place (so later indexes still line up) but not its
            # value: it is compared as null on both sides.
            copy[position] = _removed(copy[position], rest) if rest else None
    return copy
