"""The comparison stored with a run: checked when the run is read, so a damaged one is named.

The comparison keeps its stored form on the run (reports rebuild it from there); reading it
here once, as the store loads the run, turns a damaged or hand-edited one into a
:class:`RecordError` naming the field (``comparison.baseline.policy: missing``) instead of a
traceback in whichever report reads it later. The forms below hold what rebuilding a
comparison requires of its stored form; a key an earlier version did not write has a default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.errors import SpecError
from assay.record._typed import RecordError, read
from assay.spec.json_data import JSON


@dataclass(frozen=True, kw_only=True)
class _PairingForm:
    paired: int
    only_in_baseline: int
    only_in_current: int


@dataclass(frozen=True, kw_only=True)
class _MeasuredHeadlineForm:
    before_passed: int
    before_evaluated: int
    after_passed: int
    after_evaluated: int
    noise: str


@dataclass(frozen=True, kw_only=True)
class _PairedItemForm:
    case_id: str
    pairing: str
    model: str | None = None
    parts: list[dict[str, JSON]] | None = None


@dataclass(frozen=True, kw_only=True)
class _MovementForm:
    case_id: str
    kind: str
    model: str | None = None
    before: list[int] | None = None
    after: list[int] | None = None


@dataclass(frozen=True, kw_only=True)
class _NoiseFloorForm:
    control: list[str]
    pass_rate: float
    metrics: dict[str, float]
    moved: list[_MovementForm] | None = None


@dataclass(frozen=True, kw_only=True)
class _PolicyForm:
    tolerance: float = 0.0
    drift_tolerance: float = 0.0
    max_excluded_share: float = 0.0
    flaky_share: float = 0.0

    def __post_init__(self) -> None:
        # A share outside [0, 1] would otherwise stop the comparison rebuilding, unnamed.
        for name in ("tolerance", "drift_tolerance", "max_excluded_share", "flaky_share"):
            value = getattr(self, name)
            if not math.isfinite(value) or not 0.0 <= value <= 1.0:
                raise SpecError(f"must be a number in [0, 1], not {value!r}", field=name)


@dataclass(frozen=True, kw_only=True)
class _ChangeForm:
    kind: str
    case_id: str
    model: str | None
    metric: str
    metric_kind: str
    category: str
    before: float | None
    after: float | None


@dataclass(frozen=True, kw_only=True)
class _BaselineForm:
    # In the order the comparison writes its keys, so the first damaged one is named.
    baseline_id: str
    current_id: str
    pairing: _PairingForm
    movements: list[_MovementForm] | None = None
    added: list[list[JSON]] | None = None
    removed: list[list[JSON]] | None = None
    corpus_defects: list[_PairedItemForm]
    headline: dict[str, JSON]
    excluded: list[_PairedItemForm]
    intended_changes: list[_PairedItemForm]
    policy: _PolicyForm
    noise_floor: _NoiseFloorForm | None = None
    changes: list[_ChangeForm]


@dataclass(frozen=True, kw_only=True)
class _ModelIntervalForm:
    model: str
    cases: int
    pass_rate: float
    interval: list[float] | None
    unverified: int | None = None


@dataclass(frozen=True, kw_only=True)
class _PairComparisonForm:
    models: list[str]
    cases: int
    difference: float | None
    interval: list[float] | None
    decisive: bool
    detectable: float | None = None
    cases_needed: int | None = None


@dataclass(frozen=True, kw_only=True)
class _ModelsForm:
    resamples: int
    seed: int
    confidence: float
    power: float
    models: list[_ModelIntervalForm]
    pairs: list[_PairComparisonForm]


def checked_comparison(data: object) -> dict[str, Any] | None:
    """``data`` when it reads as a stored comparison (or is none), else :class:`RecordError`."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise RecordError("comparison", f"expected an object, not {type(data).__name__}")
    _check_fields(data)
    from assay.compare import read_stored

    try:
        read_stored(data)
    except KeyError as error:
        raise RecordError("comparison", f"missing {error.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError, IndexError) as error:
        raise RecordError("comparison", f"does not read ({type(error).__name__})") from None
    return dict(data)


def _check_fields(data: Mapping[str, Any]) -> None:
    # The flat form from before pairing has neither part: it reads as nothing stored.
    baseline, models = data.get("baseline"), data.get("models")
    if baseline is not None:
        read(_BaselineForm, baseline, "comparison.baseline")
        _check_headline(baseline["headline"], "comparison.baseline.headline")
    if models is not None:
        read(_ModelsForm, models, "comparison.models")


def _check_headline(headline: Mapping[str, JSON], path: str) -> None:
    if "status" not in headline:
        raise RecordError(f"{path}.status", "missing")
    if read(str, headline["status"], f"{path}.status") != "withheld":
        read(_MeasuredHeadlineForm, headline, path)
