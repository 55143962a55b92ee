"""Comparing two runs, as ``assay-agents compare`` and ``assay-agents report --baseline`` do.

A comparison is made in one sequence: both runs found, each required complete (a run that
did not finish would read its missing items as changes), the latest control pair of the
later run's definition found, its noise floor measured, and the runs compared item by item
against it. :func:`compare` returns the whole of it as a :class:`RunsCompared`, whose
:class:`~assay_agents.evaluation.verdict.Verdict` gates on signal regressions when asked to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from assay_agents.compare import (
    DEFAULT_DRIFT_TOLERANCE,
    DEFAULT_FLAKY_SHARE,
    DEFAULT_MAX_EXCLUDED_SHARE,
    Comparison,
    NoiseFloor,
    compare_runs,
    measure_noise,
)
from assay_agents.compare.pooling import PooledItem
from assay_agents.errors import BaselineError, ConfigurationError
from assay_agents.evaluation.verdict import Verdict
from assay_agents.results import Run, RunStatus
from assay_agents.results.changes import Item
from assay_agents.spec.gate import Figure, GateFinding, Reading

#: A run named by its id (or a unique prefix of it), or one already read.
RunRef = str | Run


class RunSource(Protocol):
    """What a comparison reads from a store (SQL or in memory): runs, and control pairs."""

    def get_run(self, ref: str) -> Run:
        """A run whole, by id or unique prefix."""
        ...

    def find_control_pair(self, run: Run) -> tuple[Run, Run] | None:
        """The latest control pair of a run's definition."""
        ...


@dataclass(frozen=True, kw_only=True)
class RunsCompared:
    """Two runs compared: the runs, the comparison, the noise floor it is labelled against.

    ``noise_floor`` is ``None`` when no control pair measured the later run's definition
    (every change is then unmeasured). ``verdict`` fails only on signal regressions, and
    only when ``fail_on_regression`` was asked.
    """

    baseline: Run
    current: Run
    comparison: Comparison
    noise_floor: NoiseFloor | None
    verdict: Verdict


def compare(
    store: RunSource | None,
    baseline: RunRef,
    current: RunRef,
    *,
    tolerance: float = 0.0,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE,
    flaky_share: float = DEFAULT_FLAKY_SHARE,
    fail_on_regression: bool = False,
) -> RunsCompared:
    """Compare ``current`` with ``baseline``, items paired by their own fingerprints.

    Each run is a :class:`~assay_agents.results.Run` (one read from an archived report, say) or
    the id of a stored run. ``store`` supplies those runs and the noise floor of the latest
    control pair; without one (two archived reports) every change is unmeasured.
    """
    before, after = find_run(store, baseline), find_run(store, current)
    require_completed(before, after)
    floor = noise_floor(store, after)
    comparison = compare_runs(
        before,
        after,
        tolerance=tolerance,
        drift_tolerance=drift_tolerance,
        max_excluded_share=max_excluded_share,
        flaky_share=flaky_share,
        noise_floor=floor,
    )
    verdict = regression_verdict(comparison, fail_on_regression=fail_on_regression)
    return RunsCompared(
        baseline=before, current=after, comparison=comparison, noise_floor=floor, verdict=verdict
    )


def find_run(store: RunSource | None, ref: RunRef) -> Run:
    """The run ``ref`` names: itself when it is a run, else the stored run of that id."""
    if isinstance(ref, Run):
        return ref
    if store is None:
        raise ConfigurationError(f"run {ref!r} is named by id, but no store was given to read it")
    return store.get_run(ref)


def noise_floor(store: RunSource | None, run: Run) -> NoiseFloor | None:
    """The noise floor of the latest control pair of ``run``'s definition, if one measured it."""
    pair = None if store is None else store.find_control_pair(run)
    return None if pair is None else measure_noise(*pair)


def on_cases_run(baseline: Run, current: Run) -> Run:
    """``baseline`` on the cases ``current`` ran (all of them, unless it ran a selection).

    A selection (``--case``, ``--group``) is compared on the cases it ran, nothing else.
    """
    ran = _cases_run(current)
    if ran is None:
        return baseline
    return replace(
        baseline,
        cases=tuple(c for c in baseline.cases if c.case_id in ran),
        samples=tuple(s for s in baseline.samples if s.case_id in ran),
    )


def pooled_on_cases_run(pooled: dict[Item, PooledItem], current: Run) -> dict[Item, PooledItem]:
    """A baseline's pooled items on the cases ``current`` ran (see :func:`on_cases_run`)."""
    ran = _cases_run(current)
    return pooled if ran is None else {key: item for key, item in pooled.items() if key[0] in ran}


def _cases_run(current: Run) -> set[str] | None:
    """The cases a run of a selection ran; ``None`` for a run of the whole suite."""
    if current.settings.selection is None:
        return None
    return {case.case_id for case in current.cases}


def require_completed(*runs: Run) -> None:
    """Refuse to compare a run that did not finish: its missing items would read as changes."""
    for run in runs:
        if run.status is not RunStatus.COMPLETED:
            raise BaselineError(
                f"run {run.id} is {run.status.value}, not completed; finish it "
                "with assay-agents run --resume before comparing it"
            )


def regression_verdict(comparison: Comparison, *, fail_on_regression: bool) -> Verdict:
    """Regressed when regressions gate and there are signal regressions; never failed."""
    regressions = len(comparison.signal_regressions)
    regressed = fail_on_regression and regressions > 0
    findings = (
        (GateFinding(figure=Figure.REGRESSION, reading=Reading.VIOLATED, value=regressions),)
        if regressed
        else ()
    )
    return Verdict(
        failed=False,
        regressed=regressed,
        regressions=regressions,
        findings=findings,
        reasons=("regressions",) if regressed else (),
    )
