"""Comparing two runs honestly: the pairing first, corpus defects above any figure.

Exclusion is as loud as the score: past ``max_excluded_share`` the headline is withheld (see
:class:`assay_agents.results.comparison.Comparison`, the value this computes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from assay_agents.compare.changes import Tolerances, item_changes
from assay_agents.compare.pairing import pair_items
from assay_agents.compare.pooling import (
    PooledItem,
    item_movement,
    moved,
    pass_rate,
    pool_run,
)
from assay_agents.errors import ConfigurationError, SpecError
from assay_agents.results import CaseSnapshot, Run
from assay_agents.results.changes import (
    DEFAULT_FLAKY_SHARE,
    EPSILON,
    Item,
    ItemMovement,
    NoiseFloor,
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
    WithheldHeadline,
)


def compare_runs(
    baseline: Run,
    current: Run,
    *,
    tolerance: float = 0.0,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE,
    flaky_share: float = DEFAULT_FLAKY_SHARE,
    noise_floor: NoiseFloor | None = None,
) -> Comparison:
    """Compare ``current`` with ``baseline`` (see :class:`ComparisonPolicy` for the options).

    An option outside [0, 1] is a :class:`ConfigurationError` naming it.
    """
    try:
        policy = ComparisonPolicy(
            tolerance=tolerance,
            drift_tolerance=drift_tolerance,
            max_excluded_share=max_excluded_share,
            flaky_share=flaky_share,
            noise_floor=noise_floor,
        )
    except SpecError as error:
        raise ConfigurationError(f"{error.field} {error.detail}") from None
    return compare(baseline, current, policy)


def compare(
    baseline: Run,
    current: Run,
    policy: ComparisonPolicy,
    *,
    baseline_pooled: Mapping[Item, PooledItem] | None = None,
    current_pooled: Mapping[Item, PooledItem] | None = None,
) -> Comparison:
    """Pair the items, judge each pairing, then compare the items that still pair.

    ``baseline_pooled``: the baseline's items as :func:`pool_run` pooled its samples as
    graded, for a baseline read without its samples (its cases are still read: they pair the
    items). ``current_pooled``: the current run's, pooled from its samples as they were read.
    """
    before = pool_run(baseline.samples) if baseline_pooled is None else baseline_pooled
    after = pool_run(current.samples) if current_pooled is None else current_pooled
    paired = pair_items(baseline, current, list(before), list(after))
    compared = [item.key for item in paired if item.pairing.compared]
    tolerances = Tolerances(policy.tolerance, policy.drift_tolerance)
    # A rescore of the baseline called no agent: only its judge can have moved.
    judge_only = current.rescored_from == baseline.id
    changes = [
        change
        for case_id, model in compared
        for change in item_changes(
            case_id,
            model,
            before[(case_id, model)],
            after[(case_id, model)],
            tolerances,
            policy.noise_floor,
            judge_only=judge_only,
        )
    ]
    keys = {item.key for item in paired}
    comparison = Comparison(
        baseline_id=baseline.id,
        current_id=current.id,
        policy=policy,
        paired=len(paired),
        only_in_baseline=sum(1 for key in before if key not in keys),
        only_in_current=sum(1 for key in after if key not in keys),
        excluded=tuple(item for item in paired if not item.pairing.compared),
        intended_changes=tuple(item for item in paired if item.pairing is Pairing.INTENDED),
        headline=WithheldHeadline(),
        changes=tuple(changes),
        judge_only=judge_only,
        added=tuple(key for key in after if key not in keys),
        removed=tuple(key for key in before if key not in keys),
        movements=_movements(baseline, current, before, after, paired),
    )
    # The headline needs the pairing counts, so it is decided on the comparison itself.
    headline = _headline(comparison, [before[k] for k in compared], [after[k] for k in compared])
    return replace(comparison, headline=headline)


def _movements(
    baseline: Run,
    current: Run,
    before: Mapping[Item, PooledItem],
    after: Mapping[Item, PooledItem],
    paired: Sequence[PairedItem],
) -> tuple[ItemMovement, ...]:
    """Every item a reader should see by name, in the current run's order, then removals."""
    found: list[ItemMovement] = []
    before_cases, after_cases = baseline.cases_by_id(), current.cases_by_id()
    for item in paired:
        key = item.key
        if not (_fingerprinted(before_cases, key[0]) and _fingerprinted(after_cases, key[0])):
            found.append(item_movement(key, "unverified", before[key], after[key]))
        elif item.pairing.compared and moved(before[key], after[key]):
            found.append(item_movement(key, "moved", before[key], after[key]))
    keys = {item.key for item in paired}
    found += [
        item_movement(key, "added", None, pooled)
        for key, pooled in after.items()
        if key not in keys
    ]
    found += [
        item_movement(key, "removed", pooled, None)
        for key, pooled in before.items()
        if key not in keys
    ]
    return tuple(found)


def _fingerprinted(cases: Mapping[str, CaseSnapshot], case_id: str) -> bool:
    snapshot = cases.get(case_id)
    return snapshot is not None and bool(snapshot.fingerprint)


def _headline(
    comparison: Comparison, before: list[PooledItem], after: list[PooledItem]
) -> Headline:
    ceiling = comparison.policy.max_excluded_share
    if comparison.paired == 0 or comparison.excluded_share > ceiling + EPSILON:
        return WithheldHeadline()
    (before_passed, before_evaluated), (after_passed, after_evaluated) = (
        pass_rate(before),
        pass_rate(after),
    )
    headline = MeasuredHeadline(
        before_passed=before_passed,
        before_evaluated=before_evaluated,
        after_passed=after_passed,
        after_evaluated=after_evaluated,
    )
    floor = comparison.policy.noise_floor
    if floor is not None and headline.delta is not None:
        headline = replace(headline, noise=floor.label(None, headline.delta))
    return headline
