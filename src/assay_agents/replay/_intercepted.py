"""What the transport patches ask of the current sample's replay and model watch.

The patches and the scope machinery type against these protocols, not :class:`ReplaySession`
or :class:`~assay_agents.replay.watch.ModelWatch`, so those may import them while they never import
those.
"""

from __future__ import annotations

from typing import Protocol

from assay_agents.replay.matching import ObservedRequest
from assay_agents.replay.recording import Recorder
from assay_agents.spec.fixtures import CannedResponse


class Intercepted(Protocol):
    """The replay state of the sample whose request a patched transport is handling."""

    @property
    def recorder(self) -> Recorder | None:
        """The recording requests are kept in, when the sample records instead of replaying."""
        ...

    def begin(self, request: ObservedRequest) -> int:
        """Reserve the recording's place for a request about to go to the network."""
        ...

    def passes_through(self, request: ObservedRequest) -> bool:
        """Whether the request goes to the network untouched."""
        ...

    def respond(self, request: ObservedRequest) -> CannedResponse:
        """The canned response for the request, or a refusal raised as ``ReplayError``."""
        ...

    def close(self) -> None:
        """End the sample's replay: later requests are refused."""
        ...


class Watching(Protocol):
    """The model watch of the sample whose response a patched transport received."""

    def note(self, body: bytes) -> None:
        """Record the model a completion's body names."""
        ...


_COMPLETION_PATHS = ("/chat/completions", "/completions", "/responses", "/messages")


def is_completion(path: str, content_type: str | None) -> bool:
    """Whether a response is a (non-streamed) JSON completion worth reading for its model."""
    return path.rstrip("/").endswith(_COMPLETION_PATHS) and "json" in (content_type or "").lower()
