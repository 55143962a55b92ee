"""The sentences a report writes about a comparison and a verdict: both return figures.

Comparisons (:mod:`assay_agents.compare`) and gates (:mod:`assay_agents.spec.gate`) are
numbers and typed facts; every surface that says something about them (the reports, the
terminal, ``assay-agents compare``, ``assay-agents control``, ``assay-agents run``'s gate
lines) says it with these functions, and every figure in them is written by
:mod:`assay_agents.report.format`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from assay_agents.agent.answered import UNVERIFIED_REASON
from assay_agents.compare import (
    Change,
    ChangeKind,
    Comparison,
    ItemMovement,
    ModelComparison,
    NoiseFloor,
    PairComparison,
    PairedItem,
    WithheldHeadline,
)
from assay_agents.compare.pooling import AGENT
from assay_agents.record import write
from assay_agents.report import format as fmt
from assay_agents.spec.gate import Figure, Gate, GateFinding, GateResult, Missing, Reading

Item = tuple[str, str | None]


def item_label(case_id: str, model: str | None) -> str:
    """Name a case on a model: ``refund-policy [gpt-4o-mini]``, or the case alone."""
    return case_id if model is None else f"{case_id} [{model}]"


# -- pairing --------------------------------------------------------------------------------


def pairing_line(comparison: Comparison) -> str:
    """``N of M paired item(s) compared, K excluded (P% of the paired corpus)``."""
    line = (
        f"{comparison.compared} of {comparison.paired} paired item(s) compared, "
        f"{len(comparison.excluded)} excluded ({_excluded_share(comparison)} of "
        "the paired corpus)"
    )
    unpaired = [
        f"{count} only in the {side}"
        for count, side in (
            (comparison.only_in_baseline, "baseline"),
            (comparison.only_in_current, "current run"),
        )
        if count
    ]
    return line + (f"; {', '.join(unpaired)}" if unpaired else "")


def _excluded_share(comparison: Comparison) -> str:
    # Read against the ceiling, so a share just above it never reads as the ceiling itself.
    return fmt.score_against(comparison.excluded_share, comparison.policy.max_excluded_share)


def items_line(comparison: Comparison) -> str:
    """``3 of 3 unchanged item(s) compared, 1 new (c4)``: what was paired, briefly."""
    plain = not comparison.excluded and not comparison.intended_changes
    kind = "unchanged" if plain else "paired"
    parts = [f"{comparison.compared} of {comparison.paired} {kind} item(s) compared"]
    if comparison.excluded:
        parts.append(f"{len(comparison.excluded)} changed and excluded")
    if comparison.intended_changes:
        parts.append(f"{len(comparison.intended_changes)} with intended changes")
    if comparison.added:
        parts.append(f"{len(comparison.added)} new ({_names(comparison.added)})")
    if comparison.removed:
        parts.append(f"{len(comparison.removed)} removed ({_names(comparison.removed)})")
    return ", ".join(parts)


def baseline_line(comparison: Comparison) -> str:
    """``baseline 428c1f0a · 3 of 3 unchanged item(s) compared, 1 new (c4)``."""
    return f"baseline {comparison.baseline_id[:8]} · {items_line(comparison)}"


def movement_line(movement: ItemMovement) -> str:
    """``moved: refund [gpt-4o] 2/2 → 0/2``."""
    rates = " → ".join(
        fmt.MISSING if side is None else f"{side[0]}/{side[1]}"
        for side in (movement.before, movement.after)
    )
    return f"{movement.kind}: {item_label(movement.case_id, movement.model)} {rates}"


def movement_lines(comparison: Comparison) -> list[str]:
    """One line per named item: moved, unverified (no fingerprint), added, removed."""
    return [movement_line(movement) for movement in comparison.movements]


# -- defects and the headline ---------------------------------------------------------------


def corpus_defect_line(item: PairedItem) -> str:
    """Say that recorded testimony changed, and that it is about the corpus, not the agent."""
    parts = ", ".join(item.part_names("recorded"))
    return (
        f"CORPUS DEFECT: {item_label(item.case_id, item.model)}: recorded part(s) {parts} "
        "differ between the runs; recorded testimony was regenerated, a problem with the "
        "corpus or the tooling and not a result about the agent (left out of every figure)"
    )


def too_flaky_line(floor: NoiseFloor, share: float) -> str:
    """The finding when the control run moved more than the flaky share allows."""
    return (
        f"TOO FLAKY TO MEASURE: the unchanged system moved by up to "
        f"{fmt.points_against(floor.largest, share)} against itself (above "
        f"{fmt.points_limit(share)}); raise the samples per case rather than the tolerance"
    )


def defect_lines(comparison: Comparison) -> list[str]:
    """One line per corpus defect, and the too-flaky finding: they come before figures."""
    lines = [corpus_defect_line(item) for item in comparison.corpus_defects]
    floor = comparison.policy.noise_floor
    if comparison.too_flaky and floor is not None:
        lines.append(too_flaky_line(floor, comparison.policy.flaky_share))
    return lines


def withheld_reason(comparison: Comparison) -> str:
    """Why the comparison has no headline figure (it has one: the empty string)."""
    if not isinstance(comparison.headline, WithheldHeadline):
        return ""
    if comparison.paired == 0:
        return (
            "NO HEADLINE FIGURE: no item is paired between the two runs, "
            "so there is nothing to measure"
        )
    return (
        f"NO HEADLINE FIGURE: {_excluded_share(comparison)} of the paired corpus "
        f"was excluded, above the {fmt.limit(comparison.policy.max_excluded_share)} "
        f"ceiling; a figure over the remaining {comparison.compared} of {comparison.paired} "
        "item(s) would read like a measurement of the suite and would not be one"
    )


def noise_floor_line(floor: NoiseFloor) -> str:
    """One line: the control runs and the floor per figure."""
    figures = [f"pass rate {fmt.points_against(floor.pass_rate)}"]
    figures += [
        f"{name} {fmt.points_against(value)}"
        for name, value in sorted(floor.metrics.items())
        if name != AGENT or value > 0
    ]
    moved = (
        "; moved: " + ", ".join(movement_line(m).removeprefix("moved: ") for m in floor.moved)
        if floor.moved
        else ""
    )
    return (
        f"noise floor from control runs {floor.control[0]} and {floor.control[1]}: "
        + ", ".join(figures)
        + moved
    )


def rescore_counts(comparison: Comparison) -> str:
    """A rescore's counts: every judge change is judge drift, never the agent's regression."""
    drift = comparison.judge_drift
    worse = sum(1 for change in drift if change.is_regression)
    other = len(comparison.changes) - len(drift)
    return (
        "(rescored: its recorded behaviour graded again, no agent called, so only the judge "
        f"can move): {len(drift)} judge drift(s), {worse} for the worse; {other} other "
        f"change(s); {len(comparison.signal_regressions)} signal regression(s)"
    )


def summary(comparison: Comparison) -> str:
    """A plain reading: the pairing first, defects next, then the headline and counts."""
    lines = [pairing_line(comparison), *defect_lines(comparison)]
    headline = comparison.headline
    if isinstance(headline, WithheldHeadline):
        lines.append(withheld_reason(comparison))
    elif headline.delta is not None:
        lines.append(
            f"pass rate {fmt.percent(headline.before)} → {fmt.percent(headline.after)} "
            f"({fmt.points(headline.delta)}, {headline.noise.value.replace('_', ' ')})"
        )
    if comparison.judge_only:
        lines.append(f"baseline {rescore_counts(comparison)}")
    else:
        lines.append(
            f"{len(comparison.regressions)} regression(s), "
            f"{len(comparison.signal_regressions)} signal regression(s), "
            f"{len(comparison.improvements)} improvement(s)"
        )
    lines.extend(movement_lines(comparison))
    return "\n".join(lines)


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison's stored form with its sentences: the pairing first, the reason kept.

    ``summary`` (the pairing line) leads, a withheld headline carries its ``reason`` and
    each change its ``detail``: the JSON report and ``assay-agents compare --format json`` read as
    they always have.
    """
    data: dict[str, Any] = {"summary": pairing_line(comparison), **_written(comparison)}
    if isinstance(comparison.headline, WithheldHeadline):
        data["headline"] = {**data["headline"], "reason": withheld_reason(comparison)}
    data["changes"] = [
        {**stored, "detail": change_detail(change)}
        for stored, change in zip(data["changes"], comparison.changes, strict=True)
    ]
    return data


# -- changes --------------------------------------------------------------------------------


def change_detail(change: Change) -> str:
    """What moved on one item, from the change's figures: ``fell by 6 points``, shares, reasons.

    A change stored by an earlier version carries none of the figures but its scores, and
    reads from those alone.
    """
    if change.kind is ChangeKind.NEW_ERROR:
        return _error_detail(change)
    shares = _shares(change)
    if change.kind is ChangeKind.JUDGE_DRIFT:
        moved = f"same deterministic behaviour; the judge score {_moved(change)}{_beyond(change)}"
        if not shares:
            return moved
        minimum = (
            ""
            if change.threshold is None
            else f" its minimum score {fmt.limit(change.threshold)} on"
        )
        return f"{moved}; met{minimum} {shares}"
    if change.kind is ChangeKind.NEWLY_FAILED_MINIMUM:
        minimum = "" if change.threshold is None else f" {fmt.limit(change.threshold)}"
        figures = f" ({shares})" if shares else ""
        return f"{_because(change)}below its minimum score{minimum}{figures}"
    if change.kind is ChangeKind.DETERMINISTIC_REGRESSION:
        what = "the agent" if change.metric_kind == "agent" else "the check"
        return f"{_because(change)}{what} passed {shares or 'fewer samples'}"
    if change.kind is ChangeKind.IMPROVEMENT and shares:
        return f"passed {shares}"
    return f"{_moved(change)}{_beyond(change)}"


def _error_detail(change: Change) -> str:
    error = change.reason or "error"
    if change.errored is None or change.samples_after in (None, 1):
        return error
    return f"{error} (errored on {change.errored} of {change.samples_after} samples)"


def _moved(change: Change) -> str:
    moved = (change.after or 0.0) - (change.before or 0.0)
    size = fmt.points_against(moved, change.tolerance, change.drift_tolerance)
    return f"{'fell' if moved < 0 else 'rose'} by {size}"


def _beyond(change: Change) -> str:
    if change.tolerance is None or change.drift_tolerance is None:
        return ""
    return (
        f", beyond tolerance {fmt.points_limit(change.tolerance)} and drift tolerance "
        f"{fmt.points_limit(change.drift_tolerance)}"
    )


def _because(change: Change) -> str:
    return f"{change.reason}; " if change.reason else ""


def _shares(change: Change) -> str:
    sides = (
        (change.passed_before, change.samples_before),
        (change.passed_after, change.samples_after),
    )
    if any(count is None for side in sides for count in side):
        return ""
    (passed_before, samples_before), (passed_after, samples_after) = sides
    return f"{passed_before}/{samples_before} samples before, {passed_after}/{samples_after} now"


# -- model comparison -----------------------------------------------------------------------


def method(models: ModelComparison) -> str:
    """How the intervals were computed, for a report's footnote."""
    return (
        f"{fmt.percent(models.confidence)} percentile bootstrap intervals from "
        f"{models.resamples:,} resamples of whole cases (seed {models.seed}); a case run "
        "several times counts as the mean of its samples; pairs resample the cases "
        "both models ran, the same cases for both; detectable differences and cases "
        f"needed at {fmt.percent(models.power)} power"
    )


def conclusion(models: ModelComparison) -> str:
    """What the intervals say: which pairs are decisive, and whose figures are unverified."""
    sentence = _decisive_sentence(models.pairs, models.confidence)
    named = [m.model for m in models.models if m.unverified]
    if named:
        which = " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
        sentence += f" The figures for {which} are unverified: {UNVERIFIED_REASON}."
    return sentence


def _decisive_sentence(pairs: Sequence[PairComparison], confidence: float) -> str:
    measured = [pair for pair in pairs if pair.interval is not None]
    too_few = [pair for pair in pairs if pair.interval is None]
    if not measured:
        return "The models share too few cases to compare (fewer than two in common)."
    decisive = [pair for pair in measured if pair.decisive]
    if decisive:
        named = "; ".join(_decisive_clause(pair, confidence) for pair in decisive)
        sentence = f"Decisive: {named}."
        if len(decisive) < len(measured):
            sentence += " Every other pairwise interval includes zero."
    else:
        sentence = (
            "No pair is decisive: every pairwise difference interval includes zero, so "
            "the ranking is not evidence that one model is better."
        )
    if too_few:
        names = "; ".join(f"{a} and {b}" for a, b in (pair.models for pair in too_few))
        sentence += f" Too few shared cases to compare: {names}."
    return sentence


def _decisive_clause(pair: PairComparison, confidence: float) -> str:
    assert pair.interval is not None and pair.difference is not None
    return (
        f"{pair.models[0]} passes more cases than {pair.models[1]} by "
        f"{fmt.points(pair.difference)} ({fmt.percent(confidence)} interval "
        f"{fmt.points_interval(pair.interval)})"
    )


def model_comparison_json(models: ModelComparison) -> dict[str, Any]:
    """The model comparison's stored form with the sentence that reads it."""
    return {**_written(models), "conclusion": conclusion(models)}


def _written(value: Comparison | ModelComparison) -> dict[str, Any]:
    """The stored form (the record codec's), which the JSON report carries."""
    return cast(dict[str, Any], write(value))


def _names(items: tuple[Item, ...], shown: int = 5) -> str:
    names = ", ".join(item_label(*item) for item in items[:shown])
    return names + (f", … {len(items) - shown} more" if len(items) > shown else "")


# -- the gate and the verdict ---------------------------------------------------------------

#: What a finding without a figure says, by why it has none.
_MISSING = {
    Missing.NO_SUMMARY: "the run has no summary (it did not complete)",
    Missing.NOTHING_MEASURED: (
        "it measured nothing: the run had none of the figures its thresholds read"
    ),
    Missing.NOTHING_EVALUATED: "deterministic pass rate: no sample was evaluated",
    Missing.NO_DETERMINISTIC_CHECK: (
        "deterministic pass rate: not measured (no sample had a deterministic check)"
    ),
    Missing.NO_SIDE_EFFECT_CHECK: "side-effect failures: not measured — no side-effect checks",
    Missing.NO_CRITERION_GRADED: "no judge criterion was graded (is a judge set?)",
}

#: The gates of a run's gate block (the others are lines of the verdict of their own).
_THRESHOLDS = (Figure.PASS_RATE, Figure.SIDE_EFFECTS, Figure.JUDGE, Figure.GATE)


def gate_settings(gate: Gate) -> str:
    """A gate's thresholds as set: ``pass rate ≥ 50%, side-effect failures ≤ 0, judge ≥ 70%``."""
    parts = [] if gate.min_pass_rate is None else [f"pass rate ≥ {fmt.limit(gate.min_pass_rate)}"]
    parts.append(f"side-effect failures ≤ {gate.max_side_effect_failures}")
    if gate.min_judge_score is not None:
        parts.append(f"judge ≥ {fmt.limit(gate.min_judge_score)}")
    return ", ".join(parts)


def gate_line(finding: GateFinding) -> str:
    """One figure of the gate: ``deterministic pass rate 63% ≥ 50%``, ``side-effect …``."""
    if finding.figure is Figure.JUDGE and finding.criterion is not None:
        return _judge_line(finding)
    if finding.missing is not None:
        return _MISSING[finding.missing]
    assert finding.value is not None and finding.limit is not None
    if finding.figure is Figure.SIDE_EFFECTS:
        failures, allowed = int(finding.value), int(finding.limit)
        if finding.passed:
            return f"side-effect failures {failures} ≤ {allowed}"
        return f"{failures} sample(s) failed a side-effect assertion (at most {allowed} allowed)"
    rate, limit = fmt.score_against(finding.value, finding.limit), fmt.limit(finding.limit)
    aside = " (checks only: judge criteria are not in this figure)" if finding.judged else ""
    return f"deterministic pass rate {rate} {'≥' if finding.passed else '<'} {limit}{aside}"


def _judge_line(finding: GateFinding) -> str:
    assert finding.limit is not None
    limit = fmt.limit(finding.limit)
    if finding.passed:
        mean = fmt.score_against(finding.value, finding.limit)
        return f"judge {finding.criterion} mean {mean} ≥ {limit}"
    shown = (
        "no score"
        if finding.value is None
        else f"mean {fmt.score_against(finding.value, finding.limit)}"
    )
    return f"{finding.criterion}: {shown} is below the minimum {limit}"


def gate_lines(result: GateResult) -> list[str]:
    """The verdict with the first figure it read, then one line per other figure.

    Violations come first (judge ones marked as such), then the figures that met their
    thresholds, then any threshold that measured nothing, as ``not measured``: a reader
    sees which number the gate decided on, never only ``passed`` beside another number.
    """
    figures = [
        *(gate_line(f) for f in result.violations),
        *(f"judge: {gate_line(f)}" for f in result.judge_violations),
        *(gate_line(f) for f in result.readings),
    ]
    head = "gate: passed" if result.passed else "gate: failed"
    if figures:
        head += f" · {figures[0]}"
    unmeasured = [gate_line(f) for f in result.unmeasured]
    return [head, *(f"  {line}" for line in [*figures[1:], *unmeasured])]


def verdict_lines(
    findings: Sequence[GateFinding], *, regression_flag: str = "--fail-on-regression"
) -> list[str]:
    """What ``assay-agents run`` prints about its verdict: the gate's block, then the other gates.

    ``regression_flag`` is the option that asked for the regression gate, as the front end
    printing the lines spells it.
    """
    gate = [f for f in findings if f.figure in _THRESHOLDS]
    lines = gate_lines(GateResult(tuple(gate))) if gate else []
    for finding in findings:
        if finding.figure is Figure.ERRORS:
            lines.append(
                f"{int(finding.value or 0)} errored sample(s) fail the run whatever the gate allows"
            )
        elif finding.figure is Figure.CHECKED:
            lines.append(
                unchecked_line(int(finding.value or 0), allowed=finding.reading is Reading.MET)
            )
        elif finding.figure is Figure.REGRESSION:
            lines.append(
                f"regression gate: failed ({regression_flag}): "
                f"{int(finding.value or 0)} signal regression(s)"
            )
        elif finding.figure is Figure.NOISE_FLOOR:
            lines.append(_unmeasured_floor_line(finding))
    return lines


def _unmeasured_floor_line(finding: GateFinding) -> str:
    """Why a control pair gives no floor, as ``assay-agents run`` words a run that checked nothing.

    The finding's ``value`` counts the samples the pair did not evaluate.
    """
    not_evaluated = int(finding.value or 0)
    if not not_evaluated:
        # Every sample was answered by another model: checks that never ran, errors that say so.
        return (
            "no noise floor was measured: no sample was evaluated (another model answered "
            "every one; see the errors)"
        )
    why = unchecked_line(
        not_evaluated,
        allowed=finding.reading is Reading.MET,
        accept="such a pair with --allow-unchecked",
    )
    return f"no noise floor was measured: {why}"


def unchecked_line(
    not_evaluated: int,
    *,
    allowed: bool,
    accept: str = "such a run with --allow-unchecked (allow_unchecked=True)",
) -> str:
    """Why a run (or a control pair: ``accept`` says which) counts as having checked nothing."""
    what = f"nothing was checked: no sample was evaluated ({not_evaluated} not evaluated)"
    if allowed:
        return f"{what}; accepted (--allow-unchecked)"
    return f"{what}; give the cases checks or a judge, or accept {accept}"
