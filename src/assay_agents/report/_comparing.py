"""The comparison sections every report shares: pairing first, then changes, then intervals."""

from __future__ import annotations

from assay_agents.compare import (
    Change,
    ChangeKind,
    Comparison,
    ModelComparison,
    NoiseLabel,
    PairedItem,
    WithheldHeadline,
)
from assay_agents.report import format as fmt
from assay_agents.report import prose
from assay_agents.report._reading import Fraction
from assay_agents.results import Run
from assay_agents.results.baseline import BaselineChoice, BaselineReason
from assay_agents.text import one_line

NO_BASELINE = "No compatible baseline."
CHANGE_HEADERS = ["item", "metric", "category", "before → after", "noise", "detail"]
PAIRING_HEADERS = ["item", "pairing", "changed parts"]

#: Change kinds in report order, each in a section of its own.
CHANGE_SECTIONS: tuple[tuple[ChangeKind, str], ...] = (
    (ChangeKind.DETERMINISTIC_REGRESSION, "Deterministic regressions"),
    (ChangeKind.NEW_ERROR, "New errors"),
    (ChangeKind.NEWLY_FAILED_MINIMUM, "Newly failed minimum scores"),
    (ChangeKind.SCORE_DECREASE, "Score decreases"),
    (ChangeKind.JUDGE_DRIFT, "Judge drift (same deterministic behaviour)"),
    (ChangeKind.IMPROVEMENT, "Improvements"),
)

NOISE_LABELS = {
    NoiseLabel.WITHIN: "within noise",
    NoiseLabel.BEYOND: "beyond noise",
    NoiseLabel.UNMEASURED: "unmeasured",
}


def baseline_line(run: Run, comparison: Comparison | None) -> str | None:
    """``Baseline: 428c1f0a (latest passing run)``, as the run said when it completed.

    A comparison with another run than the stored one was asked for explicitly
    (``assay-agents report --baseline``). ``None`` for a run stored before runs said why: its
    comparison names its baseline.
    """
    choice = run.baseline_choice
    if choice is None:
        return None
    if comparison is not None and comparison.baseline_id != choice.run_id:
        choice = BaselineChoice(BaselineReason.EXPLICIT, comparison.baseline_id)
    return choice.line()


def comparison_intro(comparison: Comparison, frac: Fraction) -> list[str]:
    """The lines before any change: pairing, corpus defects, headline, counts, the rules.

    The pairing comes first and defects come before any figure, so a reader never meets a
    score before learning how much of the corpus it covers.
    """
    return [
        prose.pairing_line(comparison),
        *prose.defect_lines(comparison),
        headline_line(comparison, frac),
        counts_line(comparison),
        rules_line(comparison),
        *(f"Item {line}" for line in prose.movement_lines(comparison)),
    ]


def headline_line(comparison: Comparison, frac: Fraction) -> str:
    """The pass rate over the compared items in both runs, or why there is none."""
    headline = comparison.headline
    if isinstance(headline, WithheldHeadline):
        return prose.withheld_reason(comparison)
    if headline.delta is None:
        return "Pass rate over the compared items: nothing was evaluated in one of the runs."
    return (
        f"Pass rate over the compared items: "
        f"{frac(headline.before_passed, headline.before_evaluated)} → "
        f"{frac(headline.after_passed, headline.after_evaluated)} "
        f"({fmt.points(headline.delta)}, {NOISE_LABELS[headline.noise]})"
    )


def counts_line(comparison: Comparison) -> str:
    """``Baseline <id>: 4 regression(s) (4 signal), 1 improvement(s)``.

    A rescore's says that only the judge moved (:func:`prose.rescore_counts`).
    """
    if comparison.judge_only:
        return f"Baseline {comparison.baseline_id} {prose.rescore_counts(comparison)}"
    return (
        f"Baseline {comparison.baseline_id}: {len(comparison.regressions)} regression(s) "
        f"({len(comparison.signal_regressions)} signal), "
        f"{len(comparison.improvements)} improvement(s)"
    )


def rules_line(comparison: Comparison) -> str:
    """The tolerances, the exclusion ceiling and the noise floor the comparison applied."""
    policy = comparison.policy
    floor = policy.noise_floor
    noise = (
        "noise floor unmeasured (no control run; every movement counts as signal)"
        if floor is None
        else prose.noise_floor_line(floor)
    )
    return (
        f"Tolerance {fmt.points_limit(policy.tolerance)} · drift tolerance "
        f"{fmt.points_limit(policy.drift_tolerance)} · exclusion ceiling "
        f"{fmt.limit(policy.max_excluded_share)} · {noise}"
    )


def pairing_row(item: PairedItem) -> list[str]:
    """Item, what became of its pairing, and each changed part with its provenance."""
    parts = ", ".join(f"{part.part} ({part.provenance})" for part in item.parts)
    return [item_label(item.case_id, item.model), item.pairing.value.replace("_", " "), parts]


def change_row(change: Change) -> list[str]:
    """Item, metric, category, before → after, noise label and the detail of one change."""
    moved = " → ".join(fmt.scores_apart(change.before, change.after))
    return [
        item_label(change.case_id, change.model),
        change.metric,
        change.category,
        moved,
        NOISE_LABELS[change.noise],
        one_line(prose.change_detail(change)),
    ]


item_label = prose.item_label


# -- model comparison -----------------------------------------------------------------------


def model_interval_headers(models: ModelComparison) -> list[str]:
    """Headers of the per-model table, naming the confidence."""
    return ["model", "cases", "pass rate", f"{fmt.percent(models.confidence)} interval"]


def model_interval_rows(models: ModelComparison) -> list[list[str]]:
    """One row per model, best first: its cases, pass rate and interval."""
    ranked = sorted(models.models, key=lambda m: -m.pass_rate)
    return [
        [m.model, str(m.cases), fmt.percent(m.pass_rate), fmt.rate_interval(m.interval)]
        for m in ranked
    ]


def pair_headers(models: ModelComparison) -> list[str]:
    """Headers of the pairwise table."""
    return [
        "pair",
        "cases",
        "difference",
        f"{fmt.percent(models.confidence)} interval",
        "decisive",
        "detectable",
        f"cases for {fmt.percent(models.power)} power",
    ]


def pair_rows(models: ModelComparison) -> list[list[str]]:
    """One row per pair: the paired difference, its interval, and power for the undecided."""
    return [
        [
            f"{p.models[0]} − {p.models[1]}",
            str(p.cases),
            fmt.MISSING if p.difference is None else fmt.points(p.difference),
            fmt.points_interval(p.interval),
            "yes" if p.decisive else "no",
            fmt.MISSING if p.detectable is None else "±" + fmt.points(p.detectable).lstrip("+"),
            fmt.MISSING if p.cases_needed is None else f"{p.cases_needed:,}",
        ]
        for p in models.pairs
    ]
