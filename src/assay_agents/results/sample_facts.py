"""What a report reads of a run's samples beside its stored summary.

The summary holds the run's figures. A few things a report writes come from the samples
themselves: how many samples passed their checks (the deterministic pass rate written as a
fraction), which models' costs were estimated (their money reads ``~``), and the rate-limit
retries and adjustments. :meth:`SampleFacts.of` reads them from loaded samples; a store
counts the same in its queries (:class:`assay.Store` does), so that a page can show a run's
summary without loading the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import add

from assay_agents.results.pacing import RunPacing, SamplePacing
from assay_agents.results.sample import SampleResult
from assay_agents.results.summary import CheckTally


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleFacts:
    """The sample-level facts a report reads beside the run's summary.

    ``checks`` counts the deterministic pass rate per model label (``None`` for samples
    without one); ``estimated`` holds the labels of samples whose cost was estimated;
    ``pacing`` is the run's rate-limit retries and adjustments.
    """

    checks: Mapping[str | None, CheckTally] = field(default_factory=dict)
    estimated: frozenset[str | None] = frozenset()
    pacing: RunPacing | None = None

    @property
    def checked(self) -> tuple[int, int] | None:
        """The run's (passing, counted) deterministic figures; ``None`` without a check."""
        return reduce(add, self.checks.values(), CheckTally()).counts()

    def checked_for(self, model: str) -> tuple[int, int] | None:
        """``model``'s (passing, counted) deterministic figures; ``None`` without a check."""
        return self.checks.get(model, CheckTally()).counts()

    def estimated_for(self, model: str | None = None) -> bool:
        """Whether any cost (of ``model``'s samples, when given) was estimated."""
        return bool(self.estimated) if model is None else model in self.estimated

    @classmethod
    def of(cls, samples: Sequence[SampleResult]) -> SampleFacts:
        """Read from loaded samples (in the run's order), in one pass over them."""
        by_model: dict[str | None, list[SampleResult]] = defaultdict(list)
        estimated: set[str | None] = set()
        pacings: list[SamplePacing] = []
        for sample in samples:
            by_model[sample.model].append(sample)
            if _estimated(sample):
                estimated.add(sample.model)
            if sample.pacing is not None:
                pacings.append(sample.pacing)
        return cls(
            checks={model: CheckTally.of(chosen) for model, chosen in by_model.items()},
            estimated=frozenset(estimated),
            pacing=RunPacing.of(pacings),
        )


def _estimated(sample: SampleResult) -> bool:
    return sample.usage is not None and sample.usage.cost_source == "estimated"
