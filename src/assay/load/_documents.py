"""Reading TOML, JSON and YAML documents strictly: duplicate keys, NaN and dates refused.

The parsers are imported here, on first use, so ``import assay`` stays light.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.errors import SpecError


def read_text(path: Path) -> str:
    """The file's UTF-8 text, or a spec error naming the file."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("no such file", location=str(path)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"cannot be read: {error}", location=str(path)) from None


def parse_toml(text: str, location: str) -> Any:
    """A TOML document (TOML itself refuses duplicate keys)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"invalid TOML: {error}", location=location) from None


def parse_json(text: str, location: str) -> Any:
    """A JSON document; duplicate keys and NaN or Infinity are refused."""
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
    except ValueError as error:
        raise SpecError(f"invalid JSON: {error}", location=location) from None


def parse_yaml(text: str, location: str) -> Any:
    """A YAML document, read safely; duplicate keys are refused and dates stay strings."""
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())
    except yaml.YAMLError as error:
        raise SpecError(f"invalid YAML: {error}", location=location) from None
    except ValueError as error:
        raise SpecError(f"invalid YAML: {error}", location=location) from None


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_LOADER: list[type] = []


def _strict_loader() -> type:
    # Built once, lazily: a SafeLoader that keeps timestamps as text and refuses duplicates.
    if _LOADER:
        return _LOADER[0]
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader without the timestamp resolver, refusing duplicate keys."""

    StrictLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                 _mapping_constructor(yaml))
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
                    None, None, "a mapping key must be a plain value", key_node.start_mark)
            if key in result:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            result[key] = loader.construct_object(value_node, deep=True)
        return result

    return construct
