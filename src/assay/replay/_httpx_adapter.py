"""Interception for httpx and its fork httpx2 (which the ``openai`` client uses).

The default transports' ``handle_request`` / ``handle_async_request`` are replaced on the
class, so every client using them is covered, including clients created before the sample
started. Custom transports (``MockTransport``, aiohttp-based ones) are not intercepted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

from assay.errors import ReplayError
from assay.replay._intercepted import is_completion
from assay.replay.matching import ObservedRequest

if TYPE_CHECKING:
    from assay.replay._intercepted import Intercepted, Watching

Current = Callable[[], "Intercepted | None"]
Watch = Callable[[], "Watching | None"]
# Headers describing the bytes on the wire, which a response rebuilt from its decoded
# content no longer has.
_WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def install(module_name: str, current: Current, watch: Watch) -> Callable[[], None] | None:
    """Patch the module's default transports; return the function that restores them."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    sync_cls, async_cls = module.HTTPTransport, module.AsyncHTTPTransport
    sync_original = sync_cls.__dict__["handle_request"]
    async_original = async_cls.__dict__["handle_async_request"]
    refused = _error_type(module)

    def handle_request(self: Any, request: Any) -> Any:
        session, watching = current(), watch()
        if session is None or session.passes_through(_observe(request)):
            response = sync_original(self, request)
            if watching is None or not _readable(request, response):
                return response
            return _read(module, watching, request, response, response.read())
        observed = replace(_observe(request), body=request.read())
        return _watched(watching, request, _serve(module, session, observed, request, refused))

    async def handle_async_request(self: Any, request: Any) -> Any:
        session, watching = current(), watch()
        if session is None or session.passes_through(_observe(request)):
            response = await async_original(self, request)
            if watching is None or not _readable(request, response):
                return response
            return _read(module, watching, request, response, await response.aread())
        observed = replace(_observe(request), body=await request.aread())
        return _watched(watching, request, _serve(module, session, observed, request, refused))

    sync_cls.handle_request = handle_request
    async_cls.handle_async_request = handle_async_request

    def restore() -> None:
        # Put back only what is still ours: never clobber a patch someone applied later.
        if sync_cls.__dict__.get("handle_request") is handle_request:
            sync_cls.handle_request = sync_original
        if async_cls.__dict__.get("handle_async_request") is handle_async_request:
            async_cls.handle_async_request = async_original

    return restore


def _observe(request: Any) -> ObservedRequest:
    return ObservedRequest.build(
        request.method, str(request.url), request.headers.multi_items(), b""
    )


def _readable(request: Any, response: Any) -> bool:
    return is_completion(request.url.path, response.headers.get("content-type"))


def _read(module: ModuleType, watching: Watching, request: Any, response: Any, body: bytes) -> Any:
    """The response, read for its model and handed on as the same decoded content."""
    watching.note(body)
    headers = [
        (name, value)
        for name, value in response.headers.multi_items()
        if name.lower() not in _WIRE_HEADERS
    ]
    return module.Response(
        status_code=response.status_code,
        headers=headers,
        content=body,
        request=request,
        extensions=response.extensions,
    )


def _watched(watching: Watching | None, request: Any, response: Any) -> Any:
    """A replayed response, noted by the watch when it is a completion."""
    if watching is not None and _readable(request, response):
        watching.note(response.content)
    return response


def _serve(
    module: ModuleType, session: Intercepted, observed: ObservedRequest, request: Any, refused: Any
) -> Any:
    try:
        canned = session.respond(observed)
    except ReplayError as error:
        raise refused(str(error), request=request) from None
    return module.Response(
        status_code=canned.status,
        headers=list(canned.headers),
        content=canned.body,
        request=request,
    )


def _error_type(module: ModuleType) -> Any:
    # Both a ReplayError and the client's own connection error, so agents that handle
    # network failures the usual way handle this one too.
    return type("ReplayConnectError", (ReplayError, module.ConnectError), {"__module__": __name__})
