"""A judge on the official ``openai`` client: any OpenAI-compatible endpoint."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay_agents.judging.judge import JudgeReply
from assay_agents.judging.metering import JudgeCall, Meter, call_kind
from assay_agents.judging.retry import DEFAULT_JUDGE_TIMEOUT, RetryPolicy, with_retries
from assay_agents.results.pricing import estimate_cost

if TYPE_CHECKING:
    from openai import AsyncOpenAI


@dataclass(kw_only=True)
class OpenAIJudge:
    """Chat completions at ``temperature`` (0 by default), one fresh conversation per call.

    Transient failures (429, 5xx, timeouts, dropped connections) are retried with bounded
    exponential backoff that honours Retry-After; the client's own retries are off so the
    waits are ours to show and every attempt is counted. ``timeout`` bounds one HTTP request;
    ``judge_timeout`` bounds the whole call, its retries and waits included.
    """

    model: str
    label: str
    provider: str = "openai"
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    timeout: float = 60.0
    judge_timeout: float | None = DEFAULT_JUDGE_TIMEOUT
    json_mode: bool = True
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Told of each answered call (``on_usage``); see :mod:`assay_agents.judging.metering`.
    meter: Meter | None = None
    _verify: Any = field(default=None, init=False, repr=False, compare=False)

    def endpoint(self) -> str | None:
        """The host the judge calls (part of its identity), None for the OpenAI API itself.

        The endpoint is ``base_url``, else ``OPENAI_BASE_URL`` as the client reads it: one
        endpoint is one identity however it was given.
        """
        import os

        host = endpoint_host(self.base_url or os.environ.get("OPENAI_BASE_URL"))
        return None if host == _DEFAULT_HOST else host

    def endpoint_url(self) -> str | None:
        """Where the judge's calls go, whole and without credentials (see :mod:`assay_agents.keys`).

        Not its identity (that names the host alone) but part of each cache key: two
        endpoints on one host may answer differently.
        """
        import os

        from assay_agents.keys import endpoint_url

        url = self.base_url or os.environ.get("OPENAI_BASE_URL") or _DEFAULT_URL
        return endpoint_url(url)

    def prepare(self) -> None:
        """Import the client ahead of time, off the event loop (the run calls this first).

        A judge of the OpenAI API itself without a key is refused here, before any sample
        runs, naming the variable (rather than every vote retrying into "Connection error").
        """
        import openai  # noqa: F401

        from assay_agents.keys import require_openai_key

        require_openai_key(f"judge {self.label}", self.base_url, self.api_key)
        self._tls()

    def __getstate__(self) -> dict[str, Any]:
        # A TLS context cannot be pickled (a judge sent to another process, as Ray sends
        # it): the copy builds its own at its first call.
        return {**self.__dict__, "_verify": None}

    def _tls(self) -> Any:
        """The TLS context every call's client shares, built once (at :meth:`prepare`).

        Loading the certificate store is what makes a new client slow (tens of
        milliseconds): built per call, it was paid on every vote.
        """
        if self._verify is None:
            import httpx

            self._verify = httpx.create_ssl_context()
        return self._verify

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        """Ask once (with retries on transient failures)."""
        # A client per call: it belongs to the running event loop and is closed with the
        # call, so a judge can serve several runs (and loops) without leaking connections;
        # what is costly to build (the TLS context) is shared by all of them.
        async with self._connect() as client:
            return await self._ask(client, instructions, prompt)

    async def _ask(self, client: AsyncOpenAI, instructions: str, prompt: str) -> JudgeReply:
        async def call() -> Any:
            options: dict[str, Any] = dict(self.extra)
            if self.json_mode:
                options["response_format"] = {"type": "json_object"}
            return await client.chat.completions.create(
                model=self.model,
                temperature=self.temperature,
                messages=[
                    {"role": "system", "content": instructions},
                    {"role": "user", "content": prompt},
                ],
                **options,
            )

        started = time.perf_counter()
        response = await with_retries(
            call,
            transient_headers,
            self.retry,
            self.label,
            deadline=self.judge_timeout,
            key=(self.provider, self.model),
        )
        answered = _reply(response, self.provider, self.model)
        if self.meter is not None:
            self.meter.deliver(metered(answered, self.model, self.label, started))
        return answered

    def _connect(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        return AsyncOpenAI(
            base_url=self.base_url,
            api_key=self.api_key or _key(),
            timeout=self.timeout,
            max_retries=0,
            http_client=DefaultAsyncHttpxClient(verify=self._tls(), timeout=self.timeout),
        )


#: Parameters of a completion that the judge sets itself: given again, every call would fail.
OWN_PARAMETERS = frozenset({"model", "messages", "temperature", "stream", "self"})


def completion_options() -> frozenset[str]:
    """The keyword arguments ``chat.completions.create`` takes that a judge passes through."""
    import inspect

    from openai.resources.chat.completions import AsyncCompletions

    names = inspect.signature(AsyncCompletions.create).parameters
    return frozenset(names) - OWN_PARAMETERS


#: The host of the client's default endpoint, which an identity does not name.
_DEFAULT_HOST = "api.openai.com"
#: The client's default endpoint.
_DEFAULT_URL = "https://api.openai.com/v1"


def endpoint_host(url: str | None) -> str | None:
    """The host of an endpoint URL (``api.openai.com``), None without one."""
    if not url:
        return None
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).hostname or None
    except ValueError:
        return None


def _key() -> str:
    import os

    return os.environ.get("OPENAI_API_KEY") or "not-set"


def transient_headers(error: BaseException) -> Mapping[str, str] | None:
    """The response headers of a retryable ``openai`` error, or None when it is final."""
    import openai

    if isinstance(error, openai.APITimeoutError | openai.APIConnectionError):
        return {}
    if isinstance(error, openai.APIStatusError) and (
        error.status_code == 429 or error.status_code >= 500
    ):
        return dict(error.response.headers)
    return None


def _reply(response: Any, provider: str, model: str) -> JudgeReply:
    choices = getattr(response, "choices", None) or []
    content = choices[0].message.content if choices else None
    if not isinstance(content, str):
        raise ValueError("the judge's response has no message content")
    usage = getattr(response, "usage", None)
    input_tokens = getattr(usage, "prompt_tokens", None)
    output_tokens = getattr(usage, "completion_tokens", None)
    estimate = estimate_cost(provider, model, input_tokens, output_tokens)
    return JudgeReply(
        content,
        input_tokens,
        output_tokens,
        None if estimate is None else estimate.cost_usd,
        cost_estimated=estimate is not None,
    )


def metered(reply: JudgeReply, model: str, label: str, started: float) -> JudgeCall:
    """The record of one answered call, begun at ``started`` (``time.perf_counter``)."""
    return JudgeCall(
        kind=call_kind(),
        model=model,
        judge=label,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        cost_usd=reply.cost_usd,
        cost_estimated=reply.cost_estimated,
        latency_ms=(time.perf_counter() - started) * 1000,
    )
