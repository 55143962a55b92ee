"""The cache of judge calls (``--cache``) and of model calls (``--cache-model-calls``).

:class:`StoredCalls` is the :class:`~assay_agents.judging.cache.CallCache` a run's
:class:`~assay_agents.judging.cache.CachedJudge` keeps its replies in, and
:class:`StoredModelCalls` the :class:`~assay_agents.agent.calls.ModelCallCache` the built-in chat
agents keep theirs in: the history database for the SQL store. Replies are written and read
through the record codec; a kept reply that does not read (damaged, or written by a newer
Assay in a form this one cannot read) is a miss, and the call is made again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from assay_agents.agent.calls import MODEL_KIND, ModelCallCache, ModelReply
from assay_agents.errors import ConfigurationError, StoreError
from assay_agents.evaluation.ports import CallCacheStore, RunStore
from assay_agents.judging import Judge, JudgeReply, judge_identity
from assay_agents.judging.cache import CachedJudge
from assay_agents.record import RecordError, read, write
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION

_PATH = "call_cache.reply"


def encode(reply: JudgeReply | ModelReply) -> dict[str, Any]:
    """A reply as the cache keeps it (never marked cached: it was a real reply)."""
    written = write(reply)
    assert isinstance(written, dict)
    written.pop("cached", None)
    return {SCHEMA_KEY: SCHEMA_VERSION, **written}


def decode(data: object) -> JudgeReply | None:
    """A kept reply, or ``None`` when it does not read as one."""
    reply = _decoded(JudgeReply, data)
    return reply if isinstance(reply, JudgeReply) else None


def decode_model(data: object) -> ModelReply | None:
    """A kept model reply, or ``None`` when it does not read as one."""
    reply = _decoded(ModelReply, data)
    return reply if isinstance(reply, ModelReply) else None


def _decoded(kind: type, data: object) -> object:
    if not isinstance(data, dict):
        return None
    fields = {key: value for key, value in data.items() if key != SCHEMA_KEY}
    try:
        return read(kind, fields, _PATH)
    except RecordError:
        return None


#: A source with at most this many kept replies is read whole, once, at its first call.
PRELOAD_LIMIT = 50_000


class _Shelf:
    """The kept documents of one ``kind`` and ``source`` in a store's ``cache_*`` methods.

    They are read in one query at the first call (up to :data:`PRELOAD_LIMIT`; past it, each
    call reads its own key): a run answered from the cache makes no query per call. The
    store is called off the event loop. A store that fails to read is a miss and one that
    fails to write keeps nothing: the cache saves calls, it never stops a run.
    """

    def __init__(self, store: CallCacheStore, *, kind: str, source: str) -> None:
        self.store = store
        self.kind = kind
        self.source = source
        self._kept: dict[str, Any] | None = None
        self._loading: asyncio.Lock | None = None
        self._whole = False

    async def get(self, key: str) -> Any:
        """The document kept under ``key``, or ``None``."""
        kept = await self._preloaded()
        if kept is not None:
            return kept.get(key)
        try:
            return await asyncio.to_thread(self.store.cache_get, key)
        except StoreError:
            return None

    async def put(self, key: str, data: Any, *, kind: str, source: str) -> None:
        """Keep ``data`` under ``key``."""
        try:
            await asyncio.to_thread(self.store.cache_put, key, data, kind=kind, source=source)
        except StoreError:
            return
        if self._kept is not None and (kind, source) == (self.kind, self.source):
            self._kept.setdefault(key, data)

    async def _preloaded(self) -> dict[str, Any] | None:
        if self._loading is None:
            self._loading = asyncio.Lock()
        async with self._loading:
            if self._kept is None:
                try:
                    found = await asyncio.to_thread(
                        self.store.cache_entries, self.kind, self.source, PRELOAD_LIMIT
                    )
                except StoreError:
                    found = None
                # Past the limit (or unreadable): each call reads its own key.
                self._kept = {} if found is None else found
                self._whole = found is not None
        return self._kept if self._whole else None


class StoredCalls:
    """A :class:`~assay_agents.judging.cache.CallCache` over a store's ``cache_*`` methods."""

    def __init__(self, store: CallCacheStore, *, kind: str, source: str) -> None:
        self.store = store
        self.kind = kind
        self.source = source
        self._shelf = _Shelf(store, kind=kind, source=source)

    async def get(self, key: str) -> JudgeReply | None:
        """The kept reply under ``key``, or ``None``."""
        data = await self._shelf.get(key)
        return None if data is None else decode(data)

    async def put(self, key: str, reply: JudgeReply, *, kind: str, source: str) -> None:
        """Keep ``reply`` under ``key``."""
        await self._shelf.put(key, encode(reply), kind=kind, source=source)


class StoredModelCalls:
    """A :class:`~assay_agents.agent.calls.ModelCallCache` over a store's ``cache_*`` methods.

    Each source (an adapter, a model and a host) is read whole at its first call, as a
    judge's replies are (see :class:`StoredCalls`).
    """

    def __init__(self, store: CallCacheStore) -> None:
        self.store = store
        self._shelves: dict[str, _Shelf] = {}

    def _shelf(self, source: str) -> _Shelf:
        shelf = self._shelves.get(source)
        if shelf is None:
            shelf = self._shelves[source] = _Shelf(self.store, kind=MODEL_KIND, source=source)
        return shelf

    async def get(self, key: str, *, source: str) -> ModelReply | None:
        """The kept reply under ``key``, or ``None``."""
        data = await self._shelf(source).get(key)
        return None if data is None else decode_model(data)

    async def put(self, key: str, reply: ModelReply, *, source: str) -> None:
        """Keep ``reply`` under ``key``."""
        await self._shelf(source).put(key, encode(reply), kind=MODEL_KIND, source=source)


def cache_store(store: RunStore, option: str = "--cache") -> CallCacheStore:
    """``store`` as a cache; one that keeps no replies is a :class:`ConfigurationError`."""
    if not isinstance(store, CallCacheStore):
        raise ConfigurationError(
            f"the store {store.display_url} keeps no cached calls: run without {option}"
        )
    return store


def cached(judge: Judge, store: RunStore) -> Judge:
    """``judge`` with its calls answered from, and kept in, ``store``."""
    calls = StoredCalls(cache_store(store), kind="judge", source=judge_identity(judge))
    return CachedJudge(judge, calls)


def model_calls(store: RunStore) -> ModelCallCache:
    """The cache of model calls kept in ``store`` (``--cache-model-calls``)."""
    return StoredModelCalls(cache_store(store, "--cache-model-calls"))
