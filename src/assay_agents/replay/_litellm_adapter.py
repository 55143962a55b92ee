"""Interception for LiteLLM's own aiohttp transport (its default for async calls).

``LiteLLMAiohttpTransport`` is an ``httpx.AsyncBaseTransport``: it takes an ``httpx.Request``
and returns an ``httpx.Response``, so its ``handle_async_request`` is patched exactly like
httpx's default transport, with ``httpx`` responses. LiteLLM is never imported here: it is
patched only when it is already loaded (an agent or judge built on it imports it when it is
created, before any sample runs), so a run without LiteLLM pays nothing for it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from assay_agents.replay import _httpx_adapter

if TYPE_CHECKING:
    from assay_agents.replay._intercepted import Intercepted, Watching

Current = Callable[[], "Intercepted | None"]
Watch = Callable[[], "Watching | None"]
_TRANSPORT_MODULE = "litellm.llms.custom_httpx.aiohttp_transport"


def install(current: Current, watch: Watch) -> Callable[[], None] | None:
    """Patch every aiohttp transport class LiteLLM defines; return what restores them."""
    module = sys.modules.get(_TRANSPORT_MODULE)
    httpx = sys.modules.get("httpx")
    if module is None or httpx is None:
        return None
    restorers = [
        _httpx_adapter.install_async(cls, httpx, current, watch)
        for cls in _transport_classes(module)
    ]

    def restore() -> None:
        for undo in reversed(restorers):
            undo()

    return restore


def _transport_classes(module: object) -> list[type]:
    # Each class that defines its own handle_async_request (the base and LiteLLM's subclass).
    found = []
    for name in ("AiohttpTransport", "LiteLLMAiohttpTransport"):
        cls = getattr(module, name, None)
        if isinstance(cls, type) and "handle_async_request" in cls.__dict__:
            found.append(cls)
    return found
