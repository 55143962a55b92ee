"""Matching an observed request against a declared one, with readable differences.

JSON is compared by type: the string ``"1"`` is not the number ``1``, ``null`` is not
``false`` (numbers compare by value, so ``1`` equals ``1.0``). Query order is insignificant
but repeats count. Only declared headers are asserted, names case-insensitive.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from assay.replay.redact import Redactor
from assay.spec import JSON, canonical_json
from assay.spec.fixtures import ExpectedRequest, Unset, base_url, is_sensitive_name

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
    found += _query_differences(expected.query, observed.query, hide)
    found += _header_differences(expected.headers, observed, hide)
    found += _body_differences(expected.json, observed.body, hide)
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
    return bool(expected == actual)


def json_differences(
    expected: Any,
    actual: Any,
    path: str = "$",
    hidden: bool = False,
    redactor: Redactor | None = None,
) -> list[str]:
    """Where two JSON documents differ, path by path (``$.items[0].id: expected …, got …``)."""
    hide = redactor or Redactor(describe=True)
    kind, other = _kind(expected), _kind(actual)
    if kind != other:
        return [
            f"{path}: expected {_show(expected, hidden, hide)} ({kind}), "
            f"got {_show(actual, hidden, hide)} ({other})"
        ]
    if kind == "object":
        return _object_differences(expected, actual, path, hidden, hide)
    if kind == "array":
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} item(s), got {len(actual)}"]
        return [
            line
            for index, (left, right) in enumerate(zip(expected, actual, strict=True))
            for line in json_differences(left, right, f"{path}[{index}]", hidden, hide)
        ]
    if expected != actual:
        return [
            f"{path}: expected {_show(expected, hidden, hide)}, got {_show(actual, hidden, hide)}"
        ]
    return []


def _object_differences(
    expected: dict[str, Any], actual: dict[str, Any], path: str, hidden: bool, hide: Redactor
) -> list[str]:
    found: list[str] = []
    for key, value in expected.items():
        secret = hidden or is_sensitive_name(key)
        if key not in actual:
            found.append(f"{path}.{key}: missing (expected {_show(value, secret, hide)})")
        else:
            found += json_differences(value, actual[key], f"{path}.{key}", secret, hide)
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
    wanted, got = Counter(expected), Counter(actual)
    missing = sorted((wanted - got).elements())
    extra = sorted((got - wanted).elements())
    parts = [f"missing {_pairs(missing, hide)}"] * bool(missing)
    parts += [f"not expected {_pairs(extra, hide)}"] * bool(extra)
    return [f"query: {', '.join(parts)}"] if parts else []


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


def _body_differences(expected: JSON | Unset, body: bytes, hide: Redactor) -> list[str]:
    if isinstance(expected, Unset):
        return [] if not body else [f"body: expected an empty body, got {len(body)} byte(s)"]
    if not body:
        return [f"body: expected JSON {_show(expected, False, hide)}, got an empty body"]
    try:
        actual = json.loads(body.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError):
        return [f"body: expected JSON, got {len(body)} byte(s) that are not JSON"]
    return [f"json {line}" for line in json_differences(expected, actual, redactor=hide)]


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
    if hidden:
        return hide.hidden(value if isinstance(value, str) else canonical_json(value))
    text = canonical_json(hide.json(value))
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}…"
