"""``assay-agents dashboard`` serves with uvicorn, says where, and warns when it binds elsewhere."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from .conftest import History

pytestmark = pytest.mark.process


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], str, int]]:
    port = _free_port()
    command = [sys.executable, "-c", "from assay_agents.cli.app import main; main()", "dashboard"]
    server = subprocess.Popen(
        [*command, "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/static/dashboard.css", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield server, f"http://127.0.0.1:{port}", port
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_it_binds_the_loopback_by_default_and_prints_a_login_link_for_a_token(
    sqlite_history: History,
) -> None:
    with _serving("--db", sqlite_history.url, "--token", "tok-123") as (server, address, port):
        assert httpx.get(f"{address}/").status_code == 401
        bearer = {"Authorization": "Bearer tok-123"}
        assert httpx.get(f"{address}/", headers=bearer).status_code == 200
    out, err = server.communicate()
    assert f"Serving at http://127.0.0.1:{port}/" in out
    assert "Bound to 127.0.0.1: only this machine can open it." in out
    assert "/login?code=" in out and "tok-123" not in out + err
    assert "warning" not in err


def test_binding_elsewhere_without_a_token_warns(sqlite_history: History) -> None:
    with _serving("--db", sqlite_history.url, "--host", "0.0.0.0") as (server, address, _):
        assert httpx.get(f"{address}/").status_code == 200
    _, err = server.communicate()
    assert "warning: bound to 0.0.0.0 without --token" in err


def test_a_database_that_is_not_there_exits_2(tmp_path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from assay_agents.cli.app import main; main()",
            "dashboard",
            "--db",
            "postgresql+psycopg://user:secret-pw@127.0.0.1:1/none",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and "secret-pw" not in done.stdout + done.stderr
