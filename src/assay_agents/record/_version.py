"""The version stored JSON carries, and reading it back."""

from __future__ import annotations

from collections.abc import Mapping

from assay_agents.record._typed import RecordError
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION

#: Forms written before records carried a version read as this one.
UNVERSIONED = 1


def version_of(data: object, path: str) -> int:
    """The ``schema_version`` of a stored object (:data:`UNVERSIONED` when it has none)."""
    if not isinstance(data, Mapping):
        raise RecordError(path, "expected an object")
    version = data.get(SCHEMA_KEY, UNVERSIONED)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        where = f"{path}.{SCHEMA_KEY}" if path else SCHEMA_KEY
        raise RecordError(where, f"expected an integer of at least 1, not {version!r}")
    return version


__all__ = ["SCHEMA_KEY", "SCHEMA_VERSION", "UNVERSIONED", "version_of"]
