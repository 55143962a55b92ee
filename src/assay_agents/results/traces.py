"""Which traces a sample (or a run) was recorded in: its own and its judge calls'."""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay_agents.errors import SpecError

#: A W3C trace id: 32 lowercase hex digits, not all zero.
_TRACE_ID = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True, slots=True)
class Traces:
    """The trace ids to look a sample (or a run) up by in a tracing backend.

    ``trace_id`` is the sample's own trace (the agent's spans nest under it; for a run, the
    run's span). ``judge_trace_ids`` are the judge calls that graded the sample (for a run,
    those no sample owns: the verdict). A trace its sampler dropped is never recorded here.
    """

    trace_id: str | None = None
    judge_trace_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for value in (self.trace_id, *self.judge_trace_ids):
            if value is not None and not _TRACE_ID.fullmatch(value):
                raise SpecError(
                    f"{value!r} is not a trace id (32 lowercase hex digits)", field="traces"
                )

    @property
    def empty(self) -> bool:
        """Whether no trace was recorded at all."""
        return self.trace_id is None and not self.judge_trace_ids
