"""The dashboard's Starlette application: its routes, its store and its error pages.

Every page reads the history through the application layer (:mod:`assay_agents.evaluation`); no
route writes. Unknown runs and cases are 404 pages, malformed query parameters 400 pages,
and anything else a 500 page without a traceback.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING

from assay_agents.dashboard import pages
from assay_agents.dashboard.context import Dashboard
from assay_agents.dashboard.problems import REFUSED, error_page, error_response, failure
from assay_agents.dashboard.security import Access, Guard, Scope

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from assay_agents.store import Store


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

    from assay_agents.store import Store

    if db is None or isinstance(db, str):
        url = db or os.environ.get("ASSAY_DATABASE_URL") or None
        # Read-only: an older history is refused with the command that upgrades it.
        store, owns = Store.open(url, create=False, upgrade=False), True
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
            StaticFiles(
                packages=[
                    ("assay_agents.dashboard", "static"),
                    ("assay_agents.report", "templates"),
                ]
            ),
            name="static",
        ),
    ]

    async def refuse(scope: Scope, status: int) -> tuple[bytes, list[tuple[bytes, bytes]]]:
        from starlette.requests import Request

        body = error_page(Request(scope), status, REFUSED[status]).encode()
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


async def _not_found(request: Request, error: Exception) -> Response:
    return error_response(request, 404, "No page here.")


async def _not_allowed(request: Request, error: Exception) -> Response:
    return error_response(request, 405, REFUSED[405])


async def _failure(request: Request, error: Exception) -> Response:
    return failure(request, error)
