"""HTTP replay fixtures of a case: the requests the agent must make and what they get back.

These are plain frozen values: the spec layer declares, validates and fingerprints them, and
:mod:`assay_agents.replay` enforces them while the agent runs. Build them with :func:`api`::

    assay.api(allow_hosts=["api.openai.com"])
        .expect_request("GET", "https://shipping.example/orders", query={"id": "42"})
        .respond_with(json={"status": "ready"})

or, from file formats, with :meth:`ApiFixtures.from_mapping`. Response bodies are snapshotted
as bytes when declared, so a missing file or invalid JSON fails before any agent runs and
later edits of the file do not leak into a suite already defined.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from assay_agents.errors import SpecError
from assay_agents.spec._fixture_parts import (
    UNSET,
    Unset,
    base_url,
    body_from_file,
    body_from_json,
    check_keys,
    headers,
    hosts,
    is_sensitive_name,
    method,
    query_pairs,
    redactions,
    request_json,
    split_url,
    status,
)
from assay_agents.spec.credentials import REDACTED, hide_credentials
from assay_agents.spec.event_stream import EVENT_STREAM, StreamEvent, events_from
from assay_agents.spec.json_data import JSON
from assay_agents.spec.json_paths import ignored

__all__ = [
    "UNSET",
    "ApiFixtures",
    "BodyMatch",
    "CannedResponse",
    "ExpectedRequest",
    "Interaction",
    "PendingRequest",
    "Unset",
    "api",
    "base_url",
    "fixture_file",
    "is_sensitive_name",
    "redact_patterns",
    "split_url",
]

_REQUEST_KEYS = frozenset(
    {"method", "url", "query", "json", "headers", "ignore", "match", "response"}
)
_RESPONSE_KEYS = frozenset({"status", "headers", "json", "body_file", "events"})
_FIXTURE_KEYS = frozenset({"allow_hosts", "interactions", "redact", "recorded"})
#: How a declared JSON body is compared: ``exact`` (every field, no extra ones) or
#: ``subset`` (the declared fields must be there and equal; the request may have more).
BodyMatch = Literal["exact", "subset"]
_BODY_MATCHES: tuple[BodyMatch, ...] = ("exact", "subset")


@dataclass(frozen=True, slots=True)
class ExpectedRequest:
    """One request the agent must make.

    ``url`` is normalised without its query (``scheme://host[:port]/path``); ``query`` holds
    sorted (name, value) pairs, so order is insignificant and repeats keep their multiplicity.
    ``json`` is :data:`UNSET` when the request must have an empty body. ``headers`` holds only
    the asserted headers, names lower-cased. ``ignore`` lists the JSON paths of the body
    (``$.metadata``) and the query parameters (``query.NAME``) left out of the comparison;
    ``match`` says whether the body may hold fields the declaration does not (``subset``).
    """

    method: str
    url: str
    query: tuple[tuple[str, str], ...] = ()
    json: JSON | Unset = UNSET
    headers: tuple[tuple[str, str], ...] = ()
    ignore: tuple[str, ...] = ()
    match: BodyMatch = "exact"

    def definition(self) -> dict[str, JSON]:
        """Portable form for fingerprints; asserted credentials appear only as hashes."""
        described: dict[str, JSON] = {
            "method": self.method,
            "url": hide_credentials(self.url),
            "query": [[name, _hidden(name, value)] for name, value in self.query],
            "headers": {name: _hidden(name, value) for name, value in self.headers},
        }
        if not isinstance(self.json, Unset):
            described["json"] = _hidden_json(self.json)
        # Only when given, so the fingerprints of declarations without them do not change.
        if self.ignore:
            described["ignore"] = list(self.ignore)
        if self.match != "exact":
            described["match"] = self.match
        return described

    def endpoint(self) -> tuple[str, str]:
        """(method, url without query): what routes a request to this declaration."""
        return (self.method, self.url)


@dataclass(frozen=True, slots=True)
class CannedResponse:
    """The response served for one declared request: status, headers and exact body bytes.

    ``source`` says where the bytes came from (``"json"`` or the declared ``body_file``); it is
    for evidence only and is not part of the fingerprint, which hashes the bytes themselves.
    A streamed response (``events``) keeps one chunk per event in ``chunks``, served one by
    one; ``body`` is then their concatenation.
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes = field(repr=False)
    source: str = "json"
    chunks: tuple[bytes, ...] = field(default=(), repr=False)
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.body).hexdigest())

    def definition(self) -> dict[str, JSON]:
        """Portable form for fingerprints: status, headers and the hash and size of the body."""
        return {
            "status": self.status,
            "headers": {name.lower(): _hidden(name, value) for name, value in self.headers},
            "body_sha256": self.sha256,
            "body_bytes": len(self.body),
        }


@dataclass(frozen=True, slots=True)
class Interaction:
    """A declared request and the response it gets."""

    request: ExpectedRequest
    response: CannedResponse

    def definition(self) -> dict[str, JSON]:
        """Portable form for fingerprints."""
        return {"request": self.request.definition(), "response": self.response.definition()}


@dataclass(frozen=True, slots=True)
class ApiFixtures:
    """The HTTP interactions of one case, consumed once each and in declared order.

    Replay is strict: a request that is not the next declared one fails the sample, unless its
    host is listed in ``allow_hosts`` (exact host names) and no declaration targets its
    endpoint. An empty declaration asserts that the agent makes no HTTP request at all.
    ``redact`` holds regular expressions whose matches evidence hides, besides the
    credential names and shapes it always hides; they change what is shown, not what is
    matched, so they are not part of the fingerprint.
    """

    allow_hosts: tuple[str, ...] = ()
    interactions: tuple[Interaction, ...] = ()
    redact: tuple[str, ...] = ()

    def expect_request(
        self,
        method: str,
        url: str,
        *,
        query: Mapping[str, str | Sequence[str]] | None = None,
        json: Any = UNSET,
        headers: Mapping[str, str] | None = None,
        ignore: Sequence[str] | None = None,
        match: BodyMatch = "exact",
    ) -> PendingRequest:
        """Declare the next request; finish it with :meth:`PendingRequest.respond_with`.

        ``query`` values are strings (a list repeats a name); ``json`` asserts the typed JSON
        body (``"1"`` is not ``1``, ``None`` is JSON null) and, when omitted, an empty body;
        ``headers`` are the only headers asserted (names are case-insensitive). ``ignore``
        leaves body paths (``"$.metadata"``) and query parameters (``"query.trace"``) out of
        the comparison; ``match="subset"`` lets the body hold fields ``json`` does not.
        """
        path = f"api[{len(self.interactions)}]"
        request = _request(method, url, query, json, headers, path)
        return PendingRequest(self, _comparing(request, ignore, match, path))

    def definition(self) -> dict[str, JSON]:
        """Portable form: allowed hosts, request assertions, response status, headers, hashes."""
        return {
            "allow_hosts": list(self.allow_hosts),
            "interactions": [interaction.definition() for interaction in self.interactions],
        }

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, base_dir: str | Path | None) -> ApiFixtures:
        """Build fixtures from plain data, as file loaders read it.

        ``data`` has ``interactions`` (a list) and optionally ``allow_hosts`` and ``redact``
        (regular expressions whose matches evidence hides). Each interaction
        is a mapping of ``method``, ``url``, ``query``, ``json``, ``headers`` and a ``response``
        mapping of ``status``, ``headers`` and at most one of ``json``, ``body_file`` or
        ``events`` (none: an empty body).
        Relative ``body_file`` paths resolve against ``base_dir`` (the declaring file's folder).
        """
        if not isinstance(data, Mapping):
            raise SpecError("must be a mapping with interactions and allow_hosts", field="api")
        check_keys(data, _FIXTURE_KEYS, "api")
        items = data.get("interactions", [])
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise SpecError("must be a list of interactions", field="api.interactions")
        _check_recorded(data.get("recorded"))
        fixtures = cls(
            allow_hosts=hosts(data.get("allow_hosts"), "api.allow_hosts"),
            redact=redactions(data.get("redact"), "api.redact"),
        )
        for index, item in enumerate(items):
            fixtures = fixtures._with(_interaction(item, f"api[{index}]", base_dir))
        return fixtures

    def _with(self, interaction: Interaction) -> ApiFixtures:
        return ApiFixtures(self.allow_hosts, (*self.interactions, interaction), self.redact)


@dataclass(frozen=True, slots=True)
class PendingRequest:
    """A declared request still waiting for its response; not usable as fixtures by itself."""

    fixtures: ApiFixtures
    request: ExpectedRequest

    def respond_with(
        self,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        json: Any = UNSET,
        body_file: str | Path | None = None,
        events: Sequence[Mapping[str, Any]] | None = None,
    ) -> ApiFixtures:
        """Give the declared request its response and return the extended fixtures.

        At most one body source (none: an empty body, as a 204 has): inline ``json``
        (``json=None`` serves JSON null), ``body_file``, read now as exact bytes (a relative
        path resolves against the folder of the file that calls this method, never the
        working directory), or ``events``, a streamed ``text/event-stream`` response served
        event by event (``[{"data": {...}}, {"data": "[DONE]"}]``).
        """
        path = f"api[{len(self.fixtures.interactions)}].response"
        base_dir = _caller_dir() if body_file is not None else None
        sources = _Sources(json, body_file, events)
        response = _response(status, headers, sources, base_dir, path)
        return self.fixtures._with(Interaction(self.request, response))


def api(
    *, allow_hosts: Sequence[str] | None = None, redact: Sequence[str] | None = None
) -> ApiFixtures:
    r"""Start the HTTP replay fixtures of a case; pass the result as ``suite.case(api=...)``.

    ``allow_hosts`` lets requests to those exact hosts through to the network (no suffixes,
    no wildcards); it never bypasses a declared request. ``redact`` adds regular expressions
    whose matches the evidence hides (``[r"acct-\d{6}"]``), on top of the credential names
    and shapes always hidden. Declare them once and start each case from the result to
    apply them suite-wide.
    """
    return ApiFixtures(
        allow_hosts=hosts(allow_hosts, "api.allow_hosts"), redact=redactions(redact, "api.redact")
    )


def _request(
    method_name: Any, url: Any, query: Any, json: Any, asserted: Any, path: str
) -> ExpectedRequest:
    base, url_query = split_url(url, f"{path}.url")
    pairs = sorted(url_query + query_pairs(query, f"{path}.query"))
    return ExpectedRequest(
        method=method(method_name, f"{path}.method"),
        url=base,
        query=tuple(pairs),
        json=request_json(json, f"{path}.json"),
        headers=tuple(
            sorted((name.lower(), value) for name, value in headers(asserted, f"{path}.headers"))
        ),
    )


@dataclass(frozen=True, slots=True)
class _Sources:
    """The body sources a response was given; exactly one must be."""

    json: Any = UNSET
    body_file: Any = None
    events: Any = None

    def given(self) -> list[str]:
        found = ["json"] * (not isinstance(self.json, Unset))
        found += ["body_file"] * (self.body_file is not None)
        return found + ["events"] * (self.events is not None)


def _response(
    status_code: Any, declared: Any, sources: _Sources, base_dir: Path | None, path: str
) -> CannedResponse:
    given = sources.given()
    if len(given) > 1:
        raise SpecError(
            "needs at most one body source: json=..., body_file=... or events=...", field=path
        )
    pairs = headers(declared, f"{path}.headers")
    code = status(status_code, f"{path}.status")
    if not given:  # an empty body, as a 204 or a 304 has
        return CannedResponse(code, tuple(pairs), b"", "empty")
    if given[0] == "events":
        return _streamed(code, pairs, events_from(sources.events, f"{path}.events"))
    if not any(name.lower() == "content-type" for name, _ in pairs):
        pairs.append(("Content-Type", "application/json"))
    if given[0] == "json":
        body, source = body_from_json(sources.json, f"{path}.json"), "json"
    else:
        body = body_from_file(sources.body_file, base_dir, f"{path}.body_file")
        source = str(sources.body_file)
    return CannedResponse(code, tuple(pairs), body, source)


def _streamed(
    code: int, pairs: list[tuple[str, str]], events: tuple[StreamEvent, ...]
) -> CannedResponse:
    if not any(name.lower() == "content-type" for name, _ in pairs):
        pairs.append(("Content-Type", EVENT_STREAM))
    chunks = tuple(event.encode() for event in events)
    return CannedResponse(code, tuple(pairs), b"".join(chunks), "events", chunks)


def _comparing(request: ExpectedRequest, ignore: Any, match: Any, path: str) -> ExpectedRequest:
    """The declaration with what its comparison leaves out, each part validated."""
    ignored(ignore, f"{path}.ignore")
    if match not in _BODY_MATCHES:
        raise SpecError(f"{match!r} is not one of 'exact', 'subset'", field=f"{path}.match")
    if match == "subset" and isinstance(request.json, Unset):
        raise SpecError("'subset' compares a JSON body; declare json as well", field=path)
    texts = () if ignore is None else tuple(ignore)
    return replace(request, ignore=texts, match=match)


def _interaction(item: Any, path: str, base_dir: str | Path | None) -> Interaction:
    if not isinstance(item, Mapping):
        raise SpecError("must be a mapping (method, url, ..., response)", field=path)
    check_keys(item, _REQUEST_KEYS, path)
    if "method" not in item or "url" not in item:
        raise SpecError("needs a method and a url", field=path)
    request = _request(
        item["method"],
        item["url"],
        item.get("query"),
        item.get("json", UNSET),
        item.get("headers"),
        path,
    )
    request = _comparing(request, item.get("ignore"), item.get("match", "exact"), path)
    response = item.get("response")
    if not isinstance(response, Mapping):
        raise SpecError(
            "needs a response mapping (status, headers, json or body_file)",
            field=f"{path}.response",
        )
    check_keys(response, _RESPONSE_KEYS, f"{path}.response")
    folder = None if base_dir is None else Path(base_dir)
    sources = _Sources(
        response.get("json", UNSET), response.get("body_file"), response.get("events")
    )
    canned = _response(
        response.get("status", 200), response.get("headers"), sources, folder, f"{path}.response"
    )
    return Interaction(request, canned)


def redact_patterns(value: Any, field: str) -> tuple[str, ...]:
    """Regular expressions whose matches are hidden; each must compile and match some text."""
    return redactions(value, field)


#: What an asserted credential is in a definition: stored, shown and fingerprinted as this.
#: No hash of it (an unsalted one can be tested against guesses; a per-process key would
#: give every run a new fingerprint, and so no baseline), so rotating it is not a new case.
DECLARED_CREDENTIAL = REDACTED


def _hidden(name: str, value: str) -> JSON:
    # Snapshots are stored and shown in reports: an asserted credential never is, whether
    # its name says so (Authorization, password) or its shape does (a key in a URL).
    return DECLARED_CREDENTIAL if is_sensitive_name(name) else hide_credentials(value)


def _hidden_json(value: JSON) -> JSON:
    # Credentials asserted inside a JSON body are kept out of snapshots the same way.
    if isinstance(value, dict):
        return {
            key: _hidden(key, "") if is_sensitive_name(key) else _hidden_json(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_hidden_json(item) for item in value]
    return hide_credentials(value) if isinstance(value, str) else value


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}")


def fixture_file(folder: Path, case_id: str) -> Path:
    """Where a case's recorded fixtures are written and read: ``FOLDER/<case id>.json``.

    A case id that is not a plain file name (a slash, a leading dot, a space, anything
    unusual) becomes a slug plus a short hash of the id, so two ids never share a file and
    no id can point outside the folder.
    """
    if _SAFE_NAME.fullmatch(case_id) and not case_id.endswith("."):
        return folder / f"{case_id}.json"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", case_id).strip("-.")[:60] or "case"
    tag = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return folder / f"{slug}-{tag}.json"


def _check_recorded(value: Any) -> None:
    # Written by a recording to tell an edited file from its own; replay does not read it.
    if value is None:
        return
    if not isinstance(value, Mapping) or not isinstance(value.get("sha256"), str):
        raise SpecError("must be a mapping with the sha256 a recording wrote", field="api.recorded")


def _caller_dir() -> Path | None:
    # Frame 0 is this helper, 1 is respond_with, 2 is the code that declared the response.
    frame = sys._getframe(2)
    filename = frame.f_code.co_filename
    if not Path(filename).is_file():
        filename = frame.f_globals.get("__file__") or ""
    return Path(filename).resolve().parent if filename and Path(filename).is_file() else None
