"""A content-addressed cache of judge calls: a judge that wraps another.

:class:`CachedJudge` answers a call it has seen from its :class:`CallCache` and asks the
judge it wraps otherwise, keeping the reply. The key (:func:`call_key`) is everything that
determines a reply: the judge's identity, its whole endpoint (:func:`endpoint`: two
endpoints on one host answer apart) and parameters, the messages, and where the call
sits (the sample index and the vote index, so that the votes of one grade, and the samples
of one case, are never served from one another). A reply served from the cache made no
call, so it costs nothing: it says so (``cached``), and its usage counts no tokens.

Where the replies are kept is a port: the evaluation layer keeps them in the history
database; this module stays pure.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

from assay_agents.judging.judge import Judge, JudgeReply, ask, judge_chain, judge_identity
from assay_agents.spec import JSON, canonical_json

#: The attributes of a judge (or a model client) that change what it answers.
PARAMETERS = ("model", "provider", "temperature", "json_mode", "extra", "max_tokens", "seed")


@dataclass(frozen=True, slots=True)
class CallPosition:
    """Where a call sits: which sample it grades (``None``: no sample) and which vote it is.

    ``case`` and ``model`` say which case and model the sample is of; they are not part of
    a cache key (the messages hold what the judge is shown), but a judge that answers from
    a stored run reads them.
    """

    sample: int | None = None
    vote: int = 0
    case: str | None = None
    model: str | None = None


_NOWHERE = CallPosition()
_position: contextvars.ContextVar[CallPosition] = contextvars.ContextVar(
    "assay_call_position", default=_NOWHERE
)


def call_position() -> CallPosition:
    """The position of the call in progress (set by the runner and the votes)."""
    return _position.get()


@contextlib.contextmanager
def positioned(
    *,
    sample: int | None = None,
    vote: int | None = None,
    case: str | None = None,
    model: str | None = None,
) -> Iterator[None]:
    """Calls made inside are at ``sample`` and ``vote`` (each kept when not given)."""
    current = _position.get()
    token = _position.set(
        CallPosition(
            current.sample if sample is None else sample,
            current.vote if vote is None else vote,
            current.case if case is None else case,
            current.model if model is None else model,
        )
    )
    try:
        yield
    finally:
        _position.reset(token)


@runtime_checkable
class CallCache(Protocol):
    """Where cached replies are kept: a key's reply, and a reply kept under its key.

    ``source`` names what answered (a judge's identity, a model), for ``assay-agents cache stats``.
    """

    async def get(self, key: str) -> JudgeReply | None:
        """The reply kept under ``key``, or ``None``."""
        ...

    async def put(self, key: str, reply: JudgeReply, *, kind: str, source: str) -> None:
        """Keep ``reply`` under ``key`` (a key already kept keeps its first reply)."""
        ...


#: Options (in ``extra``) that hold a credential or say where calls go: never in a key (the
#: endpoint is keyed whole, without its credentials, by :func:`endpoint`).
UNKEYED = frozenset({"api_key", "api_base", "base_url", "extra_headers", "extra_query"})


def parameters(client: object) -> dict[str, Any]:
    """What of ``client`` (a judge, a model adapter) changes its replies, as JSON-able values."""
    found: dict[str, Any] = {}
    for name in PARAMETERS:
        value = getattr(client, name, None)
        if isinstance(value, dict):
            value = {key: kept for key, kept in value.items() if key not in UNKEYED} or None
        if value is not None and not callable(value):
            found[name] = value if isinstance(value, str | int | float | bool) else repr(value)
    return found


def endpoint(judge: Judge) -> str | None:
    """Where ``judge``'s calls go, whole and without credentials, when it says.

    The first ``endpoint_url()`` along the judge and the judges it wraps: scheme, host, port
    and path (:func:`assay_agents.keys.endpoint_url`). Not part of the judge's identity, which names
    the host alone, but of each cache key: one host may serve several judges.
    """
    for part in judge_chain(judge):
        url = getattr(part, "endpoint_url", None)
        if callable(url):
            found = url()
            return found if isinstance(found, str) else None
    return None


def settings(judge: Judge) -> dict[str, Any]:
    """What of ``judge`` keys its calls besides its identity: parameters and endpoint."""
    found = parameters(judge_chain(judge)[-1])
    url = endpoint(judge)
    if url is not None:
        found["endpoint"] = url
    return found


def call_key(
    kind: str,
    source: str,
    settings: Mapping[str, Any],
    messages: object,
    position: CallPosition | None = None,
) -> str:
    """The SHA-256 of everything that determines a reply, as canonical JSON."""
    where = call_position() if position is None else position
    document: JSON = {
        "kind": kind,
        "source": source,
        "parameters": cast(JSON, dict(settings)),
        "messages": cast(JSON, messages),
        "sample": where.sample,
        "vote": where.vote,
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


def judge_key(
    judge: Judge, instructions: str, prompt: str, position: CallPosition | None = None
) -> str:
    """The key of one judge call (at the current position unless given)."""
    return _judge_key(judge_identity(judge), settings(judge), instructions, prompt, position)


def _judge_key(
    identity: str,
    settings: Mapping[str, Any],
    instructions: str,
    prompt: str,
    position: CallPosition | None = None,
) -> str:
    messages = [
        {"role": "system", "content": instructions},
        {"role": "user", "content": prompt},
    ]
    return call_key("judge", identity, settings, messages, position)


def served(reply: JudgeReply) -> JudgeReply:
    """A kept reply as the cache serves it: its text, no tokens, no cost, marked cached."""
    return JudgeReply(reply.text, cost_usd=0.0, cached=True)


class CachedJudge:
    """``judge`` with each call answered from ``cache`` when it was made before.

    It has the identity of the judge it wraps: runs graded through the cache compare with
    runs graded without it.
    """

    def __init__(self, judge: Judge, cache: CallCache) -> None:
        self.__wrapped__ = judge
        self.label = judge.label
        self.cache = cache
        self._identity = judge_identity(judge)
        self._settings = settings(judge)

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        """The kept reply, or the wrapped judge's (then kept)."""
        key = _judge_key(self._identity, self._settings, instructions, prompt)
        found = await self.cache.get(key)
        if found is not None:
            return served(found)
        reply = await ask(self.__wrapped__, instructions, prompt)
        await self.cache.put(key, reply, kind="judge", source=self._identity)
        return reply

    def __repr__(self) -> str:
        return f"CachedJudge({self.__wrapped__!r})"
