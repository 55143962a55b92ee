"""What the transport patches ask of the current sample's replay: the one seam they share.

The patches and the scope machinery type against this protocol, not :class:`ReplaySession`,
so the session may import them while they never import it.
"""

from __future__ import annotations

from typing import Protocol

from assay.replay.matching import ObservedRequest
from assay.spec.fixtures import CannedResponse


class Intercepted(Protocol):
    """The replay state of the sample whose request a patched transport is handling."""

    def passes_through(self, request: ObservedRequest) -> bool:
        """Whether the request goes to the network untouched."""
        ...

    def respond(self, request: ObservedRequest) -> CannedResponse:
        """The canned response for the request, or a refusal raised as ``ReplayError``."""
        ...

    def close(self) -> None:
        """End the sample's replay: later requests are refused."""
        ...
