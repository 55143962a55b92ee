"""Offline test doubles that use real transports: a scripted OpenAI-compatible server."""

from assay.testing.server import (
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
