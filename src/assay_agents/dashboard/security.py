"""What keeps the dashboard read-only and private: methods, headers and the access token.

Every response carries a strict Content Security Policy (the page's own assets only; a page
with inline parts sends its own policy, allowing them by hash), ``X-Content-Type-Options``,
``Referrer-Policy`` and frame denial. Any method but GET and HEAD is refused with 405.

With a token, each request needs ``Authorization: Bearer TOKEN`` or the session cookie a
one-time login link sets (HttpOnly, SameSite=Strict); every comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The policy of every page that sends none of its own.
POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)
ALLOWED = ("GET", "HEAD")
COOKIE = "assay_dashboard"
#: The path of the one-time login link, under the mount path.
LOGIN_PATH = "/login"


@final
class Access:
    """The token a dashboard requires, if any, and the one-time login codes issued for it."""

    def __init__(self, token: str | None) -> None:
        self.token = token or None
        self._codes: set[str] = set()
        self._lock = threading.Lock()

    @property
    def required(self) -> bool:
        """Whether requests must show the token (a header or the session cookie)."""
        return self.token is not None

    def login_code(self) -> str:
        """A new code for one login link: it sets the session cookie once, then is spent."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes.add(code)
        return code

    def spend(self, code: str) -> bool:
        """Whether ``code`` is an unspent login code; spends it."""
        with self._lock:
            found = next((c for c in self._codes if hmac.compare_digest(c, code)), None)
            if found is None:
                return False
            self._codes.discard(found)
            return True

    def session(self) -> str:
        """The session cookie's value: derived from the token, never the token itself."""
        assert self.token is not None
        return hmac.new(self.token.encode(), b"assay-dashboard-session", hashlib.sha256).hexdigest()

    def admits(self, headers: dict[str, str]) -> bool:
        """Whether a request with ``headers`` shows the token or a session cookie.

        ``headers`` are as the Guard reads them: their bytes decoded as Latin-1, one
        character a byte. They are compared as those bytes, against the token's UTF-8
        bytes, so a token beyond ASCII sent as UTF-8 is admitted.
        """
        if self.token is None:
            return True
        bearer = headers.get("authorization", "")
        if bearer[:7].lower() == "bearer " and hmac.compare_digest(
            _raw(bearer[7:].strip()), self.token.encode("utf-8")
        ):
            return True
        cookie = _cookie(headers.get("cookie", ""), COOKIE)
        return cookie is not None and hmac.compare_digest(
            _raw(cookie), self.session().encode("ascii")
        )


def _raw(header: str) -> bytes:
    """The bytes of a header value the Guard decoded as Latin-1."""
    try:
        return header.encode("latin-1")
    except UnicodeEncodeError:  # not from the Guard: compared as UTF-8
        return header.encode("utf-8", "surrogatepass")


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


@final
class Guard:
    """ASGI middleware: refuse other methods, require the token, add the security headers."""

    def __init__(
        self,
        app: ASGIApp,
        access: Access,
        refuse: Callable[[Scope, int], Awaitable[tuple[bytes, list[tuple[bytes, bytes]]]]],
    ) -> None:
        self.app = app
        self.access = access
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request, guarded."""
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # no websockets: nothing here is live

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _secured(list(message.get("headers", [])))
            await send(message)

        if scope["method"] not in ALLOWED:
            await self._refuse(scope, secured, 405, [(b"allow", b"GET, HEAD")])
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not self.access.admits(headers) and not _is_login(scope):
            await self._refuse(scope, secured, 401, [(b"www-authenticate", b"Bearer")])
            return
        await self.app(scope, receive, secured)

    async def _refuse(
        self, scope: Scope, send: Send, status: int, extra: list[tuple[bytes, bytes]]
    ) -> None:
        body, headers = await self.refuse(scope, status)
        await send({"type": "http.response.start", "status": status, "headers": headers + extra})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )


def _is_login(scope: Scope) -> bool:
    root = scope.get("root_path", "") or ""
    path: str = scope.get("path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path == LOGIN_PATH


def _secured(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    names = {name.lower() for name, _ in headers}
    if b"content-security-policy" not in names:
        headers.append((b"content-security-policy", POLICY.encode()))
    headers.extend(pair for pair in HEADERS if pair[0] not in names)
    return headers
