"""Which models answered a sample's completion requests, read from the responses themselves.

An agent may call its provider with a model of its own choosing whatever the sample asked
for. While a :class:`ModelWatch` is active in a context, the JSON responses its HTTP clients
receive from completion endpoints (a path ending in ``/chat/completions``, ``/completions``,
``/responses`` or ``/messages``), live or replayed, are read for the ``model`` they name.
Clients are covered as for replay (``httpx``, ``httpx2``, ``requests`` and LiteLLM's aiohttp
transport); a streamed (event-stream) response is not read, and nothing else about a request
changes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ModelWatch:
    """The models named by the completion responses of one sample, in arrival order."""

    def __init__(self) -> None:
        self._models: list[str] = []
        self._lock = threading.Lock()

    @property
    def models(self) -> tuple[str, ...]:
        """Each distinct model named so far, first seen first."""
        with self._lock:
            return tuple(dict.fromkeys(self._models))

    @contextmanager
    def active(self) -> Iterator[ModelWatch]:
        """Read the completion responses received by code run inside this block."""
        from assay_agents.replay import _interception

        with _interception.watching(self):
            yield self

    def note(self, body: bytes) -> None:
        """Record the model a response body names, if it names one."""
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            return
        model = value.get("model") if isinstance(value, dict) else None
        if isinstance(model, str) and model:
            with self._lock:
                self._models.append(model)


@contextmanager
def patched() -> Iterator[None]:
    """Keep the clients patched for a whole run, so each sample's watch only looks them up."""
    from assay_agents.replay import _interception

    with _interception.held():
        yield


def preload() -> None:
    """Import the HTTP clients a watch patches, ahead of time and off the event loop.

    The first watch patches them: imported then, on the loop, their import time would be
    charged to whichever agents' clocks were running.
    """
    import importlib

    for name in ("httpx", "httpx2", "requests", "urllib3"):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
