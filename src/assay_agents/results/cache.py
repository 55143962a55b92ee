"""What the cache of judge and model calls holds, as ``assay-agents cache stats`` shows it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class CacheStats:
    """The replies kept for one ``kind`` (``judge``, ``model``) and ``source`` (what answered)."""

    kind: str
    source: str
    entries: int
    first: datetime | None = None
    last: datetime | None = None
