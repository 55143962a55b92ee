"""The dashboard's error pages: 400, 401, 404, 405, 503 and 500, never a traceback."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from assay_agents.dashboard import params
from assay_agents.dashboard.render import page
from assay_agents.errors import AssayError, BaselineError, ConfigurationError, StoreError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

_log = logging.getLogger("assay_agents.dashboard")

#: Why the guard refused a request, by status.
REFUSED = {
    401: "This dashboard needs its access token: open the login link it printed, or send "
    "Authorization: Bearer TOKEN.",
    405: "This dashboard is read-only: it answers GET and HEAD only.",
}


def error_page(request: Request, status: int, message: str) -> str:
    """The HTML of an error page."""
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

    return HTMLResponse(error_page(request, status, message), status_code=status)


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
