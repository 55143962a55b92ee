"""Offline test doubles that use real transports: a scripted OpenAI-compatible server."""

from assay_agents.testing.server import (
    Response,
    ScriptedServer,
    Throttle,
    completion,
    failure,
    malformed,
    reply,
    slow,
    streamed,
    tool_calls,
    verdict,
)

__all__ = [
    "Response",
    "ScriptedServer",
    "Throttle",
    "completion",
    "failure",
    "malformed",
    "reply",
    "slow",
    "streamed",
    "tool_calls",
    "verdict",
]
