"""Validation of the parts of an HTTP replay fixture; each failure names the field."""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

from assay_agents.errors import SpecError
from assay_agents.limits import MAX_BODY_FILE_BYTES, read_bounded
from assay_agents.spec.json_data import JSON, portable


class Unset(Enum):
    """The type of :data:`UNSET`: "not given", distinct from ``None`` (JSON null)."""

    UNSET = "unset"

    def __repr__(self) -> str:
        return "UNSET"


#: A JSON part that was not given (``None`` would be JSON null).
UNSET: Final = Unset.UNSET

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
# Names whose values are credentials, compared without separators or case.
_SENSITIVE_NAMES = frozenset(
    {
        "auth",
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "session",
        "sessionid",
        "apikey",
        "xapikey",
        "password",
        "passwd",
        "secret",
        "token",
        "key",
        "accesstoken",
        "clientsecret",
        "sig",
        "pwd",
        "pass",
        "passphrase",
        "appid",
        "bearer",
    }
)
_SENSITIVE_SUFFIXES = (
    "token",
    "secret",
    "apikey",
    "password",
    "credential",
    "credentials",
    "signature",
    "cookie",
    "sessionid",
    "privatekey",
    "accesskey",
    "passwd",
    "passphrase",
    "pwd",
    "secretkey",
    "authkey",
    "appkey",
    "subscriptionkey",
    "masterkey",
    "clientkey",
    "licensekey",
    "signingkey",
)
# "db_pass" and "smtp-pass", but not "bypass" or "compass": "pass" as a word of its own.
_PASS_WORD = re.compile(r"(?:^|[^a-z0-9])pass$")
# "auth_key", "Ocp-Apim-Subscription-Key", "privateKey": "key" as the name's last word.
_KEY_WORD = re.compile(r"(?:^|[^A-Za-z0-9]|(?<=[a-z0-9])(?=K))[Kk](?:ey|EY)$")


def is_sensitive_name(name: str) -> bool:
    """Whether a header, query or JSON field name holds a credential (redacted in evidence)."""
    folded = re.sub(r"[^a-z0-9]", "", name.lower())
    return (
        folded in _SENSITIVE_NAMES
        or folded.endswith(_SENSITIVE_SUFFIXES)
        or _PASS_WORD.search(name.lower()) is not None
        or _KEY_WORD.search(name) is not None
    )


def redactions(value: Any, path: str) -> tuple[str, ...]:
    """Regular expressions a suite wants hidden in evidence; each must compile and be non-empty."""
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise SpecError("must be a list of regular expressions", field=path)
    for index, pattern in enumerate(value):
        try:
            compiled = re.compile(pattern) if isinstance(pattern, str) else None
        except re.error as error:
            raise SpecError(
                f"{pattern!r} is not a regular expression: {error}", field=f"{path}[{index}]"
            ) from None
        # A pattern that matches nothing at all would hide an empty string between every
        # character, and a reader could no longer read the evidence.
        if compiled is None or compiled.fullmatch(""):
            raise SpecError(
                f"{pattern!r} must be a regular expression that matches some text",
                field=f"{path}[{index}]",
            )
    return tuple(value)


def check_keys(data: Mapping[str, Any], allowed: frozenset[str], path: str) -> None:
    """Refuse keys a fixture mapping does not have."""
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        raise SpecError(
            f"unknown key(s) {unknown}; expected {', '.join(sorted(allowed))}", field=path
        )


def method(value: Any, path: str) -> str:
    """An HTTP method, upper-cased."""
    if not isinstance(value, str) or not _TOKEN.match(value):
        raise SpecError(f"{value!r} is not an HTTP method such as 'GET'", field=path)
    return value.upper()


def split_url(value: Any, path: str) -> tuple[str, list[tuple[str, str]]]:
    """Normalise an absolute http(s) URL into (``scheme://host[:port]/path``, query pairs)."""
    if not isinstance(value, str):
        raise SpecError("must be an absolute http(s) URL string", field=path)
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise SpecError(f"{value!r} is not an absolute http(s) URL", field=path)
    if parts.fragment:
        raise SpecError("a request URL has no #fragment", field=path)
    try:
        port = parts.port
    except ValueError:
        raise SpecError(f"{value!r} has an invalid port", field=path) from None
    return base_url(scheme, parts.hostname, port, parts.path), parse_qsl(
        parts.query, keep_blank_values=True
    )


def base_url(scheme: str, host: str, port: int | None, url_path: str) -> str:
    """``scheme://host[:port]/path`` with the default port and an empty path normalised."""
    shown = f"[{host}]" if ":" in host else host
    netloc = (
        shown.lower() if port in (None, _DEFAULT_PORTS.get(scheme)) else (f"{shown.lower()}:{port}")
    )
    return f"{scheme}://{netloc}{url_path or '/'}"


def query_pairs(value: Any, path: str) -> list[tuple[str, str]]:
    """(name, value) pairs from a mapping of strings or lists of strings."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise SpecError("must map names to strings or lists of strings", field=path)
    pairs: list[tuple[str, str]] = []
    for name, values in value.items():
        items = values if isinstance(values, list | tuple) else [values]
        for item in items:
            if not isinstance(name, str) or not isinstance(item, str):
                raise SpecError(
                    f"{item!r} is not a string; query values are sent as text, "
                    f"so write {str(item)!r}",
                    field=f"{path}.{name}",
                )
            pairs.append((name, item))
    return pairs


def request_json(value: Any, path: str) -> JSON | Unset:
    """The asserted JSON body, or :data:`UNSET` for "the body must be empty"."""
    return value if isinstance(value, Unset) else portable(value, path)


def headers(value: Any, path: str) -> list[tuple[str, str]]:
    """Header (name, value) pairs; names must be unique regardless of case."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise SpecError("must map header names to strings", field=path)
    seen: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for name, item in value.items():
        if not isinstance(name, str) or not _TOKEN.match(name):
            raise SpecError(f"{name!r} is not a header name", field=path)
        if not isinstance(item, str):
            raise SpecError(f"{item!r} is not a string", field=f"{path}.{name}")
        if name.lower() in seen:
            raise SpecError(f"{name!r} is declared twice (names are case-insensitive)", field=path)
        seen.add(name.lower())
        pairs.append((name, item))
    return pairs


def hosts(value: Any, path: str) -> tuple[str, ...]:
    """Exact host names, lower-cased and sorted: no schemes, ports, suffixes or wildcards."""
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise SpecError("must be a list of host names", field=path)
    for index, host in enumerate(value):
        if not isinstance(host, str) or not _HOST.match(host.lower()):
            raise SpecError(
                f"{host!r} is not an exact host name such as 'api.openai.com' "
                "(no scheme, port, suffix or wildcard)",
                field=f"{path}[{index}]",
            )
    return tuple(sorted({host.lower() for host in value}))


def status(value: Any, path: str) -> int:
    """An HTTP status code in 100..599."""
    if isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 599:
        raise SpecError(f"{value!r} is not an HTTP status code", field=path)
    return value


def body_from_json(value: Any, path: str) -> bytes:
    """Compact UTF-8 JSON bytes of an inline response body (``None`` is JSON null)."""
    document = portable(value, path)
    return jsonlib.dumps(
        document, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def body_from_file(value: Any, base_dir: Path | None, path: str) -> bytes:
    """The exact bytes of a JSON file, checked to be UTF-8 and JSON before any agent runs.

    The file may be anywhere, so it is read like a suite file: a regular file (a FIFO
    would block), at most :data:`~assay_agents.limits.MAX_BODY_FILE_BYTES` long.
    """
    if not isinstance(value, str | Path) or not str(value):
        raise SpecError("must be a file path", field=path)
    file = Path(value)
    if not file.is_absolute():
        if base_dir is None:
            raise SpecError(
                f"cannot resolve {str(value)!r}: the declaring file is unknown; "
                "use an absolute path",
                field=path,
            )
        file = base_dir / file
    try:
        data = read_bounded(file, MAX_BODY_FILE_BYTES, "a replay body_file")
    except SpecError as error:
        raise SpecError(f"cannot read {file}: {error.detail}", field=path) from None
    _check_json_bytes(data, file, path)
    return data


def _check_json_bytes(data: bytes, file: Path, path: str) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecError(
            f"{file} is not valid UTF-8 (byte {data[error.start]:#04x} at offset {error.start})",
            field=path,
        ) from None
    try:
        jsonlib.loads(text, parse_constant=_refuse_constant)
    except ValueError as error:
        raise SpecError(f"{file} is not valid JSON: {error}", field=path) from None
    except RecursionError:
        raise SpecError(f"{file} is nested too deeply to be read", field=path) from None


def _refuse_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")
