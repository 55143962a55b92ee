"""A completed run's summary in its stored form.

Version 1 (no ``schema_version``, the first release) and version 2 hold the same figures;
the ones added since then have defaults, so both read as they are.
"""

from __future__ import annotations

from typing import Any, cast

from assay.record._typed import read, write
from assay.record._version import SCHEMA_KEY, SCHEMA_VERSION, version_of
from assay.results import RunSummary


def write_summary(summary: RunSummary) -> dict[str, Any]:
    """The stored form of a summary, with its ``schema_version``."""
    return {SCHEMA_KEY: SCHEMA_VERSION, **cast(dict[str, Any], write(summary))}


def read_summary(data: object, path: str = "summary") -> RunSummary:
    """The summary a stored form holds (any version); :class:`RecordError` when damaged."""
    version_of(data, path)
    return cast(RunSummary, read(RunSummary, data, path))
