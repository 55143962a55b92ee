"""The cache of judge calls, kept in the run store (``--cache``).

:class:`StoredCalls` is the :class:`~assay.judging.cache.CallCache` a run's
:class:`~assay.judging.cache.CachedJudge` keeps its replies in: the history database for
the SQL store. Replies are written and read through the record codec; a kept reply that
does not read (damaged, or written by a newer Assay in a form this one cannot read) is a
miss, and the call is made again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from assay.errors import ConfigurationError, StoreError
from assay.evaluation.ports import CallCacheStore, RunStore
from assay.judging import Judge, JudgeReply, judge_identity
from assay.judging.cache import CachedJudge
from assay.record import RecordError, read, write
from assay.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION

_PATH = "call_cache.reply"


def encode(reply: JudgeReply) -> dict[str, Any]:
    """A reply as the cache keeps it (never marked cached: it was a real reply)."""
    written = write(reply)
    assert isinstance(written, dict)
    written.pop("cached", None)
    return {SCHEMA_KEY: SCHEMA_VERSION, **written}


def decode(data: object) -> JudgeReply | None:
    """A kept reply, or ``None`` when it does not read as one."""
    if not isinstance(data, dict):
        return None
    fields = {key: value for key, value in data.items() if key != SCHEMA_KEY}
    try:
        reply = read(JudgeReply, fields, _PATH)
    except RecordError:
        return None
    return reply if isinstance(reply, JudgeReply) else None


#: A source with at most this many kept replies is read whole, once, at its first call.
PRELOAD_LIMIT = 50_000


class StoredCalls:
    """A :class:`~assay.judging.cache.CallCache` over a store's ``cache_*`` methods.

    The replies kept for its ``kind`` and ``source`` are read in one query at the first
    call (up to :data:`PRELOAD_LIMIT`; past it, each call reads its own key): a rescore
    answered from the cache makes no query per call. The store is called off the event
    loop. A store that fails to read is a miss and one that fails to write keeps nothing:
    the cache saves calls, it never stops a run.
    """

    def __init__(self, store: CallCacheStore, *, kind: str, source: str) -> None:
        self.store = store
        self.kind = kind
        self.source = source
        self._kept: dict[str, Any] | None = None
        self._loading: asyncio.Lock | None = None
        self._whole = False

    async def get(self, key: str) -> JudgeReply | None:
        """The kept reply under ``key``, or ``None``."""
        kept = await self._preloaded()
        if kept is not None:
            data = kept.get(key)
        else:
            try:
                data = await asyncio.to_thread(self.store.cache_get, key)
            except StoreError:
                return None
        return None if data is None else decode(data)

    async def put(self, key: str, reply: JudgeReply, *, kind: str, source: str) -> None:
        """Keep ``reply`` under ``key``."""
        data = encode(reply)
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


def cache_store(store: RunStore) -> CallCacheStore:
    """``store`` as a cache; one that keeps no replies is a :class:`ConfigurationError`."""
    if not isinstance(store, CallCacheStore):
        raise ConfigurationError(
            f"the store {store.display_url} keeps no cached calls: run without --cache"
        )
    return store


def cached(judge: Judge, store: RunStore) -> Judge:
    """``judge`` with its calls answered from, and kept in, ``store``."""
    calls = StoredCalls(cache_store(store), kind="judge", source=judge_identity(judge))
    return CachedJudge(judge, calls)
