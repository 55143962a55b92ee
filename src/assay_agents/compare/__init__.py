"""Comparing honestly: runs against a baseline, and models against each other.

* :func:`compare_runs` → :class:`Comparison`: items paired by id and fingerprint, exclusion as
  loud as the score, provenance honoured, deterministic regressions apart from judge drift,
  every change labelled against a :class:`NoiseFloor` measured by a control run
  (:func:`measure_noise`).
* :func:`compare_models` → :class:`ModelComparison`: bootstrap intervals over whole cases per
  model and per pair.

The values are :mod:`assay_agents.results`' (a run stores them); they are named here too.
"""

from assay_agents.compare.comparison import compare, compare_runs
from assay_agents.compare.models import compare_models
from assay_agents.compare.noise import measure_noise
from assay_agents.results.changes import (
    DEFAULT_FLAKY_SHARE,
    Change,
    ChangedPart,
    ChangeKind,
    ItemMovement,
    NoiseFloor,
    NoiseLabel,
    PairedItem,
    Pairing,
)
from assay_agents.results.comparison import (
    DEFAULT_DRIFT_TOLERANCE,
    DEFAULT_MAX_EXCLUDED_SHARE,
    Comparison,
    ComparisonPolicy,
    Headline,
    MeasuredHeadline,
    StoredComparison,
    WithheldHeadline,
)
from assay_agents.results.model_comparison import ModelComparison, ModelInterval, PairComparison

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
    "ItemMovement",
    "MeasuredHeadline",
    "ModelComparison",
    "ModelInterval",
    "NoiseFloor",
    "NoiseLabel",
    "PairComparison",
    "PairedItem",
    "Pairing",
    "RunComparison",
    "StoredComparison",
    "WithheldHeadline",
    "compare",
    "compare_models",
    "compare_runs",
    "measure_noise",
]
