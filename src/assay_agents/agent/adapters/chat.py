"""A tool-calling chat agent over an OpenAI-style completion call.

The ``openai`` client or LiteLLM: a fresh conversation per sample, every tool call recorded
as an action, in order.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import inspect
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.agent.adapters.tools import call_tool, schema
from assay_agents.agent.answered import ANSWERED_MODEL_KEY, same_model
from assay_agents.agent.calls import (
    CACHED_CALLS_KEY,
    ModelCallCache,
    ModelReply,
    model_call_key,
    reply_of,
    served,
)
from assay_agents.agent.context import AgentContext
from assay_agents.agent.model import ModelSpec
from assay_agents.agent.outcome import Action, Outcome, Usage
from assay_agents.ratelimit import current_pacer, paced

Completion = Callable[..., Any]


@dataclass(kw_only=True)
class ChatAgent:
    """The loop: ask the model, run the tools it calls, hand back their results, repeat.

    The model is the sample's (``ctx.model``, from ``--model``), or ``default_model`` when the
    run names none. A fixed ``model`` is the only model it calls: a run whose models include
    another is refused before it starts. The model each response names is kept in the
    outcome's metadata (``answered_model``). Usage is summed over every turn. A group is
    recorded only when ``action_groups`` names one: never invented.
    """

    model: str | None = None
    default_model: str | None = None
    tools: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    action_groups: Mapping[str, str] = field(default_factory=dict)
    instructions: str | None = None
    max_turns: int = 10
    options: dict[str, Any] = field(default_factory=dict)
    #: Where model calls are answered from and kept (see :meth:`with_model_cache`).
    model_cache: ModelCallCache | None = field(default=None, repr=False)

    async def __call__(self, value: Any, ctx: AgentContext) -> Outcome:
        """Run one conversation for one sample, with a client of its own."""
        async with self.session():
            return await self._converse(value, ctx)

    def prepare(self) -> None:
        """Import what the conversations need, ahead of time and off the event loop.

        A run calls this in a worker thread before any sample's clock starts, so a slow
        first import is never charged to an agent's latency.
        """
        if self.tools:
            import pydantic  # noqa: F401  (tool schemas are built with it)

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse, before any request, a run whose models this agent would not call.

        An agent built with a fixed ``model`` would send every sample to it: a run asking for
        other models would report that one model under each of their labels.
        """
        if self.model is None:
            return
        others = [
            spec.label for spec in models if self.model not in (self.model_name(spec), spec.label)
        ]
        if others:
            from assay_agents.errors import ConfigurationError

            raise ConfigurationError(
                f"the chat agent is built with a fixed model {self.model!r}, but the run asks "
                f"for {', '.join(map(repr, others))} (--model): build it without model= (or "
                "with default_model=) so it calls the model each sample asks for, or drop "
                "--model"
            )

    def tool_descriptions(self) -> dict[str, str]:
        """Each tool's name and the description the model is given (its docstring).

        A run reads this, with :attr:`instructions`, as the agent's roster for diagnosis
        when the suite declares none.
        """
        return {name: inspect.getdoc(function) or name for name, function in self.tools.items()}

    def with_model_cache(self, cache: ModelCallCache) -> ChatAgent:
        """A copy of this agent whose model calls are answered from ``cache`` when seen before.

        A run asked to cache model calls (``--cache-model-calls``) runs this copy. Each call
        is keyed by the adapter, the whole endpoint (port and path too), the model, the
        messages, the tools, the options, the sample and the call's place in the sample's
        conversation; a reply served from the cache made no request and costs nothing (cost
        source ``cached``).
        """
        copied = copy.copy(self)
        copied.model_cache = cache
        return copied

    def cache_source(self, model: str) -> str:
        """What answers a call to ``model``, as the cache names it: the adapter and model."""
        return f"{type(self).__name__} {model}"

    def session(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Resources one conversation holds (a client); none by default."""
        return contextlib.nullcontext()

    async def _converse(self, value: Any, ctx: AgentContext) -> Outcome:
        model = self._model_for(ctx)
        messages = self._opening(value)
        specs = [schema(name, function) for name, function in self.tools.items()]
        actions: list[Action] = []
        usage = _Usage()
        answered = _Answered(model)
        for turn in range(1, self.max_turns + 1):
            reply = await self._ask(model, messages, specs or None, ctx.sample, turn - 1)
            usage.add(reply)
            answered.add(reply)
            if not reply.tool_calls:
                return Outcome(
                    answer=reply.content,
                    actions=tuple(actions),
                    usage=usage.total(),
                    metadata={"model": model, "turns": turn, **answered.metadata(), **usage.hits()},
                )
            messages.append(_assistant(reply))
            for call in reply.tool_calls:
                ran = await call_tool(
                    call.name, call.arguments, self.tools, self.action_groups.get(call.name)
                )
                actions.append(ran.action)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": ran.content})
        return Outcome(
            actions=tuple(actions),
            usage=usage.total(),
            error=f"no answer after {self.max_turns} turns (the model kept calling tools)",
            metadata={
                "model": model,
                "turns": self.max_turns,
                **answered.metadata(),
                **usage.hits(),
            },
        )

    async def _ask(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        sample: int,
        call: int,
    ) -> ModelReply:
        """One completion, from the model cache when it holds the call."""
        cache = self.model_cache
        if cache is None:
            return reply_of(await self._paced_create(model, messages, tools))
        source = self.cache_source(model)
        key = model_call_key(
            source=source,
            parameters=_keyed(self.options),
            messages=messages,
            tools=tools,
            sample=sample,
            call=call,
        )
        found = await cache.get(key, source=source)
        if found is not None:
            return served(found)
        reply = reply_of(await self._paced_create(model, messages, tools))
        await cache.put(key, reply, source=source)
        return reply

    async def _paced_create(
        self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Any:
        """One real completion, waiting out rate limits as the run's pacer says."""
        return await paced(
            functools.partial(self.create, model=model, messages=messages, tools=tools),
            key=None,
            shown=model,
            transient=_transient,
        )

    def _model_for(self, ctx: AgentContext) -> str:
        """The model to call for a sample: fixed, else the sample's, else the default."""
        if self.model:
            return self.model
        if ctx.model is not None:
            return self.model_name(ctx.model)
        if self.default_model:
            return self.default_model
        raise ValueError("no model: run with --model, or pass model= or default_model=")

    async def create(
        self, *, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Any:
        """One completion call; adapters implement it."""
        raise NotImplementedError

    def model_name(self, spec: ModelSpec) -> str:
        """How this client names the model of a spec (the bare model by default)."""
        return spec.model

    def _opening(self, value: Any) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        if self.instructions:
            messages.append({"role": "system", "content": self.instructions})
        if isinstance(value, str):
            messages.append({"role": "user", "content": value})
        elif isinstance(value, list):
            messages.extend(dict(message) for message in value)
        elif isinstance(value, dict) and "role" in value:
            messages.append(dict(value))
        else:
            messages.append({"role": "user", "content": json.dumps(value)})
        return messages


def _transient(error: BaseException) -> bool:
    """A failure worth one more try: a 5xx, a timeout, a dropped connection (not a 4xx).

    Rate limits (429, 503, 529) are the pacer's; this is what a client's own retries took.
    """
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        return status >= 500 or status in (408, 409)
    name = type(error).__name__
    return "Timeout" in name or "Connection" in name


def _assistant(reply: ModelReply) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": reply.content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.tool_calls
        ],
    }


#: Options that say how to reach the provider, not what it answers: never part of a key.
_UNKEYED = frozenset({"api_key", "api_base", "base_url", "timeout", "extra_headers"})


def _keyed(options: dict[str, Any]) -> dict[str, Any]:
    """The options that change a reply, as JSON-able values (a key holds no credential)."""
    return {
        name: value if isinstance(value, str | int | float | bool | None) else repr(value)
        for name, value in sorted(options.items())
        if name not in _UNKEYED
    }


@dataclass
class _Answered:
    """The model the responses named: the asked one when any turn named it, else the first."""

    asked: str
    name: str | None = None

    def add(self, reply: ModelReply) -> None:
        named = reply.model
        if not named:
            return
        if self.name is None or (
            same_model(self.asked, named) and not same_model(self.asked, self.name)
        ):
            self.name = named

    def metadata(self) -> dict[str, Any]:
        return {} if self.name is None else {ANSWERED_MODEL_KEY: self.name}


@dataclass
class _Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0
    seen: bool = False
    turns: int = 0
    cached: int = 0

    def add(self, reply: ModelReply) -> None:
        self.turns += 1
        if reply.cached:
            # Answered from the cache: no request, no tokens, nothing spent.
            self.cached += 1
            return
        if reply.input_tokens is not None or reply.output_tokens is not None:
            self.seen = True
            self.input_tokens += reply.input_tokens or 0
            self.output_tokens += reply.output_tokens or 0
        # A reported cost only counts when every turn that made a request reported one.
        self.cost = (
            None if self.cost is None or reply.cost_usd is None else self.cost + reply.cost_usd
        )

    def total(self) -> Usage | None:
        if self.cached and self.cached == self.turns:
            return Usage(0, 0, 0.0, "cached")
        if not self.seen:
            return None
        return Usage(self.input_tokens, self.output_tokens, self.cost if self.turns else None)

    def hits(self) -> dict[str, Any]:
        return {CACHED_CALLS_KEY: self.cached} if self.cached else {}


@dataclass(kw_only=True)
class OpenAIChatAgent(ChatAgent):
    """:class:`ChatAgent` on the official ``openai`` client (any OpenAI-compatible endpoint)."""

    base_url: str | None = None
    api_key: str | None = None
    # The client of the conversation in progress, per task: samples run concurrently.
    _client: contextvars.ContextVar[Any] = field(
        default_factory=lambda: contextvars.ContextVar("assay_openai_chat_client"),
        init=False,
        repr=False,
    )
    _verify: Any = field(default=None, init=False, repr=False)

    def prepare(self) -> None:
        """Import the ``openai`` client and build its TLS set-up ahead of time.

        See :meth:`ChatAgent.prepare`. Loading the certificate store is what makes a new
        client slow (tens of milliseconds): it is done once here, before any clock starts,
        and every conversation's client shares it. Without a key for the OpenAI API itself,
        the run is refused before it starts.
        """
        super().prepare()
        import openai  # noqa: F401

        from assay_agents.keys import require_openai_key

        require_openai_key("the chat agent", self.base_url, self.api_key)
        self._tls()

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse, before any request, models this agent cannot call (as LiteLLM's does).

        Besides a fixed model asked to be another: no model at all (no ``--model``, no
        ``model=``, no ``default_model=``), and, on the OpenAI API itself, a model of
        another provider, which that API would refuse on every sample.
        """
        super().preflight(models)
        from assay_agents.errors import ConfigurationError

        if not (self.model or models or self.default_model):
            raise ConfigurationError(
                "the chat agent has no model to call: run with --model, or build it with "
                "model= or default_model="
            )
        if self.model or self._own_endpoint():
            return
        foreign = [spec.label for spec in models if spec.provider != "openai"]
        if foreign:
            raise ConfigurationError(
                f"the chat agent calls the OpenAI API, which does not serve "
                f"{', '.join(map(repr, foreign))} (--model): give base_url= for an "
                "OpenAI-compatible endpoint that does, or use litellm_chat for other providers"
            )

    def cache_source(self, model: str) -> str:
        """``openai_chat MODEL @ ENDPOINT``: the adapter, the model and the whole endpoint.

        The endpoint is scheme, host, port and path, without credentials
        (:func:`assay_agents.keys.endpoint_url`): two endpoints on one host answer apart.
        """
        import os

        from assay_agents.keys import endpoint_url

        url = self.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        return f"openai_chat {model} @ {endpoint_url(url) or 'an unreadable endpoint'}"

    def _own_endpoint(self) -> bool:
        import os

        return bool(self.base_url or os.environ.get("OPENAI_BASE_URL"))

    def _tls(self) -> Any:
        """The TLS context every conversation's client shares, built on first need."""
        if self._verify is None:
            import httpx

            # What each new client would load (SSL_CERT_FILE, else certifi's), loaded once.
            self._verify = httpx.create_ssl_context()
        return self._verify

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[Any]:
        """An ``AsyncOpenAI`` client for one conversation, closed with it.

        Its connections belong to the running event loop, so one agent serves several runs
        without leaking any; what is costly to build (the TLS context) is shared.
        """
        import os

        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        key = self.api_key or os.environ.get("OPENAI_API_KEY") or "not-set"
        http = DefaultAsyncHttpxClient(verify=self._tls())
        # Within a run the run's pacer retries, and says so (a rate limit lowers the
        # model's concurrency); the client's own retries would wait silently.
        retries = 0 if current_pacer.get() is not None else 2
        async with AsyncOpenAI(
            base_url=self.base_url, api_key=key, max_retries=retries, http_client=http
        ) as client:
            token = self._client.set(client)
            try:
                yield client
            finally:
                self._client.reset(token)

    async def create(
        self, *, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Any:
        """Call ``chat.completions.create``."""
        extra = dict(self.options)
        if tools:
            extra["tools"] = tools
        return await self._client.get().chat.completions.create(
            model=model, messages=messages, **extra
        )


@dataclass(kw_only=True)
class LiteLLMChatAgent(ChatAgent):
    """:class:`ChatAgent` through ``litellm.acompletion`` (reported costs when LiteLLM has them)."""

    def prepare(self) -> None:
        """Import LiteLLM ahead of time (see :meth:`ChatAgent.prepare`)."""
        from assay_agents.agent.adapters.optional import import_litellm

        super().prepare()
        import_litellm()

    def preflight(self, models: Sequence[ModelSpec]) -> None:
        """Refuse, before any sample runs, a model whose provider key is not set.

        LiteLLM knows which variable each provider reads; a key or an endpoint passed in
        ``options`` is the caller's own.
        """
        from assay_agents.agent.adapters.optional import import_litellm

        super().preflight(models)
        if self.options.get("api_key") or self.options.get("api_base"):
            return
        litellm = import_litellm()
        names = (
            [self.model]
            if self.model
            else [self.model_name(spec) for spec in models]
            or [name for name in (self.default_model,) if name]
        )
        for name in dict.fromkeys(names):
            missing = litellm.validate_environment(name).get("missing_keys") or []
            if missing:
                from assay_agents.errors import ConfigurationError

                raise ConfigurationError(
                    f"the chat agent's model {name} needs "
                    f"{' and '.join(missing)} in the environment"
                )

    def cache_source(self, model: str) -> str:
        """``litellm_chat MODEL``, with `` @ ENDPOINT`` when ``api_base`` names an endpoint.

        The endpoint is whole, without credentials, as for the OpenAI chat agent.
        """
        from assay_agents.keys import endpoint_url

        base = self.options.get("api_base") or self.options.get("base_url")
        url = endpoint_url(base) if isinstance(base, str) else None
        return f"litellm_chat {model}" + (f" @ {url}" if url else "")

    def model_name(self, spec: ModelSpec) -> str:
        """LiteLLM names models ``provider/model``."""
        return f"{spec.provider}/{spec.model}"

    async def create(
        self, *, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Any:
        """Call ``litellm.acompletion``."""
        from assay_agents.agent.adapters.optional import import_litellm

        litellm = import_litellm()
        extra = dict(self.options)
        if tools:
            extra["tools"] = tools
        return await litellm.acompletion(model=model, messages=messages, **extra)
