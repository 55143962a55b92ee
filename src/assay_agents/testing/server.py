"""A scripted OpenAI-compatible chat server on a real local socket, for tests and demos.

It proves transport and orchestration (the real ``openai`` client, tool-calling loops, retries,
judges), not model reasoning: every reply is written by the script. A completion names the model
the request asked for, as a provider does, unless the script says which model answered.

>>> with ScriptedServer([reply("Hello")]) as server:            # doctest: +SKIP
...     client = openai.OpenAI(base_url=server.base_url, api_key="test")
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 refuses connections when a run asks 50 questions at once.
    request_queue_size = 256
    daemon_threads = True


@dataclass(frozen=True)
class Response:
    """One scripted HTTP response: status, headers, body bytes, and an optional delay."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    #: Whether the body's ``model`` is replaced by the model the request asked for.
    echo_model: bool = False


Script = Callable[[dict[str, Any]], Response]


def completion(
    message: dict[str, Any],
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    model: str | None = None,
    finish_reason: str = "stop",
) -> Response:
    """A chat completion whose choice holds ``message``.

    It names ``model`` as the model that answered; by default, the one the request asked for.
    """
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model or "scripted",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
        "usage": {
            "prompt_tokens": input_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        },
    }
    return Response(
        200,
        json.dumps(body).encode(),
        {"content-type": "application/json"},
        echo_model=model is None,
    )


def reply(content: str, **usage: Any) -> Response:
    """The assistant answers with ``content``."""
    return completion({"role": "assistant", "content": content}, **usage)


def tool_calls(*calls: tuple[str, Mapping[str, Any]], **usage: Any) -> Response:
    """The assistant calls tools: ``("name", {arguments})`` in order."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(dict(arguments))},
            }
            for index, (name, arguments) in enumerate(calls)
        ],
    }
    return completion(message, finish_reason="tool_calls", **usage)


def verdict(score: float, reason: str) -> Response:
    """A judge's verdict, as strict JSON content."""
    return reply(json.dumps({"score": score, "reason": reason}))


def failure(
    status: int,
    *,
    retry_after: float | None = None,
    message: str = "scripted error",
    delay: float = 0.0,
) -> Response:
    """An HTTP error, optionally with Retry-After (seconds)."""
    headers = {"content-type": "application/json"}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    body = json.dumps({"error": {"message": message, "type": "scripted", "code": status}})
    return Response(status, body.encode(), headers, delay)


def malformed(body: bytes = b"{not json") -> Response:
    """A 200 response whose body is not a completion."""
    return Response(200, body, {"content-type": "application/json"})


def slow(response: Response, seconds: float) -> Response:
    """The same response after ``seconds`` (to provoke client timeouts)."""
    return dataclasses.replace(response, delay=seconds)


def responses_output(
    *items: dict[str, Any],
    input_tokens: int = 10,
    output_tokens: int = 5,
    model: str | None = None,
) -> Response:
    """A Responses API response (``POST .../responses``) whose output holds ``items``.

    It names ``model`` as the model that answered; by default, the one the request asked for.
    """
    body = {
        "id": "resp_scripted",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": model or "scripted",
        "output": list(items),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }
    return Response(
        200,
        json.dumps(body).encode(),
        {"content-type": "application/json"},
        echo_model=model is None,
    )


def responses_reply(content: str, **usage: Any) -> Response:
    """The assistant answers with ``content``, in the Responses API's shape."""
    message = {
        "type": "message",
        "id": "msg_scripted",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": content, "annotations": []}],
    }
    return responses_output(message, **usage)


def responses_tool_calls(*calls: tuple[str, Mapping[str, Any]], **usage: Any) -> Response:
    """The assistant calls functions, in the Responses API's shape: ``("name", {arguments})``."""
    items = [
        {
            "type": "function_call",
            "id": f"fc_{index}",
            "call_id": f"call_{index}",
            "name": name,
            "arguments": json.dumps(dict(arguments)),
            "status": "completed",
        }
        for index, (name, arguments) in enumerate(calls)
    ]
    return responses_output(*items, **usage)


_EVENT_STREAM = "text/event-stream"
_STREAMED_MODEL = "scripted-stream"


def streamed(
    content: str | None = None,
    *calls: tuple[str, Mapping[str, Any]],
    input_tokens: int = 10,
    output_tokens: int = 5,
    model: str | None = None,
    usage: bool = True,
) -> Response:
    """A streamed chat completion (``stream=True``): server-sent chunks, then ``[DONE]``.

    The text arrives word by word, then each tool call ``("name", {arguments})`` in one
    chunk; the last chunk carries the usage, as a provider sends it to a request with
    ``stream_options={"include_usage": true}`` (``usage=False`` leaves it out, as a provider
    does when it was not asked for).
    """
    chunks: list[dict[str, Any]] = [
        {"role": "assistant", "content": word} for word in _words(content)
    ]
    chunks += [
        {
            "tool_calls": [
                {
                    "index": index,
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(dict(arguments))},
                }
            ]
        }
        for index, (name, arguments) in enumerate(calls)
    ]
    finish = "tool_calls" if calls else "stop"
    events = [_chunk({"index": 0, "delta": delta, "finish_reason": None}) for delta in chunks]
    events.append(_chunk({"index": 0, "delta": {}, "finish_reason": finish}))
    if usage:
        events.append(_chunk(None, _usage(input_tokens, output_tokens)))
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    body = body.replace(_STREAMED_MODEL, model) if model else body
    return Response(200, body.encode(), {"content-type": _EVENT_STREAM}, echo_model=model is None)


def _words(content: str | None) -> list[str]:
    if not content:
        return []
    words = content.split(" ")
    return [word if i == len(words) - 1 else word + " " for i, word in enumerate(words)]


def _chunk(choice: dict[str, Any] | None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": _STREAMED_MODEL,
        "choices": [] if choice is None else [choice],
        "usage": usage,
    }


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def _stream_answered_by(response: Response, asked: str) -> Response:
    """A streamed ``response`` whose chunks name ``asked`` as the model that answered."""
    named = json.dumps(asked)[1:-1]  # the name as it sits inside a JSON string
    return dataclasses.replace(
        response, body=response.body.replace(_STREAMED_MODEL.encode(), named.encode())
    )


def event_stream(data: Iterable[str]) -> Response:
    """A ``text/event-stream`` response of these ``data:`` payloads, one event each."""
    body = "".join(f"data: {item}\n\n" for item in data).encode()
    return Response(200, body, {"content-type": _EVENT_STREAM})


@dataclass(frozen=True)
class Throttle:
    """Refuse requests as a rate-limited provider does: ``status`` (429) with Retry-After.

    The first ``first`` requests are refused, and so is any request that arrives while
    ``above`` others are being answered. A refused request neither consumes the script nor
    joins ``requests``; the server counts it in ``throttled``. ``retry_after`` None sends no
    Retry-After header.
    """

    first: int = 0
    above: int | None = None
    retry_after: float | None = 0.0
    status: int = 429


def _answered_by(response: Response, asked: Any) -> Response:
    """``response`` naming the model the request asked for, when it echoes one."""
    if not response.echo_model or not isinstance(asked, str):
        return response
    if response.headers.get("content-type") == _EVENT_STREAM:
        return _stream_answered_by(response, asked)
    body = json.loads(response.body)
    body["model"] = asked
    return dataclasses.replace(response, body=json.dumps(body).encode())


def _usage_of(response: Response) -> dict[str, Any] | None:
    """The usage a successful JSON completion reports, in the server's log form."""
    if response.status != 200 or response.headers.get("content-type") != "application/json":
        return None
    try:
        body = json.loads(response.body)
    except ValueError:
        return None
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None
    return {
        "model": body.get("model"),
        "input_tokens": usage.get("prompt_tokens", usage.get("input_tokens")),
        "output_tokens": usage.get("completion_tokens", usage.get("output_tokens")),
    }


class ScriptedServer:
    """Serves ``POST .../chat/completions`` (and ``.../responses``) on 127.0.0.1 from a script.

    The script is a list of responses consumed in order (an exhausted list answers 500 and
    says so), or a function of the request body (which can answer per ``body["model"]``).
    ``requests`` keeps every body received; ``answered`` the usage of every completion
    answered (the model it names, ``input_tokens`` and ``output_tokens``), the server's own
    count to hold a client's metering against. With a :class:`Throttle` some requests are
    refused for their rate first (``throttled`` counts them; ``peak`` is the most requests
    ever answered at once).
    """

    def __init__(
        self, script: Iterable[Response] | Script, *, throttle: Throttle | None = None
    ) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answered: list[dict[str, Any]] = []
        self.throttle = throttle
        self.throttled = 0
        self.peak = 0
        self._arrived = 0
        self._answering = 0
        self._lock = threading.Lock()
        if callable(script):
            self._script: Script = script
        else:
            queue = list(script)
            self._script = lambda body: self._next(queue)
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (ends in ``/v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _next(self, queue: list[Response]) -> Response:
        with self._lock:
            if queue:
                return queue.pop(0)
        return failure(500, message="the script has no more responses")

    def _respond(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self.requests.append(body)
        response = _answered_by(self._script(body), body.get("model"))
        served = _usage_of(response)
        if served is not None:
            with self._lock:
                self.answered.append(served)
        return response

    def _admit(self) -> Response | None:
        """A refusal when the throttle says so; else the request counts as being answered."""
        throttle = self.throttle
        with self._lock:
            self._arrived += 1
            if throttle is not None and (
                self._arrived <= throttle.first
                or (throttle.above is not None and self._answering >= throttle.above)
            ):
                self.throttled += 1
                return failure(
                    throttle.status, retry_after=throttle.retry_after, message="rate limited"
                )
            self._answering += 1
            self.peak = max(self.peak, self._answering)
        return None

    def _done(self) -> None:
        with self._lock:
            self._answering -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                if not self.path.rstrip("/").endswith(("chat/completions", "/responses")):
                    self._send(failure(404, message=f"no route {self.path}"))
                    return
                refused = server._admit()
                if refused is not None:
                    self._send(refused)
                    return
                try:
                    self._send(server._respond(body))
                finally:
                    server._done()

            def _send(self, response: Response) -> None:
                if response.delay:
                    time.sleep(response.delay)
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(response.body)))
                self.end_headers()
                # The client may have given up (a timeout test); nothing to tell it then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(response.body)

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet: tests read the script's requests, not access logs."""

        return Handler
