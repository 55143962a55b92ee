"""What rate limits did to a run: each concurrency adjustment, and the retries and waits.

Each adjustment and retry is recorded with the sample whose call caused it, so it is stored
as that sample lands (an interrupted or resumed run keeps every one); :class:`RunPacing`
gathers them for the run's reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from assay_agents.errors import SpecError

#: Where a stored sample keeps its pacing, inside its metadata (no column of its own).
PACING_KEY = "assay.pacing"


@dataclass(frozen=True, slots=True)
class Adjustment:
    """The concurrency of one model changed: when, from what to what, and why.

    ``reason`` is ``rate limited`` or ``overloaded`` (a drop), or ``N successes`` (a climb).
    """

    at: datetime
    model: str
    before: int
    after: int
    reason: str

    def __post_init__(self) -> None:
        for name in ("before", "after"):
            if getattr(self, name) < 1:
                raise SpecError(f"must be 1 or more, not {getattr(self, name)!r}", field=name)


@dataclass(frozen=True, slots=True)
class SamplePacing:
    """One sample's rate-limit retries, the seconds it waited, and the adjustments it caused."""

    retries: int = 0
    waited_s: float = 0.0
    adjustments: tuple[Adjustment, ...] = ()

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise SpecError(f"must be 0 or more, not {self.retries!r}", field="retries")
        if not (math.isfinite(self.waited_s) and self.waited_s >= 0):
            raise SpecError(f"must be 0 or more seconds, not {self.waited_s!r}", field="waited_s")

    @property
    def empty(self) -> bool:
        """Whether nothing happened (no retry, no wait, no adjustment)."""
        return not (self.retries or self.waited_s or self.adjustments)


@dataclass(frozen=True, slots=True)
class RunPacing:
    """A run's adjustments in time order, and its retries and waits summed over its samples."""

    retries: int
    waited_s: float
    retried_samples: int
    adjustments: tuple[Adjustment, ...]

    @classmethod
    def of(cls, pacings: Iterable[SamplePacing | None]) -> RunPacing | None:
        """Gathered from every sample's pacing; None when no sample has any."""
        found = [pacing for pacing in pacings if pacing is not None and not pacing.empty]
        if not found:
            return None
        adjustments = sorted(
            (adjustment for pacing in found for adjustment in pacing.adjustments),
            key=lambda adjustment: adjustment.at,
        )
        return cls(
            retries=sum(pacing.retries for pacing in found),
            waited_s=sum(pacing.waited_s for pacing in found),
            retried_samples=sum(1 for pacing in found if pacing.retries),
            adjustments=tuple(adjustments),
        )
