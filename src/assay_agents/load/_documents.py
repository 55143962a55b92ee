"""Reading TOML, JSON and YAML documents strictly: duplicate keys, NaN and dates refused.

Suite files may come from people the reader does not trust, so every document is bounded:
its file may be at most :data:`~assay_agents.limits.MAX_SUITE_FILE_BYTES` long, it may nest at
most :data:`MAX_DEPTH` tables and lists deep, no list or table may hold more than
:data:`~assay_agents.limits.MAX_DOCUMENT_ENTRIES` entries, and YAML aliases may add at most
:data:`MAX_ALIAS_NODES` nodes to it once expanded (a few hundred bytes of nested aliases
otherwise expand to billions of nodes). The nesting and aliases are checked before anything
walks the data recursively, and a document past any bound is a spec error naming the file.

The parsers are imported here, on first use, so ``import assay_agents`` stays light.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.limits import MAX_DOCUMENT_ENTRIES, MAX_SUITE_FILE_BYTES, read_bounded
from assay_agents.spec.json_data import strict_loads

#: The deepest a document may nest tables (mappings) and lists inside each other.
MAX_DEPTH = 100
#: How many nodes YAML aliases may add to a document, counted as if each were written out.
MAX_ALIAS_NODES = 100_000

_SATURATED = 2**62
_TOO_DEEP = f"is nested more than {MAX_DEPTH} levels deep"
_TOO_WIDE = (
    f"has a list or table of more than {MAX_DOCUMENT_ENTRIES:,} entries; "
    "split it into several suites"
)


class _Refused(Exception):
    """A document past a bound; the parser turns it into a spec error naming the file."""


def read_text(path: Path) -> str:
    """The file's UTF-8 text, or a spec error naming the file.

    Only regular files are read (a FIFO or a device would block or never end), and at most
    :data:`~assay_agents.limits.MAX_SUITE_FILE_BYTES` of them; a leading byte order mark is dropped.
    """
    raw = read_bounded(path, MAX_SUITE_FILE_BYTES, "a suite file")
    try:
        # Universal newlines, as Path.read_text gives them.
        return without_bom(raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    except UnicodeDecodeError as error:
        raise SpecError(f"cannot be read: {error}", location=str(path)) from None


def without_bom(text: str) -> str:
    """``text`` without the byte order mark some editors put first (it is no character of it).

    Left in, it hides a JSON document's ``[`` and makes TOML and JSON invalid.
    """
    return text.removeprefix("\ufeff")


def parse_toml(text: str, location: str) -> Any:
    """A TOML document (TOML itself refuses duplicate keys)."""
    import tomllib

    if _dotted_too_deep(text):
        # Checked before parsing: the parser spends quadratic time on long dotted keys.
        raise SpecError(_TOO_DEEP, location=location)
    try:
        return _bounded(tomllib.loads(text), location)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"invalid TOML: {error}", location=location) from None
    except RecursionError:
        raise SpecError(_TOO_DEEP, location=location) from None


# The tokens of TOML a dotted key is made of, each read where it starts (``match``) and
# possessively, so no character is scanned twice: bare keys, strings (multi-line ones
# first; an unterminated one ends at the line, and the parser says why it is invalid),
# dots, blanks, comments, and anything else, which ends a dotted run.
_TOML_TOKEN = re.compile(
    r"(?P<atom>[A-Za-z0-9_-]++"
    r'|"""(?:[^"\\]|\\.|"(?!""))*+(?:""")?'
    r"|'''(?:[^']|'(?!''))*+(?:''')?"
    r'|"(?:[^"\\\n]|\\.)*+"?'
    r"|'[^'\n]*+'?)"
    r"|(?P<dot>\.)|(?P<blank>[ \t]++)|(?P<comment>#[^\n]*+)|(?P<other>.|\n)"
)


def _dotted_too_deep(text: str) -> bool:
    """Whether a dotted key joins more than :data:`MAX_DEPTH` parts.

    Anywhere: in a table header, a key/value line or an inline table. Read by a tokeniser,
    not by splitting lines: a quoted ``=`` or ``]`` in a key (``"=".k.k.k...``) is part of
    the key, and a string value is no key at all.
    """
    if text.count(".") < MAX_DEPTH:
        return False  # a key of more parts needs more dots
    parts, dotted, position = 0, False, 0
    while position < len(text):
        token = _TOML_TOKEN.match(text, position)
        assert token is not None  # "other" matches any character
        position = token.end()
        kind = token.lastgroup
        if kind == "atom":
            parts = parts + 1 if dotted else 1
            dotted = False
            if parts > MAX_DEPTH:
                return True
        elif kind == "dot":
            dotted = parts > 0
        elif kind != "blank":
            parts, dotted = 0, False
    return False


def parse_json(text: str, location: str) -> Any:
    """A JSON document; duplicate keys and NaN or Infinity are refused."""
    try:
        data = strict_loads(text)
    except ValueError as error:
        raise SpecError(f"invalid JSON: {error}", location=location) from None
    except RecursionError:
        # The decoder recurses per level, so thousands of brackets end here.
        raise SpecError(_TOO_DEEP, location=location) from None
    return _bounded(data, location)


def parse_yaml(text: str, location: str) -> Any:
    """A YAML document, read safely; duplicate keys are refused and dates stay strings.

    The composed node graph is measured before it is constructed, so an alias bomb or a
    recursive alias is refused without being expanded.
    """
    import yaml

    try:
        return _construct(_strict_loader()(text), yaml)
    except _Refused as error:
        raise SpecError(str(error), location=location) from None
    except (yaml.YAMLError, ValueError) as error:
        raise SpecError(f"invalid YAML: {error}", location=location) from None


def composes_as_mapping(text: str) -> bool:
    """Whether ``text`` is one YAML mapping, told without constructing (expanding) it.

    A document past the nesting bound counts as one, so that parsing it says why it is refused.
    """
    import yaml

    loader = _strict_loader()
    try:
        return isinstance(yaml.compose(text, Loader=loader), yaml.MappingNode)
    except _Refused:
        return True
    except yaml.YAMLError:
        return False


def _construct(loader: Any, yaml: Any) -> Any:
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _measure(node, yaml)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def depth(value: Any) -> int:
    """How deep ``value`` nests lists and mappings (a scalar is 0), walked without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        current, level = pending.pop()
        children = _children(current)
        if children is None:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            return deepest
        pending.extend((child, level + 1) for child in children)
    return deepest


def _children(value: Any) -> Iterator[Any] | None:
    if isinstance(value, dict):
        return iter(value.values())
    if isinstance(value, list):
        return iter(value)
    return None


def _bounded(data: Any, location: str) -> Any:
    if depth(data) > MAX_DEPTH:
        raise SpecError(_TOO_DEEP, location=location)
    if widest(data) > MAX_DOCUMENT_ENTRIES:
        raise SpecError(_TOO_WIDE, location=location)
    return data


def widest(value: Any) -> int:
    """The most entries any one list or mapping in ``value`` holds, walked without recursion."""
    most = 0
    pending: list[Any] = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, dict | list):
            most = max(most, len(current))
            if most > MAX_DOCUMENT_ENTRIES:
                return most
            pending.extend(current.values() if isinstance(current, dict) else current)
    return most


def _measure(root: Any, yaml: Any) -> None:
    """Refuse a node graph nested too deeply, recursive, or that aliases expand too far.

    A post-order walk with memo: each node's expanded size and depth are computed once, so
    the walk is linear in the nodes written, however far their aliases would expand.
    """
    sizes: dict[int, tuple[int, int]] = {}
    on_path: set[int] = set()
    # (node, None) is a node to enter; (node, children) one whose children are measured.
    stack: list[tuple[Any, list[Any] | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        if kids is not None:
            on_path.discard(id(node))
            sizes[id(node)] = _sized(node, kids, sizes, yaml)
        elif id(node) not in sizes:
            if id(node) in on_path:
                raise _Refused("has an alias inside the node it refers to (a recursive alias)")
            on_path.add(id(node))
            if len(node.value) > MAX_DOCUMENT_ENTRIES and not isinstance(node, yaml.ScalarNode):
                raise _Refused(_TOO_WIDE)
            kids = _node_children(node, yaml)
            stack.append((node, kids))
            stack.extend((kid, None) for kid in kids if id(kid) not in sizes)
    expanded, level = sizes[id(root)]
    if level > MAX_DEPTH:
        raise _Refused(_TOO_DEEP)
    if expanded - len(sizes) > MAX_ALIAS_NODES:
        raise _Refused(
            f"expands its aliases past {MAX_ALIAS_NODES:,} nodes more than it "
            "writes (an alias bomb?)"
        )


def _sized(
    node: Any, kids: list[Any], sizes: dict[int, tuple[int, int]], yaml: Any
) -> tuple[int, int]:
    """A node's expanded size (saturated, so a bomb's stays machine-sized) and depth."""
    measured = [sizes[id(kid)] for kid in kids]
    size = min(1 + sum(size for size, _ in measured), _SATURATED)
    if not isinstance(node, yaml.CollectionNode):
        return size, 0
    return size, 1 + max((level for _, level in measured), default=0)


def _node_children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


_LOADER: list[type] = []


def _strict_loader() -> type:
    # Built once, lazily: a SafeLoader that keeps timestamps as text and refuses duplicates.
    if _LOADER:
        return _LOADER[0]
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader without the timestamp resolver, refusing duplicate keys."""

    StrictLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    StrictLoader.add_constructor(
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_constructor(yaml)
    )
    StrictLoader.compose_node = _bounded_compose(yaml.SafeLoader.compose_node)  # type: ignore[method-assign]
    _LOADER.append(StrictLoader)
    return StrictLoader


def _mapping_constructor(yaml: Any) -> Callable[[Any, Any], dict[Any, Any]]:
    def construct(loader: Any, node: Any) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value", key_node.start_mark
                )
            if key in result:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            result[key] = loader.construct_object(value_node, deep=True)
        return result

    return construct


def _bounded_compose(compose: Callable[..., Any]) -> Callable[..., Any]:
    # The composer recurses once per level: stop it at the bound, before Python's own limit.
    def compose_node(loader: Any, parent: Any, index: Any) -> Any:
        level = getattr(loader, "assay_level", 0)
        if level > MAX_DEPTH:
            raise _Refused(_TOO_DEEP)
        loader.assay_level = level + 1
        try:
            return compose(loader, parent, index)
        finally:
            loader.assay_level = level

    return compose_node
