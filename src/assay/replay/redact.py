"""Redaction of replay evidence: credentials never reach the store or a report.

Values are hidden when their name looks like a credential (``Authorization``, ``Cookie``,
``api_key``, ``x-api-key``, anything ending in ``token`` or ``secret``, ...) and, wherever
they appear, when the value itself looks like one (``Bearer …``, ``Basic …``, ``sk-…`` keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlencode

from assay.spec import JSON
from assay.spec.fixtures import is_sensitive_name

#: What a hidden value is replaced with.
REDACTED = "[redacted]"

_CREDENTIAL = re.compile(
    r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{4,}"
    r"|\bsk-[A-Za-z0-9_-]{8,}"
)


def redact_text(text: str) -> str:
    """Hide credential-looking substrings of free text (``Bearer abc…`` → ``Bearer [redacted]``)."""
    return _CREDENTIAL.sub(_mask, text)


def redact_value(name: str, value: str) -> str:
    """A header or query value as evidence may show it."""
    return REDACTED if is_sensitive_name(name) else redact_text(value)


def redact_headers(pairs: Iterable[tuple[str, str]]) -> dict[str, JSON]:
    """Headers as a mapping of lower-cased names, credentials hidden."""
    return {name.lower(): redact_value(name, value) for name, value in pairs}


def redact_json(value: JSON) -> JSON:
    """A copy of a JSON document with credential fields and credential-looking strings hidden."""
    if isinstance(value, dict):
        return {key: REDACTED if is_sensitive_name(key) else redact_json(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def redact_url(base: str, query: Iterable[tuple[str, str]]) -> str:
    """A URL with its query re-attached, sensitive parameters hidden."""
    pairs = [(name, redact_value(name, value)) for name, value in query]
    return f"{base}?{urlencode(pairs, safe='[]')}" if pairs else base


def _mask(match: re.Match[str]) -> str:
    scheme = match.group(1)
    return f"{scheme} {REDACTED}" if scheme else REDACTED
