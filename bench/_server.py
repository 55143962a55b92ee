"""A local OpenAI-compatible chat server that answers after a fixed delay (benchmarks only)."""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
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
        return JSONResponse(
            {
                "id": "chatcmpl-bench",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "bench"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "ok"},
                    }
                ],
                "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(port: int, delay: float) -> None:
    # Keep-alive past uvicorn's 5 s: on a busy machine a pooled connection can sit idle that
    # long, and one closed just as the client reuses it fails the request (a ReadError).
    uvicorn.run(
        _app(delay),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        backlog=2048,
        timeout_keep_alive=120,
    )


@contextmanager
def serve(delay: float) -> Iterator[str]:
    """Run the server in its own process (so it does not share the harness's GIL).

    Yields its base URL once it accepts connections.
    """
    port = _free_port()
    process = multiprocessing.get_context("spawn").Process(
        target=_run, args=(port, delay), daemon=True
    )
    process.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.join(timeout=5)
