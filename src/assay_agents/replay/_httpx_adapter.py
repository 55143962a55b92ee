"""Interception for httpx and its fork httpx2 (which the ``openai`` client uses).

The default transports' ``handle_request`` / ``handle_async_request`` are replaced on the
class, so every client using them is covered, including clients created before the sample
started. Custom transports (``MockTransport``, aiohttp-based ones) are not intercepted,
except LiteLLM's, which :mod:`assay_agents.replay._litellm_adapter` patches with
:func:`install_async`.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

from assay_agents.errors import ReplayError
from assay_agents.replay._intercepted import is_completion
from assay_agents.replay.matching import ObservedRequest
from assay_agents.spec.fixtures import CannedResponse

if TYPE_CHECKING:
    from assay_agents.replay._intercepted import Intercepted, Watching
    from assay_agents.replay.recording import Recorder

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
    sync_cls = module.HTTPTransport
    sync_original = sync_cls.__dict__["handle_request"]
    refused = _error_type(module)

    def handle_request(self: Any, request: Any) -> Any:
        session, watching = current(), watch()
        if session is not None and session.recorder is not None:
            return _recorded(module, session, watching, request, refused, self, sync_original)
        if session is None or session.passes_through(_observe(request)):
            response = sync_original(self, request)
            if watching is None or not _readable(request, response):
                return response
            return _read(module, watching, request, response, response.read())
        observed = replace(_observe(request), body=request.read())
        served = _serve(module, session, observed, request, refused, asynchronous=False)
        return _watched(watching, request, served)

    sync_cls.handle_request = handle_request
    restore_async = install_async(module.AsyncHTTPTransport, module, current, watch)

    def restore() -> None:
        # Put back only what is still ours: never clobber a patch someone applied later.
        if sync_cls.__dict__.get("handle_request") is handle_request:
            sync_cls.handle_request = sync_original
        restore_async()

    return restore


def install_async(
    transport_cls: Any, module: ModuleType, current: Current, watch: Watch
) -> Callable[[], None]:
    """Patch one async transport class of ``module``; return the function that restores it.

    Any transport that takes and returns ``module``'s requests and responses can be
    patched so (LiteLLM's aiohttp transport is an ``httpx`` one).
    """
    async_original = transport_cls.__dict__["handle_async_request"]
    refused = _error_type(module)

    async def handle_async_request(self: Any, request: Any) -> Any:
        session, watching = current(), watch()
        if session is not None and session.recorder is not None:
            return await _recorded_async(
                module, session, watching, request, refused, self, async_original
            )
        if session is None or session.passes_through(_observe(request)):
            response = await async_original(self, request)
            if watching is None or not _readable(request, response):
                return response
            return _read(module, watching, request, response, await response.aread())
        observed = replace(_observe(request), body=await request.aread())
        served = _serve(module, session, observed, request, refused, asynchronous=True)
        return _watched(watching, request, served)

    transport_cls.handle_async_request = handle_async_request

    def restore() -> None:
        if transport_cls.__dict__.get("handle_async_request") is handle_async_request:
            transport_cls.handle_async_request = async_original

    return restore


def _recorded(
    module: ModuleType,
    session: Intercepted,
    watching: Watching | None,
    request: Any,
    refused: Any,
    transport: Any,
    original: Any,
) -> Any:
    """Send the request live, keep it and its response in the recording, hand it on."""
    observed = replace(_observe(request), body=request.read())
    slot = _begin(session, observed, request, refused)
    try:
        response = original(transport, request)
        body = response.read()
    except BaseException as error:  # a cancelled or timed-out call is no response either
        _recorder(session).fail(slot, observed, error)
        raise
    return _kept(module, session, watching, request, (observed, slot), response, body, False)


async def _recorded_async(
    module: ModuleType,
    session: Intercepted,
    watching: Watching | None,
    request: Any,
    refused: Any,
    transport: Any,
    original: Any,
) -> Any:
    observed = replace(_observe(request), body=await request.aread())
    slot = _begin(session, observed, request, refused)
    try:
        response = await original(transport, request)
        body = await response.aread()
    except BaseException as error:  # a cancelled or timed-out call is no response either
        _recorder(session).fail(slot, observed, error)
        raise
    return _kept(module, session, watching, request, (observed, slot), response, body, True)


def _begin(session: Intercepted, observed: ObservedRequest, request: Any, refused: Any) -> int:
    try:
        return session.begin(observed)
    except ReplayError as error:
        raise refused(str(error), request=request) from None


def _recorder(session: Intercepted) -> Recorder:
    assert session.recorder is not None
    return session.recorder


def _kept(
    module: ModuleType,
    session: Intercepted,
    watching: Watching | None,
    request: Any,
    place: tuple[ObservedRequest, int],
    response: Any,
    body: bytes,
    asynchronous: bool,
) -> Any:
    observed, slot = place
    headers = response.headers.multi_items()
    _recorder(session).complete(slot, observed, response.status_code, headers, body)
    if watching is not None and _readable(request, response):
        watching.note(body)
    # Handed on as a stream of the bytes read, so a client that streams (aiter_raw) can.
    chunks = (body,)
    stream = _async_chunks(chunks) if asynchronous else iter(chunks)
    return _rebuilt(module, request, response, stream)


def _observe(request: Any) -> ObservedRequest:
    return ObservedRequest.build(
        request.method, str(request.url), request.headers.multi_items(), b""
    )


def _readable(request: Any, response: Any) -> bool:
    return is_completion(request.url.path, response.headers.get("content-type"))


def _read(module: ModuleType, watching: Watching, request: Any, response: Any, body: bytes) -> Any:
    """The response, read for its model and handed on as the same decoded content."""
    watching.note(body)
    return _rebuilt(module, request, response, body)


def _rebuilt(module: ModuleType, request: Any, response: Any, body: Any) -> Any:
    """A response already read, handed on as the same decoded content (bytes or a stream)."""
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
    """A replayed response, noted by the watch when it is a (non-streamed) completion."""
    if watching is not None and _readable(request, response):
        watching.note(response.content)
    return response


def _serve(
    module: ModuleType,
    session: Intercepted,
    observed: ObservedRequest,
    request: Any,
    refused: Any,
    *,
    asynchronous: bool,
) -> Any:
    try:
        canned = session.respond(observed)
    except ReplayError as error:
        raise refused(str(error), request=request) from None
    return module.Response(
        status_code=canned.status,
        headers=list(canned.headers),
        content=_content(canned, asynchronous),
        request=request,
    )


def _content(canned: CannedResponse, asynchronous: bool) -> Any:
    """The body, or for a streamed response its events one chunk at a time."""
    if not canned.chunks:
        return canned.body
    return _async_chunks(canned.chunks) if asynchronous else iter(canned.chunks)


async def _async_chunks(chunks: tuple[bytes, ...]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _error_type(module: ModuleType) -> Any:
    # Both a ReplayError and the client's own connection error, so agents that handle
    # network failures the usual way handle this one too.
    return type("ReplayConnectError", (ReplayError, module.ConnectError), {"__module__": __name__})
