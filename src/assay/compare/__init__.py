"""Comparing honestly: runs against a baseline, and models against each other.

* :func:`compare_runs` → :class:`Comparison`: items paired by id and fingerprint, exclusion as
  loud as the score, provenance honoured, deterministic regressions apart from judge drift,
  every change labelled against a :class:`NoiseFloor` measured by a control run.
* :class:`ModelComparison`: bootstrap intervals over whole cases per model and per pair.
"""

from assay.compare.changes import Change, ChangeKind
from assay.compare.comparison import (
    DEFAULT_DRIFT_TOLERANCE,
    DEFAULT_MAX_EXCLUDED_SHARE,
    Comparison,
    ComparisonPolicy,
    Headline,
    MeasuredHeadline,
    WithheldHeadline,
    compare,
    compare_runs,
)
from assay.compare.models import ModelComparison, ModelInterval, PairComparison
from assay.compare.noise import DEFAULT_FLAKY_SHARE, NoiseFloor, NoiseLabel
from assay.compare.pairing import ChangedPart, PairedItem, Pairing
from assay.compare.stored import read_stored, stored_form

#: The name this comparison had before pairing, provenance and noise floors; same class.
RunComparison = Comparison

__all__ = [
    "DEFAULT_DRIFT_TOLERANCE",
    "DEFAULT_FLAKY_SHARE",
    "DEFAULT_MAX_EXCLUDED_SHARE",
    "Change",
    "ChangeKind",
    "ChangedPart",
    "Comparison",
    "ComparisonPolicy",
    "Headline",
    "MeasuredHeadline",
    "ModelComparison",
    "ModelInterval",
    "NoiseFloor",
    "NoiseLabel",
    "PairComparison",
    "PairedItem",
    "Pairing",
    "RunComparison",
    "WithheldHeadline",
    "compare",
    "compare_runs",
    "read_stored",
    "stored_form",
]
