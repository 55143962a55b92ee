"""A sample's behaviour: the deterministic signature of what it did and how checks judged it.

Two samples behave alike when they made the same calls, the system recorded the same items on
every observation channel, and each check reached the same verdict. The answer's wording and
every judge score are left out: a rephrased answer is not a different behaviour. Four samples
that alternate between two behaviours report two, whatever their prose.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from assay_agents.results.sample import SampleResult
from assay_agents.spec import JSON, canonical_json


def signature(sample: SampleResult) -> str:
    """A short, stable digest of the sample's actions, observation channels and check verdicts."""
    actions: JSON = (
        None
        if sample.actions is None
        else [
            [action.group, action.name, action.arguments, action.failed]
            for action in sample.actions
        ]
    )
    observation: JSON = None
    if sample.observation is not None:
        observation = {
            "channels": {name: list(items) for name, items in sample.observation.channels.items()},
            "truncated": sample.observation.truncated,
        }
    verdicts: list[JSON] = [
        [metric.name, metric.passed, metric.error is not None]
        for metric in sample.metrics
        if metric.kind == "check"
    ]
    verdicts.sort(key=canonical_json)
    document: JSON = {
        "actions": actions,
        "observation": observation,
        "checks": verdicts,
        "agent_error": sample.error is not None,
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()[:16]


def distinct_behaviours(samples: Iterable[SampleResult]) -> int:
    """How many different signatures the samples showed."""
    chosen = list(samples)
    if len(chosen) < 2:
        return len(chosen)  # one sample is one behaviour: no signature to compute
    return len({signature(sample) for sample in chosen})
