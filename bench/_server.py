"""A local OpenAI-compatible chat server that answers after a fixed delay (benchmarks only)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def _app(delay: float) -> Starlette:
    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        await asyncio.sleep(delay)
        return JSONResponse({
            "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "bench"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
        })

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(delay: float) -> Iterator[str]:
    """Run the server in a background thread; yield its base URL."""
    port = _free_port()
    config = uvicorn.Config(_app(delay), host="127.0.0.1", port=port, log_level="warning",
                            backlog=2048, limit_concurrency=None)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=5)
