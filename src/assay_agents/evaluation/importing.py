"""Bringing an archived run into a history: what it claims about others is decided again here.

The archive reader (:mod:`assay_agents.report.archive`) has already checked everything the file
holds against its samples. What it cannot check is what the run says about other runs: its
comparison with a baseline, and the outcome that comparison helped decide. Those are never
taken as written. Against its baseline, when a run with that id is in this history, the
comparison is recomputed (with the tolerances the run was decided with and this history's
noise floor); without it the run is stored with no baseline comparison, and the import says
so. Its model comparison is recomputed from its samples. Its outcome is decided again from
its samples and the gate it was run with; a stated ``regressed`` that no baseline here can
confirm or deny is kept (it never makes the run a baseline).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from assay_agents.compare import (
    Comparison,
    ComparisonPolicy,
    StoredComparison,
    compare,
    compare_models,
)
from assay_agents.errors import SpecError, StoreError
from assay_agents.evaluation.comparing import noise_floor, on_cases_run
from assay_agents.evaluation.ports import RunStore
from assay_agents.evaluation.verdict import decide
from assay_agents.results import Run, RunStatus
from assay_agents.results.baseline import BaselineChoice, BaselineReason, RunOutcome
from assay_agents.results.gating import RunGate


@dataclass(frozen=True, slots=True)
class Imported:
    """An archived run as this history stores it, and what was decided again."""

    run: Run
    #: Why the run carries no baseline comparison although it was compared, or ``None``.
    note: str | None = None


def check_outcome(run: Run) -> None:
    """Refuse a stated outcome the run's samples and gate contradict, before any store opens.

    A :class:`SpecError` on the field ``outcome``; whether the run regressed is left to
    :func:`rederived`, which has the history its baseline may be in.
    """
    _outcome(run, None, run.settings.gate, confirmable=False)


def rederived(store: RunStore, run: Run) -> Imported:
    """``run`` with its comparison and outcome decided in ``store``'s history.

    A stated outcome the samples and the run's gate contradict is a :class:`SpecError`
    on the field ``outcome``.
    """
    baseline = _baseline(store, run.baseline_id)
    gate = run.settings.gate
    comparison = None if baseline is None else _compared(store, baseline, run, gate)
    models = compare_models(run) if len(_models(run)) >= 2 else None
    outcome = _outcome(run, comparison, gate, confirmable=baseline is not None)
    note = None
    choice = run.baseline_choice
    if run.baseline_id is not None and baseline is None:
        note = (
            f"its baseline {run.baseline_id} is not in this history: stored without a "
            "comparison (import the baseline first to keep one)"
        )
        choice = BaselineChoice(BaselineReason.NONE, None, note=f"imported; {note}")
    rebuilt = replace(
        run,
        comparison=StoredComparison.of(comparison, models),
        baseline_id=None if baseline is None else baseline.id,
        baseline_choice=choice,
        outcome=outcome,
    )
    return Imported(rebuilt, note)


def _baseline(store: RunStore, baseline_id: str | None) -> Run | None:
    """The completed run of exactly that id in this history, if there is one."""
    if baseline_id is None:
        return None
    try:
        found = store.get_run(baseline_id)
    except StoreError as error:
        if error.transient:
            raise
        return None  # no such run (or only runs whose ids it merely begins)
    if found.id != baseline_id or found.status is not RunStatus.COMPLETED:
        return None
    return found


def _compared(store: RunStore, baseline: Run, run: Run, gate: RunGate | None) -> Comparison:
    defaults = ComparisonPolicy()
    policy = ComparisonPolicy(
        tolerance=defaults.tolerance if gate is None else gate.tolerance,
        drift_tolerance=defaults.drift_tolerance if gate is None else gate.drift_tolerance,
        noise_floor=noise_floor(store, run),
    )
    return compare(on_cases_run(baseline, run), run, policy)


def _models(run: Run) -> set[str]:
    return {sample.model for sample in run.samples if sample.model is not None}


def _outcome(
    run: Run, comparison: Comparison | None, gate: RunGate | None, *, confirmable: bool
) -> RunOutcome | None:
    """The outcome decided again; the stated one where the run does not say how it was decided.

    ``confirmable``: a baseline here decides whether the run regressed; without one a stated
    ``regressed`` stands (the safe side: a regressed run is never a baseline).
    """
    stated = run.outcome
    if gate is None:
        return stated  # a run from before gates were kept: the reader checked what it could
    verdict = decide(
        run,
        comparison,
        gate=gate.thresholds,
        fail_on_regression=gate.fail_on_regression,
        allow_unchecked=gate.allow_unchecked,
    )
    unregressed = RunOutcome.decide(
        errors=verdict.errors, regressions=0, failed=verdict.failed, unchecked=verdict.unchecked
    )
    if stated is not None and stated is not unregressed and stated is not RunOutcome.REGRESSED:
        raise SpecError(
            f"is {stated.value!r}, but the run's samples and its gate make it "
            f"{unregressed.value!r}",
            field="outcome",
        )
    if stated is RunOutcome.REGRESSED and unregressed is RunOutcome.ERRORED:
        raise SpecError(
            f"is 'regressed', but the run's {verdict.errors} errored sample(s) make it 'errored'",
            field="outcome",
        )
    if confirmable or unregressed is RunOutcome.ERRORED:
        return verdict.outcome
    return RunOutcome.REGRESSED if stated is RunOutcome.REGRESSED else unregressed
