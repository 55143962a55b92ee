"""Model calls of the built-in chat agents as values, and the port a cache of them is kept in.

A :class:`ModelReply` is what the tool-calling loop reads of one completion: the message's
text, its tool calls, the model the response named and its usage. A run asked to cache the
agents' model calls (``--cache-model-calls``) hands the agent a :class:`ModelCallCache`
(:func:`cached_model_calls`); the agent keys each call with :func:`model_call_key` and asks
the provider only for a call it has not seen. Where the replies are kept is the evaluation
layer's concern: this module imports nothing but the spec.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

from assay_agents.spec import JSON, canonical_json

#: The kind under which model calls are kept in the call cache (``assay-agents cache clear
#: --kind``).
MODEL_KIND = "model"
#: The sample metadata key counting the model calls a cache answered (no request made).
CACHED_CALLS_KEY = "cached_model_calls"


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call a model asked for: its id, the tool's name and the arguments as sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What the tool-calling loop reads of one completion.

    ``cached`` marks a reply served from a cache: no request was made, so its usage counts
    for nothing (the tokens kept are the original call's, for the record only).
    """

    content: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cached: bool = False


def reply_of(response: Any) -> ModelReply:
    """An OpenAI-style completion (the ``openai`` client's, or LiteLLM's) as a reply."""
    message = response.choices[0].message
    calls = tuple(
        ToolCallRequest(call.id, call.function.name, call.function.arguments)
        for call in getattr(message, "tool_calls", None) or ()
    )
    usage = getattr(response, "usage", None)
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    named = getattr(response, "model", None)
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        model=named if isinstance(named, str) and named else None,
        input_tokens=None if usage is None else getattr(usage, "prompt_tokens", 0) or 0,
        output_tokens=None if usage is None else getattr(usage, "completion_tokens", 0) or 0,
        cost_usd=float(cost) if isinstance(cost, int | float) else None,
    )


@runtime_checkable
class ModelCallCache(Protocol):
    """Where replies of model calls are kept: a key's reply, and a reply kept under its key.

    ``source`` names what answered (the adapter, the endpoint and the model), for
    ``assay-agents cache stats``.
    """

    async def get(self, key: str, *, source: str) -> ModelReply | None:
        """The reply kept under ``key``, or ``None``."""
        ...

    async def put(self, key: str, reply: ModelReply, *, source: str) -> None:
        """Keep ``reply`` under ``key`` (a key already kept keeps its first reply)."""
        ...


def model_call_key(
    *,
    source: str,
    parameters: dict[str, Any],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    sample: int,
    call: int,
) -> str:
    """The SHA-256 of everything that determines a reply, as canonical JSON.

    ``source`` is the adapter, the whole endpoint (scheme, host, port, path; no credential)
    and the model; ``sample`` and ``call`` say where the call sits, so that samples, and
    successive calls of one sample, are never served from one another.
    """
    document: JSON = {
        "kind": MODEL_KIND,
        "source": source,
        "parameters": cast(JSON, parameters),
        "messages": cast(JSON, messages),
        "tools": cast(JSON, tools),
        "sample": sample,
        "call": call,
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


def served(reply: ModelReply) -> ModelReply:
    """A kept reply as a cache serves it: marked cached (it costs nothing)."""
    return ModelReply(
        reply.content,
        reply.tool_calls,
        reply.model,
        reply.input_tokens,
        reply.output_tokens,
        reply.cost_usd,
        cached=True,
    )
