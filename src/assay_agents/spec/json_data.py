"""JSON portability and typed canonical JSON, the basis of every fingerprint."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, TypeAlias

from assay_agents.errors import SpecError

JSON: TypeAlias = bool | int | float | str | list["JSON"] | dict[str, "JSON"] | None


def portable(value: Any, field: str) -> JSON:
    """Return a deep, JSON-portable copy of ``value`` or raise naming the offending path.

    Tuples become lists; mappings must have string keys; floats must be finite. Anything else
    (sets, bytes, objects) is refused when the case is defined, not halfway through a run.
    """
    if isinstance(value, str):
        return storable_text(value, field)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SpecError(f"{value!r} is not a finite number", field=field)
        return value
    if isinstance(value, list | tuple):
        return [portable(item, f"{field}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, Mapping):
        return _portable_mapping(value, field)
    kind = type(value).__name__
    raise SpecError(
        f"a {kind} is not JSON-portable (use str, number, bool, None, list, dict)", field=field
    )


def storable_text(text: str, field: str) -> str:
    """Text every backend can store, or a :class:`SpecError` naming ``field``.

    No NUL character (PostgreSQL refuses it) and no lone surrogate (not valid UTF-8).
    """
    if "\x00" in text:
        raise SpecError("contains a NUL character, which cannot be stored", field=field)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise SpecError(
            "contains a lone surrogate, which is not valid UTF-8 text", field=field
        ) from None
    return text


def shown_text(text: str) -> str:
    """``text`` with any lone surrogate escaped, so that an error naming it can be printed."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _portable_mapping(value: Mapping[Any, Any], field: str) -> dict[str, JSON]:
    result: dict[str, JSON] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise SpecError(f"key {key!r} is not a string", field=field)
        storable_text(key, field)
        result[key] = portable(item, f"{field}.{key}")
    return result


def copy_json(value: JSON) -> JSON:
    """A deep copy of portable JSON; much cheaper than :func:`copy.deepcopy` on the hot path."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def canonical_json(value: JSON) -> str:
    """Serialise with sorted keys and no spacing: equal values give equal text.

    Types survive: the string ``"1"`` and the number ``1`` differ, and so do ``null`` and
    ``false``; an integer and a float of the same value are written differently too.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def digest(value: JSON) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


#: The version of the JSON Assay stores (summaries, comparisons). A reader accepts a newer
#: version's extra keys and ignores them; a key it needs and cannot find is an error.
SCHEMA_VERSION = 2
SCHEMA_KEY = "schema_version"


def known_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are fields of the dataclass ``cls``; the rest is dropped.

    Stored JSON written by a newer Assay may carry keys this one does not know.
    """
    names = getattr(cls, "__dataclass_fields__", {})
    return {key: value for key, value in data.items() if key in names}


class DuplicateKeyError(ValueError):
    """A JSON object gives the same key twice: which value was meant is anyone's guess."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads` that refuses a repeated key."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def no_constant(name: str) -> Any:
    """``parse_constant`` for :func:`json.loads` that refuses NaN and the infinities."""
    raise ValueError(f"{name} is not a JSON number")


def strict_loads(text: str) -> Any:
    """JSON without repeated keys, NaN or Infinity (:class:`ValueError` says which).

    Deep nesting raises :class:`RecursionError`, which callers turn into their own error.
    """
    return json.loads(text, object_pairs_hook=unique_pairs, parse_constant=no_constant)
