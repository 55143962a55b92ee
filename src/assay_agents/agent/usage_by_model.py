"""Tokens per model, for a sample more than one model answered.

A sample's :class:`~assay_agents.agent.outcome.Usage` holds one count of tokens and one cost, priced
at the rate of the one model in ``metadata["model"]``. An agent that hands off from one
model to another (a cheap router, then an expert) would have every token priced at one
model's rate. Such a sample names no single model: its metadata holds each answering model's
own tokens under :data:`MODEL_USAGE_KEY` (``{"gpt-4.1-nano": {"input_tokens": 10,
"output_tokens": 1}, "gpt-4o": {...}}``), and Assay prices each model's tokens at that
model's rate. The counts must add up to the sample's usage; figures that do not are not
priced at all rather than priced in part.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay_agents.spec import JSON

#: The sample metadata key holding each answering model's tokens.
MODEL_USAGE_KEY = "model_usage"


def usage_by_model(metadata: Mapping[str, JSON]) -> dict[str, tuple[int, int]] | None:
    """Each model's ``(input, output)`` tokens, or ``None`` when the metadata holds none.

    The metadata is the agent's and untrusted: an entry that is not a model name with two
    whole, non-negative counts makes the whole record unreadable (``None``).
    """
    recorded = metadata.get(MODEL_USAGE_KEY)
    if not isinstance(recorded, Mapping) or not recorded:
        return None
    found: dict[str, tuple[int, int]] = {}
    for name, counts in recorded.items():
        if not name or not isinstance(counts, Mapping):
            return None
        pair = (counts.get("input_tokens"), counts.get("output_tokens"))
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in pair):
            return None
        found[name] = (int(pair[0]), int(pair[1]))  # type: ignore[arg-type]
    return found
