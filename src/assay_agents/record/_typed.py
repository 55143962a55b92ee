"""Reading and writing frozen dataclasses as JSON, by their type hints.

One reader for every stored record: each value is checked against its field's type, and the
first that does not fit is a :class:`RecordError` naming its path (``settings.samples:
expected an integer``). Keys the type does not know are ignored (a newer Assay may have
added them); a field with a default may be missing (an older Assay did not write it).
Field metadata ``key`` renames a field in the stored form (a dotted key, ``pairing.paired``,
stores it inside an object); ``omit_none`` leaves a ``None`` out of it, ``omit_empty`` an
empty collection; ``stored: False`` keeps a field out of it (it reads as its default). A
field that is not an ``__init__`` argument is a figure derived from the others: written for
readers that do not rebuild it, never read. A dataclass with a ``record_tag``
(``("status", "measured")``) writes the tag first, and a union of such dataclasses is read
as the one its tag names. A named tuple is an object keyed by its field names; a
``datetime`` is its ISO 8601 text. A record given where its stored form is expected is read
as itself (a part read already, from a row of its own).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar, cast

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON

T = TypeVar("T")


class RecordError(ValueError):
    """A stored record that does not read: ``path`` is the field, ``detail`` what is wrong."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}" if path else detail)
        self.path = path
        self.detail = detail


def read(kind: Any, data: object, path: str) -> Any:
    """``data`` read as a value of type ``kind`` (see the module docstring)."""
    return _reader(kind)(data, path)


#: Values stored as they are (exact types: an enum or a subclass of ``str`` is converted).
_PLAIN = frozenset({str, int, float, bool})


def write(value: object) -> JSON:
    """The stored (JSON) form of a record: what :func:`read` reads back."""
    if value is None or type(value) in _PLAIN:  # most values of most samples: no lookups
        return cast(JSON, value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _write_fields(value)
    if isinstance(value, enum.Enum):
        return cast(JSON, value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple) and _named(type(value)):
        fields: dict[str, object] = cast(Any, value)._asdict()
        return {name: write(item) for name, item in fields.items()}
    if isinstance(value, tuple | list):
        return [write(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): write(item) for key, item in value.items()}
    return cast(JSON, value)


def _write_fields(value: object) -> dict[str, JSON]:
    written: dict[str, JSON] = {}
    tag = _tag(type(value))
    if tag is not None:
        written[tag[0]] = tag[1]
    for field in dataclasses.fields(value):  # type: ignore[arg-type]
        item = getattr(value, field.name)
        if not _stored(field) or (item is None and field.metadata.get("omit_none")):
            continue
        if not item and field.metadata.get("omit_empty"):
            continue
        *parents, key = stored_key(field).split(".")
        into = written
        for parent in parents:
            into = cast(dict[str, JSON], into.setdefault(parent, {}))
        into[key] = write(item)
    return written


def _named(kind: Any) -> bool:
    """Whether ``kind`` is a named tuple (its fields have names, so it is stored as an object)."""
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


def stored_key(field: dataclasses.Field[Any]) -> str:
    """The key a field is stored under (dotted: inside an object)."""
    return str(field.metadata.get("key", field.name))


def _stored(field: dataclasses.Field[Any]) -> bool:
    return bool(field.metadata.get("stored", True))


def _tag(kind: type) -> tuple[str, str] | None:
    """The ``(key, value)`` a dataclass is told apart by in a union, if it has one."""
    tag = getattr(kind, "record_tag", None)
    return cast(tuple[str, str], tag) if isinstance(tag, tuple) else None


# -- readers, built once per type ---------------------------------------------------------

Reader = Callable[[object, str], Any]


@functools.cache
def _reader(kind: Any) -> Reader:
    if kind is JSON or kind is Any or kind is object:
        return _as_is
    if kind is types.NoneType:
        return _none
    if kind in _SCALARS:
        return _SCALARS[kind]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return _enum_reader(kind)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _dataclass_reader(kind)
    if kind is datetime:
        return _timestamp
    if _named(kind):
        return _named_reader(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return _union_reader(args)
    if origin is tuple and args and args[-1] is not Ellipsis:
        return _fixed_reader(tuple(_reader(arg) for arg in args))
    if origin in (tuple, list) or origin is typing.get_origin(typing.Sequence):
        return _sequence_reader(_reader(args[0]), tuple if origin is tuple else list)
    if origin in (dict, Mapping) or origin is typing.get_origin(typing.Mapping):
        return _mapping_reader(_reader(args[1]))
    if origin is typing.Literal:
        return _literal_reader(args)
    return _unreadable(kind)


def _unreadable(kind: Any) -> Reader:
    # A field of a type with no stored form (a protocol, a callable): only its default reads.
    def refuse(data: object, path: str) -> object:
        raise RecordError(path, f"has no stored form this version reads ({kind!r})")

    return refuse


def _as_is(data: object, path: str) -> object:
    return data


def _none(data: object, path: str) -> None:
    if data is not None:
        raise RecordError(path, f"expected null, not {_shown(data)}")


def _integer(data: object, path: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise RecordError(path, f"expected an integer, not {_shown(data)}")
    return data


def _number(data: object, path: str) -> float:
    if isinstance(data, bool) or not isinstance(data, int | float):
        raise RecordError(path, f"expected a number, not {_shown(data)}")
    return float(data)


def _text(data: object, path: str) -> str:
    if not isinstance(data, str):
        raise RecordError(path, f"expected text, not {_shown(data)}")
    return data


def _boolean(data: object, path: str) -> bool:
    if not isinstance(data, bool):
        raise RecordError(path, f"expected true or false, not {_shown(data)}")
    return data


def _timestamp(data: object, path: str) -> datetime:
    if isinstance(data, str):
        try:
            return datetime.fromisoformat(data)
        except ValueError:
            pass
    raise RecordError(path, f"expected an ISO 8601 timestamp, not {_shown(data)}")


_SCALARS: dict[Any, Reader] = {int: _integer, float: _number, str: _text, bool: _boolean}


def _enum_reader(kind: type[enum.Enum]) -> Reader:
    values = [member.value for member in kind]

    def read_enum(data: object, path: str) -> enum.Enum:
        if isinstance(data, str | int) and not isinstance(data, bool) and data in values:
            return kind(data)
        listed = ", ".join(repr(value) for value in values)
        raise RecordError(path, f"expected one of {listed}, not {_shown(data)}")

    return read_enum


def _literal_reader(allowed: tuple[Any, ...]) -> Reader:
    def read_literal(data: object, path: str) -> object:
        if any(data == value and type(data) is type(value) for value in allowed):
            return data
        listed = ", ".join(repr(value) for value in allowed)
        raise RecordError(path, f"expected one of {listed}, not {_shown(data)}")

    return read_literal


def _union_reader(args: tuple[Any, ...]) -> Reader:
    optional = types.NoneType in args
    others = [arg for arg in args if arg is not types.NoneType]
    tagged = [arg for arg in others if isinstance(arg, type) and _tag(arg) is not None]
    if len(others) == 1:
        inner = _reader(others[0])
    elif len(tagged) == len(others):
        inner = _tagged_reader(tagged)
    else:
        inner = _as_is

    def read_union(data: object, path: str) -> object:
        if data is None and optional:
            return None
        return inner(data, path)

    return read_union


def _tagged_reader(kinds: list[type]) -> Reader:
    # Each kind's tag has the same key; its value names the kind the data is read as.
    key = cast(tuple[str, str], _tag(kinds[0]))[0]
    by_value = {cast(tuple[str, str], _tag(kind))[1]: kind for kind in kinds}

    def read_tagged(data: object, path: str) -> object:
        if not isinstance(data, Mapping):
            raise RecordError(path, f"expected an object, not {_shown(data)}")
        where = f"{path}.{key}" if path else key
        if key not in data:
            raise RecordError(where, "missing")
        value = data[key]
        if not isinstance(value, str) or value not in by_value:
            listed = ", ".join(repr(tag) for tag in by_value)
            raise RecordError(where, f"expected one of {listed}, not {_shown(value)}")
        return _reader(by_value[value])(data, path)

    return read_tagged


def _fixed_reader(items: tuple[Reader, ...]) -> Reader:
    # A tuple of a fixed length (a pair of figures, a case and its model).
    def read_fixed(data: object, path: str) -> tuple[object, ...]:
        if not isinstance(data, list | tuple) or len(data) != len(items):
            raise RecordError(path, f"expected a list of {len(items)}, not {_shown(data)}")
        return tuple(
            item(value, f"{path}[{index}]")
            for index, (item, value) in enumerate(zip(items, data, strict=True))
        )

    return read_fixed


def _sequence_reader(item: Reader, build: type) -> Reader:
    def read_sequence(data: object, path: str) -> object:
        if not isinstance(data, list | tuple):
            raise RecordError(path, f"expected a list, not {_shown(data)}")
        return build(item(value, f"{path}[{index}]") for index, value in enumerate(data))

    return read_sequence


def _mapping_reader(item: Reader) -> Reader:
    def read_mapping(data: object, path: str) -> dict[str, object]:
        if not isinstance(data, Mapping):
            raise RecordError(path, f"expected an object, not {_shown(data)}")
        return {str(key): item(value, f"{path}.{key}") for key, value in data.items()}

    return read_mapping


def _dataclass_reader(kind: type) -> Reader:
    hints = typing.get_type_hints(kind)
    fields = [
        (field.name, stored_key(field), _reader(hints[field.name]), _has_default(field))
        for field in dataclasses.fields(kind)
        if field.init and _stored(field)
    ]
    # A key at the top of the object (most are) is read without walking a dotted path.
    flat = [(name, key, reader, optional, "." not in key) for name, key, reader, optional in fields]

    def read_record(data: object, path: str) -> object:
        if type(data) is kind:
            return data  # built already (a stored sample's metrics, read apart from it)
        if type(data) is not dict and not isinstance(data, Mapping):
            raise RecordError(path, f"expected an object, not {_shown(data)}")
        values: dict[str, object] = {}
        prefix = f"{path}." if path else ""
        for name, key, reader, optional, top in flat:
            if top:
                if key in data:
                    values[name] = reader(data[key], prefix + key)
                elif not optional:
                    raise RecordError(prefix + key, "missing")
                continue
            holder, where = _holder(data, key, path)
            last = key.rsplit(".", 1)[-1]
            if holder is not None and last in holder:
                values[name] = reader(holder[last], where)
            elif not optional:
                raise RecordError(where, "missing")
        try:
            return kind(**values)
        except SpecError as error:
            # A value that checks itself names the field it refused (``gate.min_pass_rate``).
            name = (error.field or "").rsplit(".", 1)[-1]
            raise RecordError(_joined(path, name), error.detail) from None

    return read_record


def _named_reader(kind: type) -> Reader:
    hints = typing.get_type_hints(kind)
    defaults: dict[str, object] = getattr(kind, "_field_defaults", {})
    fields = [(name, _reader(hints[name])) for name in getattr(kind, "_fields", ())]

    def read_named(data: object, path: str) -> object:
        if not isinstance(data, Mapping):
            raise RecordError(path, f"expected an object, not {_shown(data)}")
        values: dict[str, object] = {}
        for name, reader in fields:
            if name in data:
                values[name] = reader(data[name], _joined(path, name))
            elif name not in defaults:
                raise RecordError(_joined(path, name), "missing")
        return kind(**values)

    return read_named


def _holder(data: Mapping[str, Any], key: str, path: str) -> tuple[Mapping[str, Any] | None, str]:
    """The object a dotted key is in, and the key's path (``None``: that object is missing)."""
    holder, where = data, path
    *parents, last = key.split(".")
    for parent in parents:
        where = f"{where}.{parent}" if where else parent
        if parent not in holder:
            return None, where
        inner = holder[parent]
        if not isinstance(inner, Mapping):
            raise RecordError(where, f"expected an object, not {_shown(inner)}")
        holder = inner
    return holder, f"{where}.{last}" if where else last


def _joined(path: str, name: str) -> str:
    if not name:
        return path
    return f"{path}.{name}" if path else name


def _has_default(field: dataclasses.Field[Any]) -> bool:
    return (
        field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
    )


def _shown(data: object) -> str:
    if isinstance(data, Mapping):
        return "an object"
    if isinstance(data, list | tuple):
        return "a list"
    text = repr(data)
    return text if len(text) <= 40 else f"{text[:37]}..."
