"""Matching an observed request against a declared one, with readable differences.

JSON is compared by type: the string ``"1"`` is not the number ``1``, ``null`` is not
``false`` (numbers compare by value, so ``1`` equals ``1.0``). Query order is insignificant
but repeats count. Only declared headers are asserted, names case-insensitive. A declaration
may leave body paths and query parameters out (``ignore``) and accept fields it does not
name (``match="subset"``); the differences are described the same way either way.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from assay_agents.replay.redact import Redactor
from assay_agents.spec import canonical_json
from assay_agents.spec.credentials import FINGERPRINT, fingerprinted_match
from assay_agents.spec.fixtures import ExpectedRequest, Unset, base_url, is_sensitive_name
from assay_agents.spec.json_paths import Ignored, ignored

#: At most this many differences are listed per request; the rest are counted.
MAX_DIFFERENCES = 12
_SHOWN = 80


@dataclass(frozen=True, slots=True)
class ObservedRequest:
    """A request as the agent's HTTP client sent it, in the form declarations are checked in."""

    method: str
    url: str
    host: str
    query: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: bytes

    @classmethod
    def build(
        cls, method: str, url: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> ObservedRequest:
        """Normalise what an HTTP client hands its transport."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        base = base_url(parts.scheme.lower(), host, parts.port, parts.path)
        query = tuple(parse_qsl(parts.query, keep_blank_values=True))
        pairs = tuple((name.lower(), value) for name, value in headers)
        return cls(method.upper(), base, host, query, pairs, body)

    def header(self, name: str) -> str | None:
        """The value of a header (repeats joined by ``, ``), or ``None`` when absent."""
        values = [value for key, value in self.headers if key == name.lower()]
        return ", ".join(values) if values else None

    def shown_url(self, redactor: Redactor | None = None) -> str:
        """The URL with its query, credentials hidden, for evidence."""
        return (redactor or Redactor()).url(self.url, self.query)


def endpoint_of(request: ObservedRequest) -> tuple[str, str]:
    """(method, url without query), as declarations are routed."""
    return (request.method, _path_key(request.url))


def declared_endpoint(request: ExpectedRequest) -> tuple[str, str]:
    """(method, url without query) of a declaration."""
    return (request.method, _path_key(request.url))


def differences(
    expected: ExpectedRequest, observed: ObservedRequest, redactor: Redactor | None = None
) -> list[str]:
    """Everything that differs, readable and redacted; empty when the request matches.

    Hidden values are described (length and a short hash), so a difference between two
    credentials still reads as one: ``expected [redacted: 40 chars, hmac 1a2b3c4d], …``.
    """
    hide = Redactor(redactor.patterns if redactor else (), describe=True)
    found: list[str] = []
    if expected.method != observed.method:
        found.append(f"method: expected {expected.method}, got {observed.method}")
    if _path_key(expected.url) != _path_key(observed.url):
        found.append(f"url: expected {hide.url(expected.url)}, got {hide.url(observed.url)}")
    left_out = _ignored(expected.ignore)
    found += _query_differences(
        _kept(expected.query, left_out), _kept(observed.query, left_out), hide
    )
    found += _header_differences(expected.headers, observed, hide)
    found += _body_differences(expected, observed.body, hide, left_out)
    if len(found) > MAX_DIFFERENCES:
        extra = len(found) - MAX_DIFFERENCES
        found = [*found[:MAX_DIFFERENCES], f"… and {extra} more difference(s)"]
    return found


def json_equal(expected: Any, actual: Any) -> bool:
    """Typed JSON equality: kinds must agree; numbers compare by value."""
    kind = _kind(expected)
    if kind != _kind(actual):
        return False
    if kind == "object":
        return expected.keys() == actual.keys() and all(
            json_equal(expected[key], actual[key]) for key in expected
        )
    if kind == "array":
        return len(expected) == len(actual) and all(
            json_equal(left, right) for left, right in zip(expected, actual, strict=True)
        )
    return _same(expected, actual)


def _same(expected: Any, actual: Any) -> bool:
    """Equal leaves; a recorded fingerprint stands for a value that hashes the same."""
    if isinstance(expected, str) and isinstance(actual, str):
        found = fingerprinted_match(expected, actual)
        if found is not None:
            return found
    return bool(expected == actual)


def json_differences(
    expected: Any,
    actual: Any,
    path: str = "$",
    hidden: bool = False,
    redactor: Redactor | None = None,
    *,
    subset: bool = False,
) -> list[str]:
    """Where two JSON documents differ, path by path (``$.items[0].id: expected …, got …``).

    With ``subset``, a field ``actual`` has and ``expected`` does not is no difference.
    """
    hide = redactor or Redactor(describe=True)
    kind, other = _kind(expected), _kind(actual)
    if kind != other:
        return [
            f"{path}: expected {_show(expected, hidden, hide)} ({kind}), "
            f"got {_show(actual, hidden, hide)} ({other})"
        ]
    if kind == "object":
        return _object_differences(expected, actual, path, hidden, hide, subset)
    if kind == "array":
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} item(s), got {len(actual)}"]
        return [
            line
            for index, (left, right) in enumerate(zip(expected, actual, strict=True))
            for line in json_differences(
                left, right, f"{path}[{index}]", hidden, hide, subset=subset
            )
        ]
    if not _same(expected, actual):
        return [
            f"{path}: expected {_show(expected, hidden, hide)}, got {_show(actual, hidden, hide)}"
        ]
    return []


def _object_differences(
    expected: dict[str, Any],
    actual: dict[str, Any],
    path: str,
    hidden: bool,
    hide: Redactor,
    subset: bool,
) -> list[str]:
    found: list[str] = []
    for key, value in expected.items():
        secret = hidden or is_sensitive_name(key)
        if key not in actual:
            found.append(f"{path}.{key}: missing (expected {_show(value, secret, hide)})")
        else:
            found += json_differences(
                value, actual[key], f"{path}.{key}", secret, hide, subset=subset
            )
    if subset:
        return found
    found += [
        f"{path}.{key}: not expected "
        f"(got {_show(actual[key], hidden or is_sensitive_name(key), hide)})"
        for key in actual
        if key not in expected
    ]
    return found


def _query_differences(
    expected: tuple[tuple[str, str], ...], actual: tuple[tuple[str, str], ...], hide: Redactor
) -> list[str]:
    wanted, got = Counter(expected), Counter(_as_recorded(expected, actual))
    missing = sorted((wanted - got).elements())
    extra = sorted((got - wanted).elements())
    parts = [f"missing {_pairs(missing, hide)}"] * bool(missing)
    parts += [f"not expected {_pairs(extra, hide)}"] * bool(extra)
    return [f"query: {', '.join(parts)}"] if parts else []


def _as_recorded(
    expected: tuple[tuple[str, str], ...], actual: tuple[tuple[str, str], ...]
) -> list[tuple[str, str]]:
    """``actual`` with each value a recorded fingerprint stands for written as that fingerprint."""
    unclaimed = [pair for pair in expected if fingerprinted_match(pair[1], "") is not None]
    settled: list[tuple[str, str]] = []
    for name, value in actual:
        claim = next(
            (pair for pair in unclaimed if pair[0] == name and _same(pair[1], value)), None
        )
        if claim is not None:
            unclaimed.remove(claim)
        settled.append((name, value) if claim is None else claim)
    return settled


def _header_differences(
    expected: tuple[tuple[str, str], ...], observed: ObservedRequest, hide: Redactor
) -> list[str]:
    found = []
    for name, value in expected:
        actual = observed.header(name)
        shown = _quoted(hide.value(name, value))
        if actual is None:
            found.append(f"header {name}: missing (expected {shown})")
        elif actual != value:
            found.append(
                f"header {name}: expected {shown}, got {_quoted(hide.value(name, actual))}"
            )
    return found


def _quoted(shown: str) -> str:
    # A described secret reads better bare than inside quotes: it is not the value.
    return shown if shown.startswith("[redacted") else repr(shown)


def _body_differences(
    request: ExpectedRequest, body: bytes, hide: Redactor, left_out: Ignored
) -> list[str]:
    expected = request.json
    if isinstance(expected, Unset):
        return [] if not body else [f"body: expected an empty body, got {len(body)} byte(s)"]
    if not body:
        return [f"body: expected JSON {_show(expected, False, hide)}, got an empty body"]
    try:
        actual = json.loads(body.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError):
        return [f"body: expected JSON, got {len(body)} byte(s) that are not JSON"]
    found = json_differences(
        left_out.body_without(expected),
        left_out.body_without(actual),
        redactor=hide,
        subset=request.match == "subset",
    )
    return [f"json {line}" for line in found]


@functools.lru_cache(maxsize=256)
def _ignored(texts: tuple[str, ...]) -> Ignored:
    # Validated when declared; parsed again here, once per distinct list.
    return ignored(texts, "ignore")


def _kept(pairs: tuple[tuple[str, str], ...], left_out: Ignored) -> tuple[tuple[str, str], ...]:
    return tuple(pair for pair in pairs if pair[0] not in left_out.query)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _pairs(pairs: list[tuple[str, str]], hide: Redactor) -> str:
    return ", ".join(f"{name}={hide.query_value(name, value)}" for name, value in pairs)


def _path_key(url: str) -> str:
    # Percent-encoding is not meaning: /a%20b and /a b name the same path.
    return unquote(url)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show(value: Any, hidden: bool, hide: Redactor) -> str:
    if isinstance(value, str) and FINGERPRINT.fullmatch(value):
        return value  # a recording's fingerprint hides its value already
    if hidden:
        return hide.hidden(value if isinstance(value, str) else canonical_json(value))
    text = canonical_json(hide.json(value))
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}…"
