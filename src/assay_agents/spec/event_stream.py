"""Server-sent event streams (``text/event-stream``) as a replay fixture keeps them.

A streamed response is a list of events; each is a mapping with ``data`` (a JSON object or
array, written compactly, or a string written as it is, such as ``"[DONE]"``) and optionally
``event``, ``id`` and ``retry`` (the reconnection time in milliseconds, a whole number).
Each event is served as one chunk, in order, so a client reading the
stream (``stream=True``) gets its events one by one, as from the provider.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON, portable

#: The content type of an event stream.
EVENT_STREAM = "text/event-stream"
_EVENT_KEYS = frozenset({"data", "event", "id", "retry"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_EVENT_END = re.compile(r"(?:\r\n|\r|\n){2}")


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One server-sent event: its data and, when it has them, its name, id and retry time."""

    data: JSON
    event: str | None = None
    id: str | None = None
    retry: int | None = None

    def encode(self) -> bytes:
        """The event as it goes on the wire, blank line included."""
        text = self.data if isinstance(self.data, str) else _compact(self.data)
        lines = [f"event: {self.event}"] * (self.event is not None)
        lines += [f"id: {self.id}"] * (self.id is not None)
        lines += [f"retry: {self.retry}"] * (self.retry is not None)
        lines += [f"data: {line}" for line in _LINE_BREAK.split(text)]
        return ("\n".join(lines) + "\n\n").encode("utf-8")

    def to_json(self) -> dict[str, JSON]:
        """The event as a fixture file writes it."""
        written: dict[str, JSON] = {"data": self.data}
        if self.event is not None:
            written["event"] = self.event
        if self.id is not None:
            written["id"] = self.id
        if self.retry is not None:
            written["retry"] = self.retry
        return written


def events_from(value: Any, field: str) -> tuple[StreamEvent, ...]:
    """Validate a fixture's ``events`` list; every failure names the event and its key."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise SpecError('must be a list of events such as {"data": {...}}', field=field)
    return tuple(_event(item, f"{field}[{index}]") for index, item in enumerate(value))


def parse_stream(body: bytes, where: str) -> tuple[StreamEvent, ...]:
    """The events of a streamed response body; a body that is not UTF-8 text is refused.

    Comments are dropped, and so is an event without data (a keep-alive, with any ``retry``
    it sets); data that reads as a JSON object or array is kept as JSON.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecError(
            f"the event stream is not UTF-8 text (byte {body[error.start]:#04x} at "
            f"offset {error.start})",
            field=where,
        ) from None
    found = [_parsed(block) for block in _EVENT_END.split(text) if block.strip()]
    return tuple(event for event in found if event is not None)


def _parsed(block: str) -> StreamEvent | None:
    fields: dict[str, list[str]] = {}
    for line in _LINE_BREAK.split(block):
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))
    if "data" not in fields:
        return None
    data = "\n".join(fields["data"])
    retry = _last(fields, "retry")
    # A retry that is not all digits is ignored, as a browser ignores it.
    milliseconds = int(retry) if retry is not None and retry.isascii() and retry.isdigit() else None
    return StreamEvent(
        _json_or_text(data), _last(fields, "event"), _last(fields, "id"), milliseconds
    )


def _json_or_text(data: str) -> JSON:
    if not data.lstrip().startswith(("{", "[")):
        return data
    try:
        value = json.loads(data, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return data
    return value if isinstance(value, dict | list) else data


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _last(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[-1] if values else None


def _event(item: Any, field: str) -> StreamEvent:
    if not isinstance(item, Mapping):
        raise SpecError(
            "must be a mapping with data (and optionally event, id, retry)", field=field
        )
    unknown = sorted(str(key) for key in item if key not in _EVENT_KEYS)
    if unknown:
        raise SpecError(f"unknown key(s) {unknown}; expected data, event, id, retry", field=field)
    if "data" not in item:
        raise SpecError("needs data (a JSON object or array, or a string)", field=field)
    data = portable(item["data"], f"{field}.data")
    if not isinstance(data, str | dict | list):
        raise SpecError(
            f"{data!r} must be a JSON object or array, or a string", field=f"{field}.data"
        )
    return StreamEvent(
        data, _name(item, "event", field), _name(item, "id", field), _retry(item, field)
    )


def _retry(item: Mapping[str, Any], field: str) -> int | None:
    value = item.get("retry")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(f"{value!r} must be a whole number of milliseconds", field=f"{field}.retry")
    return value


def _name(item: Mapping[str, Any], key: str, field: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or _LINE_BREAK.search(value):
        raise SpecError(f"{value!r} must be a string on one line", field=f"{field}.{key}")
    return value


def _compact(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
