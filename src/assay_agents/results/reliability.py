"""Reliability categories: which kind of expectation failed, kept apart from each other.

A single pass rate falls by the same amount when the agent sends a rebooking it should not
have and when it phrases a receipt awkwardly. The summary therefore counts failing samples
per category (side effects, content, actions, budgets, judge, and any custom category), and
reports agent errors, provider failures and not-evaluated samples as rates, not failures.

Apart from those, four integrity categories each keep their own failing-sample count:
side-effect integrity, operational claim integrity, semantic interpretation and clarification
integrity. A check speaks to one by its category (``check.speaks_to(...)``, a custom check's
``category=``); observation channels and forbid lists (``forbid_actions`` too) are in the
``side_effects`` category, so they count as side effects and as side-effect integrity. Judge scores
stay outside every one of them. Clarification, abandonment and provider failure are rates, read
from what the agent declared (its ``metadata["outcome"]`` or an ``outcome`` observation
channel), never inferred from its prose; a judge that failed is the judge's failure, counted
apart from the agent's provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay_agents.agent.answered import MISMATCH_KEY
from assay_agents.results.behaviour import distinct_behaviours
from assay_agents.results.sample import SampleResult, SampleStatus
from assay_agents.spec import JSON

#: Categories always present in a summary, in reading order; others follow alphabetically.
CATEGORIES: tuple[str, ...] = ("side_effects", "content", "actions", "budget", "judge")

#: The integrity categories, each with its own failing-sample count, in reading order.
INTEGRITY: tuple[str, ...] = (
    "side_effect_integrity",
    "operational_claim_integrity",
    "semantic_interpretation",
    "clarification_integrity",
)

#: Metric categories that speak to an integrity category without being named after it.
_INTEGRITY_OF = {"side_effects": "side_effect_integrity"}

#: Where an agent declares how a turn ended: ``metadata["outcome"]`` or this channel.
OUTCOME_KEY = "outcome"
#: Declared outcomes that count towards a rate (anything else declared counts as neither).
CLARIFICATION = "clarification"
ABANDONED = "abandoned"
PROVIDER_FAILURE = "provider_failure"

#: Exception names that mean the model provider failed rather than the agent's own code.
PROVIDER_ERRORS: frozenset[str] = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "APIStatusError",
        "APIError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
        "Timeout",
        "ProviderError",
    }
)


@dataclass(frozen=True, slots=True)
class ItemRate:
    """One case on one model: samples whose deterministic checks all passed, over samples."""

    case_id: str
    model: str | None
    passed: int
    samples: int
    #: Distinct deterministic signatures among the samples (see :mod:`.behaviour`).
    behaviours: int = 1

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


def checked_by_category(samples: Sequence[SampleResult]) -> dict[str, int]:
    """Samples with at least one deterministic check, per metric category.

    What :func:`failing_by_category` counts against: a category no sample had a check in was
    not measured, which a gate must not read as none failing.
    """
    counts = dict.fromkeys(CATEGORIES, 0)
    for sample in samples:
        for category in {m.category for m in sample.metrics if m.kind == "check"}:
            counts[category] = counts.get(category, 0) + 1
    extra = sorted(set(counts) - set(CATEGORIES))
    return {name: counts[name] for name in (*CATEGORIES, *extra)}


def integrity_of(category: str, kind: str = "check") -> str | None:
    """The integrity category a metric speaks to; ``None`` for judge scores and the rest."""
    if kind != "check":
        return None  # judge scores stay outside every category
    if category in INTEGRITY:
        return category
    return _INTEGRITY_OF.get(category)


def failing_by_integrity(samples: Sequence[SampleResult]) -> dict[str, int]:
    """Samples with a failed or errored check per integrity category (all four, always)."""
    counts = dict.fromkeys(INTEGRITY, 0)
    for sample in samples:
        spoken = {integrity_of(m.category, m.kind) for m in sample.metrics if not m.passed}
        for category in spoken - {None}:
            assert category is not None
            counts[category] += 1
    return counts


def declared_outcomes(sample: SampleResult) -> set[str]:
    """What the agent declared about how the turn ended: metadata and the outcome channel."""
    found: set[str] = set()
    _add_declared(found, sample.metadata.get(OUTCOME_KEY))
    if sample.observation is not None:
        _add_declared(found, sample.observation.channels.get(OUTCOME_KEY))
    return found


def _add_declared(found: set[str], value: JSON | list[JSON] | None) -> None:
    values = value if isinstance(value, list) else [value]
    found.update(item for item in values if isinstance(item, str) and item)


def is_judge_failure(sample: SampleResult) -> bool:
    """Whether a judge criterion could not be graded: the judge's failure, not the agent's."""
    return any(m.kind == "judge" and m.error is not None for m in sample.metrics)


def answered_by_another_model(sample: SampleResult) -> bool:
    """Whether another model than the sample's answered it: it measured nothing of its own."""
    return MISMATCH_KEY in sample.metadata


def is_provider_failure(sample: SampleResult) -> bool:
    """Whether the sample's error came from the model provider, not the agent itself.

    An agent may say so explicitly with ``metadata["failure"] = "provider"`` or a declared
    ``provider_failure`` outcome; otherwise the error's exception name is read
    (``RateLimitError: ...``, ``APIConnectionError: ...``).
    """
    if PROVIDER_FAILURE in declared_outcomes(sample):
        return True
    if sample.error is None:
        return False
    if sample.metadata.get("failure") == "provider":
        return True
    name = sample.error.split(":", 1)[0].strip()
    return name in PROVIDER_ERRORS


def rates(samples: Sequence[SampleResult]) -> dict[str, float | None]:
    """Agent-error, provider-failure, not-evaluated, clarification, abandonment, judge rates.

    The first three are over all samples. Clarification and abandonment are over the samples
    that declared an outcome, ``None`` when none did: nothing is read from prose. The judge
    failure rate is over the samples a judge was asked about.
    """
    if not samples:
        return dict.fromkeys(
            (
                "agent_error_rate",
                "provider_failure_rate",
                "not_evaluated_rate",
                "clarification_rate",
                "abandonment_rate",
                "judge_failure_rate",
            )
        )
    provider = sum(1 for sample in samples if is_provider_failure(sample))
    errored = sum(
        1 for sample in samples if sample.error is not None and not is_provider_failure(sample)
    )
    unevaluated = sum(1 for s in samples if s.status is SampleStatus.NOT_EVALUATED)
    total = len(samples)
    declared = [outcomes for outcomes in map(declared_outcomes, samples) if outcomes]
    judged = [s for s in samples if any(m.kind == "judge" for m in s.metrics)]
    return {
        "agent_error_rate": errored / total,
        "provider_failure_rate": provider / total,
        "not_evaluated_rate": unevaluated / total,
        "clarification_rate": _share(declared, CLARIFICATION),
        "abandonment_rate": _share(declared, ABANDONED),
        "judge_failure_rate": (
            sum(map(is_judge_failure, judged)) / len(judged) if judged else None
        ),
    }


def _share(declared: list[set[str]], outcome: str) -> float | None:
    return sum(1 for found in declared if outcome in found) / len(declared) if declared else None


def passes_checks(sample: SampleResult) -> bool:
    """The deterministic verdict of one sample: no agent error, checks present and passing."""
    checks = [metric for metric in sample.metrics if metric.kind == "check"]
    return sample.error is None and bool(checks) and all(m.passed for m in checks)


def item_rates(samples: Sequence[SampleResult]) -> list[ItemRate]:
    """Each (case, model)'s deterministic pass rate and distinct behaviours, in first order."""
    grouped: dict[tuple[str, str | None], list[SampleResult]] = {}
    for sample in samples:
        if sample.evaluated:
            grouped.setdefault((sample.case_id, sample.model), []).append(sample)
    return [
        ItemRate(
            case, model, sum(map(passes_checks, found)), len(found), distinct_behaviours(found)
        )
        for (case, model), found in grouped.items()
    ]
