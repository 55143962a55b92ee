"""Comparing runs: regressions against a compatible baseline."""

from assay.compare.regression import (
    Change,
    ChangeKind,
    RunComparison,
    compare_runs,
    regressions_of,
)

__all__ = ["Change", "ChangeKind", "RunComparison", "compare_runs", "regressions_of"]
