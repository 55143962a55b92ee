"""Reading and writing frozen dataclasses as JSON, by their type hints.

One reader for every stored record: each value is checked against its field's type, and the
first that does not fit is a :class:`RecordError` naming its path (``settings.samples:
expected an integer``). Keys the type does not know are ignored (a newer Assay may have
added them); a field with a default may be missing (an older Assay did not write it).
Field metadata ``key`` renames a field in the stored form; ``omit_none`` leaves a ``None``
out of it.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from assay.errors import SpecError
from assay.spec.json_data import JSON

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


def write(value: object) -> JSON:
    """The stored (JSON) form of a record: what :func:`read` reads back."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _write_fields(value)
    if isinstance(value, enum.Enum):
        return cast(JSON, value.value)
    if isinstance(value, tuple | list):
        return [write(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): write(item) for key, item in value.items()}
    return cast(JSON, value)


def _write_fields(value: object) -> dict[str, JSON]:
    written: dict[str, JSON] = {}
    for field in dataclasses.fields(value):  # type: ignore[arg-type]
        item = getattr(value, field.name)
        if item is None and field.metadata.get("omit_none"):
            continue
        written[field.metadata.get("key", field.name)] = write(item)
    return written


def stored_key(field: dataclasses.Field[Any]) -> str:
    """The key a field is stored under."""
    return str(field.metadata.get("key", field.name))


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
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return _union_reader(args)
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
    inner = _reader(others[0]) if len(others) == 1 else _as_is

    def read_union(data: object, path: str) -> object:
        if data is None and optional:
            return None
        return inner(data, path)

    return read_union


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
        if field.init
    ]

    def read_record(data: object, path: str) -> object:
        if not isinstance(data, Mapping):
            raise RecordError(path, f"expected an object, not {_shown(data)}")
        values: dict[str, object] = {}
        for name, key, reader, optional in fields:
            where = f"{path}.{key}" if path else key
            if key in data:
                values[name] = reader(data[key], where)
            elif not optional:
                raise RecordError(where, "missing")
        try:
            return kind(**values)
        except SpecError as error:
            # A value that checks itself names the field it refused (``gate.min_pass_rate``).
            name = (error.field or "").rsplit(".", 1)[-1]
            raise RecordError(f"{path}.{name}" if name else path, error.detail) from None

    return read_record


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
