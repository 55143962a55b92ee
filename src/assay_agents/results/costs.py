"""Each case's cost: the agent's across models, the judge's, their total, whether estimated.

The judge's cost is the evaluation's overhead: it is shown beside the agent's and added to
it only in ``total_usd``, never folded into the agent's figure. The run's own judge calls
(the model verdict) belong to no case; the run's summary counts them in its totals.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay_agents.results.sample import SampleResult

CaseCost = dict[str, Any]


def case_costs(samples: Iterable[SampleResult]) -> list[CaseCost]:
    """One entry per case in first-seen order, with the same figures per model label.

    Each entry: ``case_id``, ``cost_usd`` (the agent's, ``None`` when nothing was priced),
    ``judge_cost_usd``, ``total_usd``, ``estimated`` and ``by_model``.
    """
    grouped: dict[str, list[SampleResult]] = {}
    for sample in samples:
        grouped.setdefault(sample.case_id, []).append(sample)
    entries = []
    for case_id, found in grouped.items():
        by_model: dict[str, list[SampleResult]] = {}
        for sample in found:
            if sample.model is not None:
                by_model.setdefault(sample.model, []).append(sample)
        entries.append(
            {
                "case_id": case_id,
                **_costs(found),
                "by_model": {label: _costs(group) for label, group in by_model.items()},
            }
        )
    return entries


def _costs(samples: list[SampleResult]) -> CaseCost:
    agent = [s.usage.cost_usd for s in samples if s.usage and s.usage.cost_usd is not None]
    judge: list[float] = []
    estimated = any(
        s.usage is not None and s.usage.cost_usd is not None and s.usage.cost_source == "estimated"
        for s in samples
    )
    for sample in samples:
        usage = sample.judge_usage
        if usage is not None and usage.cost_usd is not None:
            judge.append(usage.cost_usd)
            estimated = estimated or usage.cost_estimated
    agent_cost = sum(agent) if agent else None
    judge_cost = sum(judge) if judge else None
    total = (
        None
        if agent_cost is None and judge_cost is None
        else (agent_cost or 0.0) + (judge_cost or 0.0)
    )
    return {
        "cost_usd": agent_cost,
        "judge_cost_usd": judge_cost,
        "total_usd": total,
        "estimated": estimated,
    }
