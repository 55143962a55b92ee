"""The noise floor: how far the unchanged system moves against itself.

A control run executes the same suite twice against the same code. The largest movement
between the two, per metric and for pass rates, is the floor under which a later change is
indistinguishable from the harness breathing. Without a control run nothing is known, and an
unmeasured movement counts as signal: treating the unknown as harmless is how a regression
ships.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from assay.compare.pooling import (
    EPSILON,
    ItemMovement,
    PooledItem,
    moved,
    movement,
    pass_rate,
    pool_run,
)
from assay.results import Run

#: Above this floor the corpus is reported as too flaky to measure (0–1 scale).
DEFAULT_FLAKY_SHARE = 0.3


class NoiseLabel(StrEnum):
    """How a movement compares with the noise floor."""

    WITHIN = "within_noise"
    BEYOND = "beyond_noise"
    UNMEASURED = "unmeasured"

    @property
    def is_signal(self) -> bool:
        """Only a movement within a measured floor is excused."""
        return self is not NoiseLabel.WITHIN


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """The largest movement of an unchanged system against itself.

    ``metrics`` maps each metric (and ``"(agent)"`` for agent errors) to the largest movement
    of any item's pooled score, pass share or error share; ``pass_rate`` is the largest
    movement of the run's pass rate, overall and per model. ``control`` names the two runs.
    """

    control: tuple[str, str]
    pass_rate: float
    metrics: dict[str, float] = field(default_factory=dict)
    #: The items whose pass rate moved between the two control runs, by name.
    moved: tuple[ItemMovement, ...] = ()

    @classmethod
    def measure(cls, first: Run, second: Run) -> NoiseFloor:
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
            ItemMovement.between(key, "moved", before[key], after[key])
            for key in shared
            if moved(before[key], after[key])
        )
        return cls((first.id, second.id), rate, metrics, named)

    @property
    def largest(self) -> float:
        """The largest movement of anything the floor measured."""
        return max([self.pass_rate, *self.metrics.values()])

    def label(self, metric: str | None, moved: float) -> NoiseLabel:
        """Label a movement of ``metric`` (``None``: the pass rate) against the floor."""
        floor = self.pass_rate if metric is None else self.metrics.get(metric)
        if floor is None:
            return NoiseLabel.UNMEASURED
        return NoiseLabel.WITHIN if abs(moved) <= floor + EPSILON else NoiseLabel.BEYOND

    def too_flaky(self, share: float = DEFAULT_FLAKY_SHARE) -> bool:
        """Whether the floor itself is the finding: more movement than ``share`` allows."""
        return self.largest > share + EPSILON

    def to_json(self) -> dict[str, Any]:
        """The portable form."""
        return {
            "control": list(self.control),
            "pass_rate": self.pass_rate,
            "metrics": dict(self.metrics),
            "moved": [movement.to_json() for movement in self.moved],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NoiseFloor:
        """Rebuild a floor from its portable form."""
        first, second = data["control"]
        return cls(
            (first, second),
            float(data["pass_rate"]),
            {name: float(value) for name, value in data["metrics"].items()},
            tuple(ItemMovement.from_json(item) for item in data.get("moved") or ()),
        )


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
