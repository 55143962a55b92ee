"""What judge calls cost: the evaluation's overhead, never the agent's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class JudgeUsage:
    """Judge calls counted together (a sample's, or the run's own: the model verdict).

    ``calls`` counts judge calls (one per vote); ``attempts`` counts the HTTP requests they
    took, retries included. ``by_kind`` counts the calls per kind (``score``, ``refine``,
    ``verdict``); ``model`` is the judge's label and ``source`` says how the cost is known
    (``reported``, ``estimated``, ``mixed``, ``unpriced`` or ``no_usage``).
    """

    calls: int = 0
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cost_estimated: bool = False
    by_kind: Mapping[str, int] = field(default_factory=dict)
    model: str | None = None
    source: str = "no_usage"
