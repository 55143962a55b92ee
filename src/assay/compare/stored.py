"""The comparison stored with a completed run: against its baseline, and between its models.

Stored once when the run completes, so a report rebuilt later renders what the run recorded
(the same intervals, the same noise labels) instead of recomputing them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.compare.comparison import Comparison
from assay.compare.models import ModelComparison
from assay.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION


def stored_form(
    comparison: Comparison | None, models: ModelComparison | None
) -> dict[str, Any] | None:
    """``{"baseline": ..., "models": ...}``, or ``None`` when there is neither."""
    if comparison is None and models is None:
        return None
    return {
        SCHEMA_KEY: SCHEMA_VERSION,
        "baseline": None if comparison is None else comparison.to_json(),
        "models": None if models is None else models.to_json(),
    }


def read_stored(data: Mapping[str, Any] | None) -> tuple[Comparison | None, ModelComparison | None]:
    """Rebuild what :func:`stored_form` wrote.

    A form from before pairing and noise floors (a flat list of changes) cannot be rebuilt
    faithfully and reads as nothing stored.
    """
    if not data or ("baseline" not in data and "models" not in data):
        return None, None
    baseline, models = data.get("baseline"), data.get("models")
    return (
        None if baseline is None else Comparison.from_json(baseline),
        None if models is None else ModelComparison.from_json(models),
    )
