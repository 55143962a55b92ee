"""What an agent is handed besides the input, and the agent protocol itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Outcome
from assay_agents.spec import JSON, Case


@dataclass(frozen=True, slots=True)
class AgentContext:
    """The sample an agent call belongs to.

    ``model`` is ``None`` when the run names no models; ``sample`` is the index k of the
    case's samples (each a fresh start); ``setup`` is the case's opaque setup data, a copy.
    """

    case: Case
    model: ModelSpec | None
    sample: int
    setup: JSON


AgentResult: TypeAlias = Outcome | str | dict[str, Any]
#: Any callable, sync or async, taking ``(input, ctx)``.
Agent: TypeAlias = Callable[[Any, AgentContext], AgentResult | Awaitable[AgentResult]]
