"""Recording an agent's real HTTP calls as a fixture file that replays strictly.

While a recording :class:`~assay_agents.replay.ReplaySession` is active, every request goes to the
network and is kept with its response. On save, one JSON file is written in the fixture
format a replay reads (``{"interactions": [...]}``, see :meth:`ApiFixtures.from_mapping`):

* the request's method, URL, query and JSON body; no request header is written, so none is
  asserted (``Authorization`` never reaches the file);
* the response's status, its ``Content-Type`` and its body, as ``json``, or as ``events``
  for a streamed (``text/event-stream``) response, or nothing for an empty body (a 204);
* redacted by the rules replay evidence follows (:mod:`assay_agents.replay.redact`). In a request,
  a hidden value (or the hidden part of a longer string) is written as its fingerprint,
  ``[redacted sha256:<16 hex>]``, the start of its SHA-256: the replay hashes the live
  value at that place and compares, so a request with another value still differs. In a
  response it is written as ``[redacted]``. True, false, numbers and null are never hidden;
* a ``recorded`` stamp, the SHA-256 of the rest, so a later recording can tell its own file
  from one a person edited. An edited or hand-written file is never replaced.

The file is written atomically (a temporary file in the same folder, then a rename).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

from assay_agents.atomic import replace_text
from assay_agents.errors import ConfigurationError, ReplayError, SpecError
from assay_agents.replay.matching import ObservedRequest
from assay_agents.replay.redact import Redactor
from assay_agents.spec import JSON, ApiFixtures, digest
from assay_agents.spec.event_stream import EVENT_STREAM, parse_stream

#: The key of the stamp a recording writes into its file.
STAMP_KEY = "recorded"


class Recorder:
    """The interactions of one recording, in the order their requests were sent."""

    def __init__(self, path: Path, redactor: Redactor, redact: tuple[str, ...] = ()) -> None:
        self.path = path
        self._redactor = redactor
        self._fingerprints = dataclasses.replace(redactor, fingerprints=True)
        self._redact = redact
        self._slots: list[dict[str, JSON] | None] = []
        self._problems: list[str] = []
        self._noted: set[int] = set()  # slots whose problem is already among the problems
        self._lock = threading.Lock()

    def begin(self, request: ObservedRequest) -> int:
        """Reserve the next place for ``request``; its response fills it later."""
        with self._lock:
            self._slots.append(None)
            return len(self._slots) - 1

    def complete(
        self,
        slot: int,
        request: ObservedRequest,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
    ) -> None:
        """Keep the request and its response (redacted), or note why they cannot be kept."""
        where = f"request {slot + 1} {request.method} {request.shown_url(self._redactor)}"
        try:
            interaction = self._interaction(request, status, headers, body, where)
        except ReplayError as error:
            with self._lock:
                self._problems.append(str(error))
                self._noted.add(slot)
            return
        with self._lock:
            self._slots[slot] = interaction

    def fail(self, slot: int, request: ObservedRequest, error: BaseException) -> None:
        """Note a request that got no response: a fixture cannot declare a lost connection."""
        with self._lock:
            self._noted.add(slot)
            self._problems.append(
                f"request {slot + 1} {request.method} {request.shown_url(self._redactor)} "
                f"got no response ({type(error).__name__}), so it cannot be recorded"
            )

    @property
    def count(self) -> int:
        """How many requests were recorded so far."""
        with self._lock:
            return sum(slot is not None for slot in self._slots)

    def document(self) -> dict[str, JSON]:
        """The fixture file's content, or :class:`ReplayError` naming what cannot be kept."""
        with self._lock:
            problems, slots, noted = list(self._problems), list(self._slots), set(self._noted)
        # A request still waiting for its response (the sample ended first) leaves a gap:
        # the file would claim a shorter conversation than the agent had.
        problems += [
            f"request {index + 1} had no response when the recording ended"
            for index, slot in enumerate(slots)
            if slot is None and index not in noted
        ]
        if problems:
            raise ReplayError(f"{self.path}: not recorded: " + "; ".join(problems))
        written: dict[str, JSON] = {"interactions": [slot for slot in slots if slot is not None]}
        if self._redact:
            written["redact"] = list(self._redact)
        written[STAMP_KEY] = {"sha256": digest(written)}
        return written

    def save(self) -> Path:
        """Write the fixture file atomically; refuse to replace a file a person edited."""
        document = self.document()
        try:
            ApiFixtures.from_mapping(document, base_dir=self.path.parent)
        except SpecError as error:  # a recording that would not replay is a defect here
            raise ReplayError(f"{self.path}: the recording does not replay: {error}") from None
        check_replaceable(self.path)
        write_atomically(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return self.path

    def _interaction(
        self,
        request: ObservedRequest,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        where: str,
    ) -> dict[str, JSON]:
        hidden = self._redactor.url(request.url)
        if hidden != request.url:
            raise ReplayError(
                f"{where}: its URL path holds what looks like a credential (a token shape "
                "or a long random segment), which is never written to a fixture"
            )
        interaction: dict[str, JSON] = {"method": request.method, "url": request.url}
        query = self._query(request.query)
        if query:
            interaction["query"] = query
        if request.body:
            interaction["json"] = self._fingerprints.json(_json(request.body, f"{where}: its body"))
        interaction["response"] = self._response(status, headers, body, where)
        return interaction

    def _query(self, pairs: tuple[tuple[str, str], ...]) -> dict[str, JSON]:
        query: dict[str, list[JSON]] = {}
        for name, value in pairs:
            query.setdefault(name, []).append(self._fingerprints.query_value(name, value))
        return {name: values[0] if len(values) == 1 else values for name, values in query.items()}

    def _response(
        self, status: int, headers: list[tuple[str, str]], body: bytes, where: str
    ) -> dict[str, JSON]:
        content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
        written: dict[str, JSON] = {"status": status}
        if content_type is not None:
            written["headers"] = {"Content-Type": content_type}
        if EVENT_STREAM in (content_type or "").lower():
            try:
                events = parse_stream(body, f"{where}: its response")
            except SpecError as error:
                raise ReplayError(str(error)) from None
            written["events"] = [
                {**event.to_json(), "data": self._redactor.json(event.data)} for event in events
            ]
        elif body:
            written["json"] = self._redactor.json(_json(body, f"{where}: its response"))
        return written


def check_replaceable(path: Path) -> None:
    """Refuse a target that is a folder, or a file this recording did not write unchanged."""
    if path.is_dir():
        raise ConfigurationError(f"{path}: is a folder, not a fixture file")
    if not path.exists():
        return
    if not is_unedited_recording(path):
        raise ConfigurationError(
            f"{path}: exists and was not recorded by Assay, or was edited since; it is kept. "
            "Delete it (or record to another folder) to record it again"
        )


def is_unedited_recording(path: Path) -> bool:
    """Whether ``path`` holds a recording exactly as it was written (its stamp still fits)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    if not isinstance(document, dict):
        return False
    stamp = document.pop(STAMP_KEY, None)
    return isinstance(stamp, dict) and stamp.get("sha256") == digest(document)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (see :mod:`assay_agents.atomic`), making its folder."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_text(path, text)
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot write there: {error.strerror}") from None


def _json(body: bytes, what: str) -> JSON:
    try:
        value: JSON = json.loads(body.decode("utf-8"), parse_constant=_refuse)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ReplayError(
            f"{what} is not JSON ({len(body)} byte(s)); a fixture declares JSON bodies "
            "and event streams only"
        ) from None
    return value


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: The sample metadata key a recording notes its file, its request count and any failure in.
RECORD_KEY = "api_record"
