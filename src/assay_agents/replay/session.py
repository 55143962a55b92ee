"""The replay state of one sample: which declaration is next, and what each request got."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assay_agents.errors import ConfigurationError, ReplayError
from assay_agents.replay.evidence import ReplayEvidence, RequestRecord, RequestStatus, describe
from assay_agents.replay.matching import (
    ObservedRequest,
    declared_endpoint,
    differences,
    endpoint_of,
)
from assay_agents.replay.recording import Recorder, check_replaceable
from assay_agents.replay.redact import Redactor
from assay_agents.spec.fixtures import ApiFixtures, CannedResponse


class ReplaySession:
    """Serves one sample's declarations, once each and in declared order.

    Routing: a request whose endpoint (method and URL without query) no declaration targets
    goes to the network when its host is allowed, and is ``unexpected`` otherwise. Any other
    request takes the next declaration: it is served the canned response when it matches and
    refused as a ``mismatch`` when it does not; once every declaration is used, it is refused
    as ``exhausted``. Refusals raise :class:`~assay_agents.errors.ReplayError` in the agent's
    client.

    Thread-safe: one sample's agent may issue requests from several threads or tasks.

    With ``record=PATH`` the session records instead: every request goes to the network and
    is kept, and leaving :meth:`active` writes the fixture file ``PATH`` (see
    :mod:`assay_agents.replay.recording`), which ``ApiFixtures.from_mapping`` reads back to replay.
    ``fixtures`` then only lends its ``redact`` patterns; an existing ``PATH`` that a person
    wrote or edited is refused at once (:class:`~assay_agents.errors.ConfigurationError`).
    """

    def __init__(
        self, fixtures: ApiFixtures | None = None, *, record: str | Path | None = None
    ) -> None:
        fixtures = ApiFixtures() if fixtures is None else fixtures
        self.fixtures = fixtures
        self.recorder = None if record is None else _recorder(fixtures, Path(record))
        self._declared = frozenset(
            declared_endpoint(item.request) for item in fixtures.interactions
        )
        self._allowed = frozenset(fixtures.allow_hosts)
        self._redactor = Redactor.of(fixtures)
        self._cursor = 0
        self._records: list[RequestRecord] = []
        self._lock = threading.Lock()
        self._closed = False

    @property
    def recording(self) -> bool:
        """Whether requests go to the network and are recorded, rather than replayed."""
        return self.recorder is not None

    @contextmanager
    def active(self, *, save: bool = True) -> Iterator[ReplaySession]:
        """Intercept HTTP for the code run inside this block (this context only), then close.

        A recording session writes its file when the block ends without an exception
        (unless ``save`` is false: then call :meth:`save`).
        """
        from assay_agents.replay import _interception

        with _interception.scoped(self):
            yield self
        if save and self.recorder is not None:
            self.recorder.save()

    def save(self) -> Path:
        """Write the recorded fixture file; :class:`ReplayError` says what could not be kept."""
        if self.recorder is None:
            raise ConfigurationError("this session replays; pass record=PATH to record")
        return self.recorder.save()

    def begin(self, request: ObservedRequest) -> int:
        """Reserve the recording's next place for a request about to be sent."""
        assert self.recorder is not None
        with self._lock:
            if self._closed:
                raise ReplayError(
                    f"{request.method} {request.shown_url(self._redactor)}: the "
                    "sample this request belongs to has already finished"
                )
        return self.recorder.begin(request)

    def bind(self, agent: Callable[..., Any]) -> Callable[..., Any]:
        """A sync agent that keeps interception installed for as long as it runs.

        Async agents are returned unchanged: a timeout cancels them with their sample.
        """
        if inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(
            getattr(agent, "__call__", None)  # noqa: B004 - an async __call__, not any callable
        ):
            return agent

        @functools.wraps(agent)
        def held(*args: Any, **kwargs: Any) -> Any:
            from assay_agents.replay import _interception

            with _interception.held():
                return agent(*args, **kwargs)

        return held

    def passes_through(self, request: ObservedRequest) -> bool:
        """Whether the request goes to the network untouched (recorded as ``allowed``)."""
        if self.recorder is not None:
            return False
        if request.host not in self._allowed or endpoint_of(request) in self._declared:
            return False
        with self._lock:
            if self._closed:
                return False
            shown = request.shown_url(self._redactor)
            self._records.append(
                RequestRecord(request.method, shown, "allowed", request_bytes=len(request.body))
            )
        return True

    def respond(self, request: ObservedRequest) -> CannedResponse:
        """The canned response for a request, or raise :class:`ReplayError` saying why not."""
        with self._lock:
            if self._closed:
                raise ReplayError(
                    f"{request.method} {request.shown_url(self._redactor)}: the "
                    "sample this request belongs to has already finished"
                )
            record, response = self._decide(request)
            self._records.append(record)
            number = len(self._records)
        if response is None:
            raise ReplayError(record.problem(number))
        return response

    def close(self) -> None:
        """Stop serving: requests from threads that outlive the agent call are refused."""
        with self._lock:
            self._closed = True

    def evidence(self) -> ReplayEvidence:
        """What happened so far; the unused declarations count as missing."""
        with self._lock:
            missing = tuple(range(self._cursor, len(self.fixtures.interactions)))
            return ReplayEvidence(self.fixtures, tuple(self._records), missing)

    def _decide(self, request: ObservedRequest) -> tuple[RequestRecord, CannedResponse | None]:
        shown, size = request.shown_url(self._redactor), len(request.body)
        declared = endpoint_of(request) in self._declared
        interactions = self.fixtures.interactions
        if self._cursor >= len(interactions) or not declared:
            status, why = self._refusal(declared)
            return RequestRecord(
                request.method, shown, status, differences=(why,), request_bytes=size
            ), None
        index = self._cursor
        self._cursor += 1
        found = differences(interactions[index].request, request, self._redactor)
        if found:
            return RequestRecord(request.method, shown, "mismatch", index, tuple(found), size), None
        response = interactions[index].response
        return RequestRecord(
            request.method, shown, "matched", index, (), size, response.status, len(response.body)
        ), response

    def _refusal(self, declared: bool) -> tuple[RequestStatus, str]:
        if declared:
            return "exhausted", (
                "every declaration of this endpoint was already used "
                "(declare a repeated call twice)"
            )
        interactions = self.fixtures.interactions
        if self._cursor < len(interactions):
            upcoming = describe(self._cursor, interactions[self._cursor], self._redactor)
            return "unexpected", f"not declared (next declared: {upcoming})"
        return "unexpected", "not declared"


def _recorder(fixtures: ApiFixtures, path: Path) -> Recorder:
    if fixtures.interactions:
        raise ConfigurationError(
            f"{path}: a recording session records every request; it takes no declared "
            "interactions (only redact patterns)"
        )
    check_replaceable(path)
    return Recorder(path, Redactor.of(fixtures), fixtures.redact)
