r"""Redaction of replay evidence: credentials never reach the store or a report.

Three things are hidden:

* values whose *name* looks like a credential (``Authorization``, ``Cookie``, ``api_key``,
  ``x-api-key``, anything ending in ``token`` or ``secret``, ...);
* values whose *shape* is a well-known credential, wherever they appear: ``Bearer …``,
  ``Basic …``, OpenAI-style ``sk-…`` keys, GitHub tokens (``ghp_…``, ``github_pat_…``),
  Slack tokens (``xoxb-…``, ``xapp-…``), JWTs, AWS access key ids (``AKIA…``), Google API keys
  (``AIza…``), Stripe keys (``sk_live_…``, ``rk_…``, ``whsec_…``) and bot tokens in URL paths
  (``/bot123456:AA…/``). A long, high-entropy segment of a URL path counts as one too;
* whatever the suite's own patterns match (``assay.api(redact=[r"acct-\d{6}"])``).

Evidence shows ``[redacted]``. A mismatch between two hidden values says how they differ
without showing either: ``expected [redacted: 40 chars, hmac 1a2b3c4d], got [redacted: 38
chars, hmac 9f8e7d6c]``. The hash is keyed with a secret drawn once per process, so equal
values read the same within a run, yet a stored hash of a short secret cannot be tested
against guesses later.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from assay.spec import JSON
from assay.spec.fixtures import ApiFixtures, is_sensitive_name

#: What a hidden value is replaced with.
REDACTED = "[redacted]"

# A scheme followed by its credential keeps the scheme: "Bearer [redacted]".
_SCHEMED = r"(?i:\b(bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{4,}"
_SHAPES = "|".join((
    r"\bsk-[A-Za-z0-9_-]{8,}",                                  # OpenAI-style keys
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",                            # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",                          # GitHub fine-grained tokens
    r"\bxox[abposre]-[A-Za-z0-9-]{10,}",                        # Slack tokens
    r"\bxapp-[A-Za-z0-9-]{10,}",                                # Slack app tokens
    r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",  # JWTs
    r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA)[A-Z0-9]{16}\b",  # AWS key ids
    r"\bAIza[A-Za-z0-9_-]{35}",                                 # Google API keys
    r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",           # Stripe keys
    r"\bwhsec_[A-Za-z0-9]{16,}",                                # Stripe webhook secrets
    r"(?<=/bot)[0-9]{5,}:[A-Za-z0-9_-]{20,}",                   # bot tokens in URL paths
    r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b",                     # Telegram bot tokens
))
_CREDENTIAL = re.compile(f"{_SCHEMED}|{_SHAPES}")
_HASH_KEY = secrets.token_bytes(32)
_TOKEN_SEGMENT = re.compile(r"[A-Za-z0-9_.~:-]+")
_BOT_SEGMENT = re.compile(r"(?i)(bot)([A-Za-z0-9_.:-]{16,})")


@dataclass(frozen=True, slots=True)
class Redactor:
    """Hides credentials by name, by shape and by the suite's declared ``patterns``.

    With ``describe`` a hidden value is written with its length and a short keyed hash
    (``[redacted: 40 chars, hmac 1a2b3c4d]``), so a mismatch can say that two hidden values
    differ, and how, without showing either.
    """

    patterns: tuple[re.Pattern[str], ...] = ()
    describe: bool = False

    @classmethod
    def of(cls, fixtures: ApiFixtures | None, *, describe: bool = False) -> Redactor:
        """The redactor for one case's fixtures: the shapes plus the patterns it declared."""
        declared = () if fixtures is None else fixtures.redact
        return cls(tuple(re.compile(pattern) for pattern in declared), describe)

    def hidden(self, secret: str) -> str:
        """What a hidden value is shown as."""
        if not self.describe:
            return REDACTED
        digest = hmac.new(_HASH_KEY, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]
        return f"[redacted: {len(secret)} chars, hmac {digest}]"

    def text(self, text: str) -> str:
        """Hide credential-shaped substrings and the suite's patterns in free text."""
        text = _CREDENTIAL.sub(self._mask, text)
        for pattern in self.patterns:
            text = pattern.sub(lambda m: self.hidden(m.group()), text)
        return text

    def value(self, name: str, value: str) -> str:
        """A header or query value as evidence may show it."""
        return self.hidden(value) if is_sensitive_name(name) else self.text(value)

    def headers(self, pairs: Iterable[tuple[str, str]]) -> dict[str, JSON]:
        """Headers as a mapping of lower-cased names, credentials hidden."""
        return {name.lower(): self.value(name, value) for name, value in pairs}

    def json(self, value: JSON) -> JSON:
        """A copy of a JSON document with credential fields and credential strings hidden."""
        if isinstance(value, dict):
            return {key: self._field(key, item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.json(item) for item in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def url(self, base: str, query: Iterable[tuple[str, str]] = ()) -> str:
        """A URL (without its query) with the query re-attached, credentials hidden.

        Path segments are redacted too: a bot token (``/bot<token>/``) and any long,
        high-entropy segment are hidden as well as the known shapes.
        """
        parts = urlsplit(base)
        path = "/".join(self._segment(segment) for segment in parts.path.split("/"))
        shown = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
        pairs = [(name, self.value(name, value)) for name, value in query]
        return f"{shown}?{urlencode(pairs, safe='[]')}" if pairs else shown

    def _field(self, key: str, item: JSON) -> JSON:
        if not is_sensitive_name(key):
            return self.json(item)
        return self.hidden(item if isinstance(item, str) else _compact(item))

    def _segment(self, segment: str) -> str:
        bot = _BOT_SEGMENT.fullmatch(segment)
        if bot is not None:
            token = bot.group(2)
            if looks_random(token, minimum=16) or self.text(token) != token:
                return bot.group(1) + self.hidden(token)
        if looks_random(segment):
            return self.hidden(segment)
        return self.text(segment)

    def _mask(self, match: re.Match[str]) -> str:
        scheme = match.group(1)
        if not scheme:
            return self.hidden(match.group())
        return f"{scheme} {self.hidden(match.group()[len(scheme):].lstrip())}"


def looks_random(token: str, *, minimum: int = 24) -> bool:
    """Whether a token is long and random enough to be a secret rather than a name or an id.

    It must be at least ``minimum`` characters of ``[A-Za-z0-9_.~:-]`` mixing upper case,
    lower case and digits, at 3.5 bits of entropy per character or more. Slugs, numbers,
    UUIDs and hex digests (one case only) are left alone: they are how resources are named.
    """
    if len(token) < minimum or not _TOKEN_SEGMENT.fullmatch(token):
        return False
    mixed = all(any(test(char) for char in token)
                for test in (str.islower, str.isupper, str.isdigit))
    return mixed and _entropy(token) >= 3.5


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _compact(value: JSON) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"))


_PLAIN = Redactor()


def redact_text(text: str) -> str:
    """Hide credential-looking substrings of free text (``Bearer abc…`` → ``Bearer [redacted]``)."""
    return _PLAIN.text(text)


def redact_value(name: str, value: str) -> str:
    """A header or query value as evidence may show it."""
    return _PLAIN.value(name, value)


def redact_headers(pairs: Iterable[tuple[str, str]]) -> dict[str, JSON]:
    """Headers as a mapping of lower-cased names, credentials hidden."""
    return _PLAIN.headers(pairs)


def redact_json(value: JSON) -> JSON:
    """A copy of a JSON document with credential fields and credential-looking strings hidden."""
    return _PLAIN.json(value)


def redact_url(base: str, query: Iterable[tuple[str, str]]) -> str:
    """A URL with its query re-attached, credentials hidden (path segments included)."""
    return _PLAIN.url(base, query)
