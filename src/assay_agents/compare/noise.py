"""The noise floor: how far the unchanged system moves against itself.

A control run executes the same suite twice against the same code. The largest movement
between the two, per metric and for pass rates, is the floor under which a later change is
indistinguishable from the harness breathing. Without a control run nothing is known, and an
unmeasured movement counts as signal: treating the unknown as harmless is how a regression
ships.
"""

from __future__ import annotations

from assay_agents.compare.pooling import (
    PooledItem,
    item_movement,
    moved,
    movement,
    pass_rate,
    pool_run,
)
from assay_agents.results import Run
from assay_agents.results.changes import NoiseFloor


def measure_noise(first: Run, second: Run) -> NoiseFloor:
    """Measure the floor from two runs of the same suite against the same code."""
    before, after = pool_run(first.samples), pool_run(second.samples)
    shared = [key for key in after if key in before]
    metrics: dict[str, float] = {}
    for key in shared:
        for name, new in after[key].metrics.items():
            old = before[key].metrics.get(name)
            if old is not None:
                metrics[name] = max(metrics.get(name, 0.0), movement(old, new))
    rate = _largest_pass_rate_movement(
        [before[k] for k in shared], [after[k] for k in shared], [k[1] for k in shared]
    )
    named = tuple(
        item_movement(key, "moved", before[key], after[key])
        for key in shared
        if moved(before[key], after[key])
    )
    return NoiseFloor((first.id, second.id), rate, metrics, named)


def _largest_pass_rate_movement(
    before: list[PooledItem], after: list[PooledItem], models: list[str | None]
) -> float:
    groups = [list(range(len(models)))]
    groups += [[i for i, m in enumerate(models) if m == model] for model in dict.fromkeys(models)]
    largest = 0.0
    for indices in groups:
        old = pass_rate([before[i] for i in indices])
        new = pass_rate([after[i] for i in indices])
        if old[1] and new[1]:
            largest = max(largest, abs(new[0] / new[1] - old[0] / old[1]))
    return largest
