"""Interception for ``requests``: ``HTTPAdapter.send``, the transport every session uses."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import replace
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from assay_agents.errors import ReplayError
from assay_agents.replay._intercepted import is_completion
from assay_agents.replay.matching import ObservedRequest

if TYPE_CHECKING:
    from assay_agents.replay._intercepted import Intercepted, Watching

Current = Callable[[], "Intercepted | None"]
Watch = Callable[[], "Watching | None"]


def install(current: Current, watch: Watch) -> Callable[[], None] | None:
    """Patch ``requests.adapters.HTTPAdapter.send``; return the function that restores it."""
    try:
        import requests.adapters
        import urllib3
    except ImportError:
        return None
    adapter_cls = requests.adapters.HTTPAdapter
    original = adapter_cls.__dict__["send"]
    refused = type(
        "ReplayConnectionError",
        (ReplayError, requests.exceptions.ConnectionError),
        {"__module__": __name__},
    )

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        return _watched(watch(), request, replayed(self, request, *args, **kwargs))

    def replayed(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        session = current()
        if session is None:
            return original(self, request, *args, **kwargs)
        observed = ObservedRequest.build(
            request.method or "GET", request.url or "", request.headers.items(), b""
        )
        if session.recorder is not None:
            observed = replace(observed, body=_body(request))
            return recorded(session, observed, request, self, args, kwargs)
        if session.passes_through(observed):
            return original(self, request, *args, **kwargs)
        try:
            canned = session.respond(replace(observed, body=_body(request)))
        except ReplayError as error:
            raise refused(str(error), request=request) from None
        raw = urllib3.HTTPResponse(
            body=io.BytesIO(canned.body),
            headers=dict(canned.headers),
            status=canned.status,
            reason=_reason(canned.status),
            preload_content=False,
            decode_content=False,
            request_method=request.method,
        )
        return self.build_response(request, raw)

    def recorded(
        session: Intercepted,
        observed: ObservedRequest,
        request: Any,
        adapter: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        recorder = session.recorder
        assert recorder is not None
        try:
            slot = session.begin(observed)
        except ReplayError as error:
            raise refused(str(error), request=request) from None
        try:
            response = original(adapter, request, *args, **kwargs)
            body = response.content  # read once; the caller reads the same bytes again
        except BaseException as error:  # an interrupted call is no response either
            recorder.fail(slot, observed, error)
            raise
        headers = list(response.headers.items())
        recorder.complete(slot, observed, response.status_code, headers, body)
        return response

    adapter_cls.send = send  # type: ignore[method-assign]

    def restore() -> None:
        # Put back only what is still ours: never clobber a patch someone applied later.
        if adapter_cls.__dict__.get("send") is send:
            adapter_cls.send = original  # type: ignore[method-assign]

    return restore


def _watched(watching: Watching | None, request: Any, response: Any) -> Any:
    """The response, its model noted first when it is a completion (its content is kept)."""
    if watching is not None and is_completion(
        urlsplit(request.url or "").path, response.headers.get("content-type")
    ):
        watching.note(response.content)
    return response


def _body(request: Any) -> bytes:
    body = request.body
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    # A streamed upload (a file or a generator): read it once and keep the bytes.
    data = body.read() if hasattr(body, "read") else b"".join(_chunks(body))
    request.body = data
    return data if isinstance(data, bytes) else str(data).encode("utf-8")


def _chunks(body: Iterable[Any]) -> Iterable[bytes]:
    for chunk in body:
        yield chunk if isinstance(chunk, bytes) else str(chunk).encode("utf-8")


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
