"""Where an agent error's traceback is kept: the sample's metadata, under one documented key.

The runner stores the user's own frames of an agent exception (at most
:data:`TRACEBACK_FRAMES`, the innermost) as text under :data:`TRACEBACK_KEY`; the terminal
and every report show it beside the error.
"""

from __future__ import annotations

from assay_agents.results.sample import SampleResult

#: The sample metadata key an agent error's traceback is stored under.
TRACEBACK_KEY = "traceback"
#: How many of the innermost user frames a stored traceback keeps.
TRACEBACK_FRAMES = 20


def traceback_of(sample: SampleResult) -> str | None:
    """The stored traceback of an errored sample, or ``None``."""
    if sample.error is None:
        return None
    value = sample.metadata.get(TRACEBACK_KEY)
    return value if isinstance(value, str) else None


def metadata_without_traceback(sample: SampleResult) -> dict[str, object]:
    """The sample's metadata apart from the traceback shown on its own."""
    if traceback_of(sample) is None:
        return dict(sample.metadata)
    return {key: value for key, value in sample.metadata.items() if key != TRACEBACK_KEY}
