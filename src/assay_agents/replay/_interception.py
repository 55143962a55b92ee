"""Transport-level interception, scoped per sample by context variables.

The HTTP clients' transports are patched once, while at least one replay scope is open, by
functions that look up the current context's replay session. Outside any scope (other
samples without fixtures, the harness, unrelated application code) the original transport
runs untouched; so many replayed samples can run concurrently, each seeing only its own
declarations. When the last scope closes, every patched method is put back, failures
included. Libraries that are not installed are not patched (nothing could use them). A
:class:`~assay_agents.replay.watch.ModelWatch` uses the same patches to read which model answered.

Context variables follow asyncio tasks and ``contextvars.copy_context().run`` (which the
runner uses for sync agents and which ``asyncio.to_thread`` uses); a thread the agent starts
itself with plain ``threading`` does not inherit them, so its requests are not replayed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay_agents.replay._intercepted import Intercepted, Watching

_CURRENT: ContextVar[Intercepted | None] = ContextVar("assay_replay_session", default=None)
_WATCH: ContextVar[Watching | None] = ContextVar("assay_model_watch", default=None)
_lock = threading.Lock()
_open_scopes = 0
_restorers: list[Callable[[], None]] = []


def current() -> Intercepted | None:
    """The replay session of the running sample, or ``None`` outside any replay scope."""
    return _CURRENT.get()


def watch() -> Watching | None:
    """The model watch of the running sample, or ``None`` outside any."""
    return _WATCH.get()


@contextmanager
def watching(model_watch: Watching) -> Iterator[None]:
    """Make ``model_watch`` read this context's completions, with the transports patched."""
    _acquire()
    token = _WATCH.set(model_watch)
    try:
        yield
    finally:
        _WATCH.reset(token)
        _release()


def installed() -> bool:
    """Whether the transports are patched right now (some replay scope is open)."""
    with _lock:
        return bool(_restorers)


@contextmanager
def scoped(session: Intercepted) -> Iterator[None]:
    """Make ``session`` current in this context, with the transports patched meanwhile."""
    _acquire()
    token = _CURRENT.set(session)
    try:
        yield
    finally:
        _CURRENT.reset(token)
        session.close()
        _release()


@contextmanager
def held() -> Iterator[None]:
    """Keep the transports patched while this block runs, even after its scope closed.

    A sync agent's worker thread can outlive its sample (a timeout): while it runs, its
    requests must still be refused, never sent to the network by restored transports.
    """
    _acquire()
    try:
        yield
    finally:
        _release()


def _acquire() -> None:
    global _open_scopes
    with _lock:
        if _open_scopes == 0:
            _install()
        _open_scopes += 1


def _release() -> None:
    global _open_scopes
    with _lock:
        _open_scopes -= 1
        if _open_scopes == 0:
            _uninstall()


def _install() -> None:
    # Imported here so that `import assay_agents` never loads an HTTP client.
    from assay_agents.replay import _httpx_adapter, _litellm_adapter, _requests_adapter

    try:
        for module_name in ("httpx", "httpx2"):
            restore = _httpx_adapter.install(module_name, current, watch)
            if restore is not None:
                _restorers.append(restore)
        for restore in (
            _requests_adapter.install(current, watch),
            _litellm_adapter.install(current, watch),
        ):
            if restore is not None:
                _restorers.append(restore)
    except BaseException:
        _uninstall()
        raise


def _uninstall() -> None:
    while _restorers:
        _restorers.pop()()
