"""Documents generated from the JSON Schemas ``assay-agents schema`` prints, and mutations of them.

The schema says what each field may hold; what it cannot say (keys unique in their list, a
turn that is text or a reply, provenance only for parts an item has) is given per path in
``overrides``. A path is dotted, with ``[]`` for the items of a list: ``groups[].scenarios``.
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

OMIT = object()  # an override that leaves the field out
WORDS = st.text(alphabet=string.ascii_lowercase + string.digits + "_.-", min_size=1, max_size=8)
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**31), 2**31)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | WORDS
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(WORDS, inner, max_size=3),
    max_leaves=8,
)


def documents(
    schema: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> st.SearchStrategy[Any]:
    """Valid documents of ``schema``, with ``overrides`` (path → strategy or OMIT)."""
    return _strategy(schema, schema, "", dict(overrides or {}))


def _strategy(
    root: Mapping[str, Any], node: Mapping[str, Any], path: str, overrides: dict[str, Any]
) -> st.SearchStrategy[Any]:
    if path in overrides:
        return overrides[path]
    node = _resolved(root, node)
    if "anyOf" in node:
        return st.one_of([_strategy(root, member, path, overrides) for member in node["anyOf"]])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind == "object":
        return _object(root, node, path, overrides)
    if kind == "array":
        return st.lists(_strategy(root, node.get("items", {}), path + "[]", overrides), max_size=3)
    return _scalar(node, kind)


def _object(
    root: Mapping[str, Any], node: Mapping[str, Any], path: str, overrides: dict[str, Any]
) -> st.SearchStrategy[Any]:
    properties = node.get("properties")
    if properties is None:  # a mapping of any keys to one kind of value
        values = node.get("additionalProperties", {})
        return st.dictionaries(
            WORDS,
            _strategy(root, values if isinstance(values, dict) else {}, path + ".*", overrides),
            max_size=3,
        )
    required, optional = {}, {}
    for name, member in properties.items():
        child = f"{path}.{name}" if path else name
        chosen = _strategy(root, member, child, overrides)
        if chosen is OMIT:
            continue
        (required if name in node.get("required", ()) else optional)[name] = chosen
    return st.fixed_dictionaries(required, optional=optional)


def _scalar(node: Mapping[str, Any], kind: Any) -> st.SearchStrategy[Any]:
    if kind == "string":
        if "pattern" in node:  # the one pattern the formats use: an entry point
            return st.sampled_from(["agents:agent", "harness.py:Harness", "pkg.mod:make.run"])
        return WORDS if node.get("minLength") else WORDS | st.just("")
    if kind == "integer":
        return st.integers(node.get("minimum", -1000), node.get("maximum", 1000))
    if kind == "number":
        return st.floats(
            node.get("minimum", -1e6),
            node.get("maximum", 1e6),
            allow_nan=False,
            allow_infinity=False,
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return JSON_VALUES  # no type: any JSON value


def _resolved(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


@dataclass(frozen=True)
class Spot:
    """One value inside a document, with the schema that governs it."""

    path: tuple[str | int, ...]
    schema: Mapping[str, Any]  # the branch of an anyOf the value took
    value: Any
    whole: Mapping[str, Any]  # the field's schema, every branch included

    @property
    def field(self) -> str:
        """The path as errors print it: ``groups[0].scenarios``."""
        text = ""
        for part in self.path:
            text = (
                f"{text}[{part}]" if isinstance(part, int) else (f"{text}.{part}" if text else part)
            )
        return text


def spots(root: Mapping[str, Any], value: Any) -> Iterator[Spot]:
    """Every value of a valid document that the schema constrains, parents first."""
    pending = [Spot((), root, value, root)]
    while pending:
        spot = pending.pop()
        node = _member(root, spot.schema, spot.value)
        if node is None:
            continue
        yield Spot(spot.path, node, spot.value, spot.whole)
        if isinstance(spot.value, dict) and "properties" in node:
            pending.extend(
                Spot((*spot.path, key), node["properties"][key], item, node["properties"][key])
                for key, item in spot.value.items()
                if key in node["properties"]
            )
        elif isinstance(spot.value, list) and "items" in node:
            pending.extend(
                Spot((*spot.path, index), node["items"], item, node["items"])
                for index, item in enumerate(spot.value)
            )


def _member(root: Mapping[str, Any], node: Mapping[str, Any], value: Any) -> Any:
    """The branch of an ``anyOf`` that ``value`` took; ``None`` for any-JSON values."""
    node = _resolved(root, node)
    for member in node.get("anyOf", ()):
        resolved = _resolved(root, member)
        if value_type(value) in allowed_types(root, resolved):
            return resolved
    return node if "anyOf" not in node and node.get("type") else None


def value_type(value: Any) -> str:
    """The JSON type of a value."""
    kinds = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
        type(None): "null",
    }
    return kinds[type(value)]


def allowed_types(root: Mapping[str, Any], node: Mapping[str, Any]) -> set[str]:
    """The JSON types a schema node admits (all of them when it does not say)."""
    node = _resolved(root, node)
    if "anyOf" in node:
        return set().union(*(allowed_types(root, member) for member in node["anyOf"]))
    kind = node.get("type")
    if kind is None:
        return {"boolean", "integer", "number", "string", "array", "object", "null"}
    return {kind, "integer"} if kind == "number" else {kind}


#: A value of each JSON type, to put where the schema does not admit it.
WRONG = {
    "string": "text",
    "integer": 7,
    "number": 2.5,
    "boolean": True,
    "array": ["x"],
    "object": {"x": 1},
    "null": None,
}
