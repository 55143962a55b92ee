"""The comparison stored with a completed run: against its baseline, and between its models.

Written and read by the codec from the types themselves
(:class:`~assay_agents.results.StoredComparison`), so a damaged or hand-edited one is a
:class:`RecordError` naming the field (``comparison.baseline.policy: missing``) as the store
loads the run, not a traceback in whichever report reads it later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from assay_agents.record._typed import RecordError, read, write
from assay_agents.record._version import SCHEMA_KEY, SCHEMA_VERSION, version_of
from assay_agents.results.comparison import StoredComparison


def write_comparison(stored: StoredComparison) -> dict[str, Any]:
    """``{"schema_version", "baseline", "models"}``: the form a run stores."""
    return {SCHEMA_KEY: SCHEMA_VERSION, **cast(dict[str, Any], write(stored))}


def read_comparison(data: object, path: str = "comparison") -> StoredComparison | None:
    """What :func:`write_comparison` wrote (``None`` for none); :class:`RecordError` if damaged.

    The first release stored a flat list of changes, without pairing or noise floor: it
    cannot be rebuilt faithfully and reads as nothing stored.
    """
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise RecordError(path, f"expected an object, not {type(data).__name__}")
    version_of(data, path)
    if "baseline" not in data and "models" not in data:
        return None
    stored = cast(StoredComparison, read(StoredComparison, data, path))
    return StoredComparison.of(stored.baseline, stored.models)
