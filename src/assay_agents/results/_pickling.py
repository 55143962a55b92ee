"""Pickling a frozen, slotted dataclass by its fields' values in order, as dataclasses does.

Dataclasses' own ``__setstate__`` looks the fields up again for every object; a packed run
unpickles one sample and one metric per stored sample on every pass over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any


class FieldState:
    """The state of ``kind``'s instances: the same list dataclasses writes and reads."""

    def __init__(self, kind: type) -> None:
        self.kind = kind
        #: ``kind``'s fields, in order.
        self.names = tuple(each.name for each in fields(kind))

    def of(self, value: Any) -> list[object]:
        """What ``value`` is pickled as."""
        return [getattr(value, name) for name in self._names_of(value)]

    def restore(self, value: Any, state: Sequence[object]) -> None:
        """Set ``value``'s fields from its pickled ``state``."""
        for name, item in zip(self._names_of(value), state, strict=False):
            object.__setattr__(value, name, item)

    def _names_of(self, value: Any) -> tuple[str, ...]:
        # A subclass with fields of its own is pickled by all of them.
        if type(value) is self.kind:
            return self.names
        return tuple(each.name for each in fields(value))
