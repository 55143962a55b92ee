"""``assay-agents dashboard``: serve the read-only dashboard over the history with uvicorn."""

from __future__ import annotations

import ipaddress
import sys
from typing import Annotated

import typer

from assay_agents.cli._common import DbOption, database_url, fail, user_errors

#: The extra that brings the dashboard's server packages.
EXTRA = "pip install 'assay-agents[dashboard]'"


def dashboard_command(
    host: Annotated[
        str, typer.Option(help="Address to bind; 127.0.0.1 keeps it on this machine.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 4567,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ASSAY_DASHBOARD_TOKEN",
            show_envvar=True,
            help="Require this token: a bearer header, or the one-time login link printed.",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Serve a read-only dashboard of the history: runs, trends, cases, comparisons.

    It binds 127.0.0.1 unless --host says otherwise, answers GET and HEAD only, and prints
    the address to open. Ctrl-C stops it.
    """
    try:
        import uvicorn

        from assay_agents.dashboard.app import create_app, login_path
    except ImportError as error:
        fail(f"the dashboard needs {error.name or 'its server packages'}: {EXTRA}")
    with user_errors():
        app = create_app(database_url(db), token=token or None)
    store = app.state.dashboard.store
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}"
    print(f"Assay dashboard of {store.display_url}")
    print(f"Serving at {address}/ (read-only). Ctrl-C stops it.")
    if _loopback(host):
        print(f"Bound to {host}: only this machine can open it.")
    elif not token:
        print(
            f"warning: bound to {host} without --token: anyone who can reach this address "
            "can read every answer in the history. Set --token or ASSAY_DASHBOARD_TOKEN.",
            file=sys.stderr,
        )
    path = login_path(app)
    if path is not None:
        print(f"Open once to sign in (sets a cookie): {address}{path}")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
