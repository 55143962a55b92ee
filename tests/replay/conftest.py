"""A real HTTP server on 127.0.0.1 that counts what actually reached it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assay_agents.replay import _interception


class LiveServer:
    """Answers every request with JSON naming the path; remembers each request it got."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with server._lock:
                    server.hits.append((self.command, self.path))
                body = json.dumps({"live": True, "path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def count(self, path_prefix: str = "/") -> int:
        with self._lock:
            return sum(1 for _, path in self.hits if path.startswith(path_prefix))


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    server = LiveServer()
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture(autouse=True)
def interception_is_restored() -> Iterator[None]:
    """Every replay test must leave the HTTP clients exactly as it found them."""
    import httpx
    import requests

    before = (
        httpx.HTTPTransport.handle_request,
        httpx.AsyncHTTPTransport.handle_async_request,
        requests.adapters.HTTPAdapter.send,
    )
    yield
    after = (
        httpx.HTTPTransport.handle_request,
        httpx.AsyncHTTPTransport.handle_async_request,
        requests.adapters.HTTPAdapter.send,
    )
    assert after == before
    assert not _interception.installed()
