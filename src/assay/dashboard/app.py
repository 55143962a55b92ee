"""The dashboard's Starlette application: its routes, its store and its error pages.

Every page reads the history through the application layer (:mod:`assay.evaluation`); no
route writes. Unknown runs and cases are 404 pages, malformed query parameters 400 pages,
and anything else a 500 page without a traceback.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, final

from assay.dashboard import pages, params
from assay.dashboard.render import page
from assay.dashboard.security import Access, Guard, Scope
from assay.errors import AssayError, BaselineError, ConfigurationError, StoreError

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from assay.store import Store

_log = logging.getLogger("assay.dashboard")


@final
class Dashboard:
    """What every route of one dashboard shares: its store and its access rules."""

    def __init__(self, store: Store, access: Access, *, owns_store: bool) -> None:
        self.store = store
        self.access = access
        self._owns_store = owns_store

    def close(self) -> None:
        """Release the store's connections, when the dashboard opened it."""
        if self._owns_store:
            self.store.close()


def create_app(
    db: str | Store | None = None, *, token: str | None = None, debug: bool = False
) -> Starlette:
    """A read-only Starlette application over the history in ``db``.

    ``db`` is a database URL, an open :class:`~assay.Store`, or ``None`` for the history
    every command finds (``ASSAY_DATABASE_URL``, the project's configuration, the nearest
    ``.assay/`` upwards). With ``token`` (default: ``ASSAY_DASHBOARD_TOKEN``) each request
    must show it as a bearer token or carry the cookie a one-time login link
    (:func:`login_path`) sets. Mount it under any prefix: links, assets and downloads
    follow the mount path.
    """
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from assay.store import Store

    if db is None or isinstance(db, str):
        url = db or os.environ.get("ASSAY_DATABASE_URL") or None
        store, owns = Store.open(url, create=False), True
    else:
        store, owns = db, False
    chosen = token if token is not None else os.environ.get("ASSAY_DASHBOARD_TOKEN")
    dashboard = Dashboard(store, Access(chosen), owns_store=owns)

    def route(path: str, handler: Callable[..., Response], name: str) -> Route:
        def endpoint(request: Request) -> Response:
            try:
                return handler(request, dashboard)
            except Exception as error:  # every failure is a page, inside the guard's headers
                return failure(request, error)

        return Route(path, endpoint, methods=["GET"], name=name)

    routes = [
        route("/", pages.runs, "runs"),
        route("/login", pages.login, "login"),
        route("/trends", pages.trends, "trends"),
        route("/compare", pages.compare, "compare"),
        route("/runs/{run}", pages.run, "run"),
        route("/runs/{run}/case", pages.case, "case"),
        route("/runs/{run}/case.json", pages.case_json, "case_json"),
        route("/runs/{run}/run.json", pages.report_json, "run_json"),
        route("/runs/{run}/report.json", pages.report_json, "report_json"),
        route("/runs/{run}/report", pages.report_html, "report"),
        route("/runs/{run}/report.html", pages.report_html, "report_html"),
        route("/runs/{run}/report.md", pages.report_markdown, "report_md"),
        route("/runs/{run}/report.xml", pages.report_junit, "report_junit"),
        # The dashboard's stylesheet, and the HTML report's own style and script beside it.
        Mount(
            "/static",
            StaticFiles(packages=[("assay.dashboard", "static"), ("assay.report", "templates")]),
            name="static",
        ),
    ]

    async def refuse(scope: Scope, status: int) -> tuple[bytes, list[tuple[bytes, bytes]]]:
        from starlette.requests import Request

        body = _error_page(Request(scope), status, _REFUSED[status]).encode()
        return body, [(b"content-type", b"text/html; charset=utf-8")]

    app = Starlette(
        debug=debug,
        routes=routes,
        middleware=[Middleware(Guard, access=dashboard.access, refuse=refuse)],
        exception_handlers={Exception: _failure, 404: _not_found, 405: _not_allowed},
        lifespan=_closing(dashboard),
    )
    app.state.dashboard = dashboard
    return app


def _closing(dashboard: Dashboard) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """Close the dashboard's store when the server stops (a host's mount leaves it open)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            dashboard.close()

    return lifespan


def login_path(app: Starlette) -> str | None:
    """The path of a new one-time login link (under the mount path); ``None`` without a token."""
    dashboard: Dashboard = app.state.dashboard
    if not dashboard.access.required:
        return None
    return f"/login?code={dashboard.access.login_code()}"


_REFUSED = {
    401: "This dashboard needs its access token: open the login link it printed, or send "
    "Authorization: Bearer TOKEN.",
    405: "This dashboard is read-only: it answers GET and HEAD only.",
}


def _error_page(request: Request, status: int, message: str) -> str:
    titles = {400: "Bad request", 401: "Token required", 404: "Not found", 405: "Read-only"}
    return page(
        request,
        "error.html.j2",
        title=titles.get(status, "Something went wrong"),
        status=status,
        message=message,
    )


def error_response(request: Request, status: int, message: str) -> Response:
    """An HTML error page with ``status``."""
    from starlette.responses import HTMLResponse

    return HTMLResponse(_error_page(request, status, message), status_code=status)


async def _not_found(request: Request, error: Exception) -> Response:
    return error_response(request, 404, "No page here.")


async def _not_allowed(request: Request, error: Exception) -> Response:
    return error_response(request, 405, _REFUSED[405])


async def _failure(request: Request, error: Exception) -> Response:
    return failure(request, error)


def failure(request: Request, error: Exception) -> Response:
    """The error page for ``error``: 400, 404, 503, or 500 without a traceback."""
    if isinstance(error, params.BadParameter):
        return error_response(request, 400, str(error))
    if isinstance(error, LookupError):
        return error_response(request, 404, str(error.args[0]) if error.args else "Not found.")
    if isinstance(error, StoreError) and str(error).startswith(("no run", "run prefix")):
        return error_response(request, 404, str(error))
    if isinstance(error, BaselineError | ConfigurationError):
        return error_response(request, 400, str(error))
    if isinstance(error, AssayError):
        _log.warning("dashboard: %s", error)
        return error_response(request, 503, str(error))
    # Never a traceback on the page: the log names the failure's kind and where it came from.
    _log.error("dashboard: %s on %s", type(error).__name__, request.url.path)
    return error_response(request, 500, "The dashboard could not show this page.")
