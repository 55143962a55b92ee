"""Whether Assay reads the OpenAI Agents SDK's spans of the agent call made in this context.

The span capture sets :data:`SPANS_READ` around each agent call it watches, once it has
put itself among the SDK's trace processors with the others behind a gate
(:func:`assay_agents.otel.openai_agents.capture_agents_tracing`). The Agents SDK adapter then
traces a run whose tracing is otherwise off, for Assay alone: it marks the trace with
:data:`PRIVATE_KEY`, and the gate keeps a marked trace and its spans from every processor
but Assay's (the SDK's default one, which posts traces to OpenAI, included).
"""

from __future__ import annotations

import contextvars

#: True while an agent call's Agents SDK spans are read by Assay (and kept from the rest).
SPANS_READ: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "assay_agents_spans_read", default=False
)
#: The trace metadata key of a trace traced for Assay alone.
PRIVATE_KEY = "assay.private"
