"""Reliability categories: which kind of expectation failed, kept apart from each other.

A single pass rate falls by the same amount when the agent sends a rebooking it should not
have and when it phrases a receipt awkwardly. The summary therefore counts failing samples
per category (side effects, content, actions, budgets, judge, and any custom category), and
reports agent errors, provider failures and not-evaluated samples as rates, not failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.results.sample import SampleResult, SampleStatus

#: Categories always present in a summary, in reading order; others follow alphabetically.
CATEGORIES: tuple[str, ...] = ("side_effects", "content", "actions", "budget", "judge")

#: Exception names that mean the model provider failed rather than the agent's own code.
PROVIDER_ERRORS: frozenset[str] = frozenset({
    "APIConnectionError", "APITimeoutError", "APIStatusError", "APIError",
    "RateLimitError", "InternalServerError", "ServiceUnavailableError",
    "BadGatewayError", "Timeout", "ProviderError",
})


@dataclass(frozen=True, slots=True)
class ItemRate:
    """One case on one model: samples whose deterministic checks all passed, over samples."""

    case_id: str
    model: str | None
    passed: int
    samples: int

    @property
    def rate(self) -> float | None:
        """The case's deterministic pass rate; ``None`` without samples."""
        return self.passed / self.samples if self.samples else None

    @property
    def flaky(self) -> bool:
        """Some samples passed and some did not: a result about the agent, not an error."""
        return 0 < self.passed < self.samples


def failing_by_category(samples: Sequence[SampleResult]) -> dict[str, int]:
    """Samples with at least one failed or errored metric, per metric category."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for sample in samples:
        for category in {m.category for m in sample.metrics if not m.passed}:
            counts[category] = counts.get(category, 0) + 1
    extra = sorted(set(counts) - set(CATEGORIES))
    return {name: counts[name] for name in (*CATEGORIES, *extra)}


def is_provider_failure(sample: SampleResult) -> bool:
    """Whether the sample's error came from the model provider, not the agent itself.

    An agent may say so explicitly with ``metadata["failure"] = "provider"``; otherwise the
    error's exception name is read (``RateLimitError: ...``, ``APIConnectionError: ...``).
    """
    if sample.error is None:
        return False
    if sample.metadata.get("failure") == "provider":
        return True
    name = sample.error.split(":", 1)[0].strip()
    return name in PROVIDER_ERRORS


def rates(samples: Sequence[SampleResult]) -> dict[str, float | None]:
    """Agent-error, provider-failure and not-evaluated rates over all samples."""
    if not samples:
        return {"agent_error_rate": None, "provider_failure_rate": None,
                "not_evaluated_rate": None}
    provider = sum(1 for sample in samples if is_provider_failure(sample))
    errored = sum(1 for sample in samples if sample.error is not None)
    unevaluated = sum(1 for s in samples if s.status is SampleStatus.NOT_EVALUATED)
    total = len(samples)
    return {"agent_error_rate": (errored - provider) / total,
            "provider_failure_rate": provider / total,
            "not_evaluated_rate": unevaluated / total}


def passes_checks(sample: SampleResult) -> bool:
    """The deterministic verdict of one sample: no agent error, checks present and passing."""
    checks = [metric for metric in sample.metrics if metric.kind == "check"]
    return sample.error is None and bool(checks) and all(m.passed for m in checks)


def item_rates(samples: Sequence[SampleResult]) -> list[ItemRate]:
    """Each (case, model)'s deterministic pass rate, in the order the items first appear."""
    counts: dict[tuple[str, str | None], list[int]] = {}
    for sample in samples:
        if not sample.evaluated:
            continue
        tally = counts.setdefault((sample.case_id, sample.model), [0, 0])
        tally[0] += passes_checks(sample)
        tally[1] += 1
    return [ItemRate(case, model, passed, total)
            for (case, model), (passed, total) in counts.items()]
