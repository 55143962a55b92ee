r"""Redaction of replay evidence: credentials never reach the store or a report.

Three things are hidden:

* values whose *name* looks like a credential (``Authorization``, ``Cookie``, ``api_key``,
  ``x-api-key``, ``secret_key``, anything ending in ``token`` or ``secret``, a name whose
  last word is ``key``, ``appid``, ``bearer``, ...); under such a name every string is
  hidden, while true, false, numbers and null stay;
* the values of secret-looking environment variables
  (:func:`~assay_agents.spec.credentials.environment_secrets`), wherever they appear;
* values whose *shape* is a well-known credential, wherever they appear: ``Bearer …``,
  ``Basic …``, OpenAI-style ``sk-…`` keys, GitHub tokens (``ghp_…``, ``github_pat_…``),
  GitLab (``glpat-…``, ``glptt-…``, ``gldt-…``), Hugging Face (``hf_…``) and npm
  (``npm_…``) tokens, Twilio key sids (``SK…``), Slack tokens (``xoxb-…``, ``xapp-…``),
  JWTs, AWS access key ids (``AKIA…``) and secret keys (40 random characters, ``/``
  included), Google API keys (``AIza…``),
  Stripe keys (``sk_live_…``, ``rk_…``, ``whsec_…``), the password of a URL
  (``postgres://user:[redacted]@host``, up to the last ``@``), a password assigned in
  free text (``password=…``, ``Pwd=…;``, ``db_pass=…``) and bot tokens in URL paths
  (``/bot123456:AA…/``), and runs of 32 or more hexadecimal digits mixing letters and
  digits (outside URL paths). A long, high-entropy segment of a URL path counts as one too;
* OAuth ``code`` and ``state`` values in a query, when they look like a token (8 or more
  characters mixing letters and digits);
* whatever the suite's own patterns match (``assay.api(redact=[r"acct-\d{6}"])``, or a
  run's ``record_redact``).

Evidence shows ``[redacted]``; a recording writes a hidden request value as its fingerprint
(:func:`~assay_agents.spec.credentials.fingerprint`) so a replay still compares it. A mismatch
between two hidden values says how they differ without showing either: ``expected
[redacted: 40 chars, hmac 1a2b3c4d], got [redacted: 38 chars, hmac 9f8e7d6c]``. The hash is
keyed with a secret drawn once per process, so equal values read the same within a run, yet
a stored hash of a short secret cannot be tested against guesses later.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from assay_agents.spec import JSON
from assay_agents.spec.credentials import (
    AWS_SECRET_LENGTH,
    DSN_PASSWORD,
    FINGERPRINT,
    REDACTED,
    environment_secrets,
    fingerprint,
    hide_credentials,
    is_aws_secret,
    looks_random,
)
from assay_agents.spec.fixtures import ApiFixtures, is_sensitive_name

__all__ = [
    "QUERY_CREDENTIALS",
    "REDACTED",
    "Redactor",
    "looks_random",
    "redact_headers",
    "redact_json",
    "redact_text",
    "redact_url",
    "redact_value",
]

#: Query parameters that hold an OAuth authorization code or its CSRF state: credentials in
#: a query, though ``code`` in a JSON body is usually an error code.
QUERY_CREDENTIALS = frozenset({"code", "state"})
_HASH_KEY = secrets.token_bytes(32)
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
    #: Values hidden wherever they appear, as substrings too (secret environment variables).
    secrets: tuple[str, ...] = ()
    #: Write each hidden value as its fingerprint (``[redacted sha256:…]``), as a recording
    #: does, so a replay still compares it.
    fingerprints: bool = False

    @classmethod
    def of(
        cls, fixtures: ApiFixtures | None, *, describe: bool = False, fingerprints: bool = False
    ) -> Redactor:
        """The redactor for one case's fixtures.

        It hides the shapes, the secret environment values and the patterns declared.
        """
        declared = () if fixtures is None else fixtures.redact
        patterns = tuple(re.compile(pattern) for pattern in declared)
        return cls(patterns, describe, tuple(environment_secrets()), fingerprints)

    def hidden(self, secret: str) -> str:
        """What a hidden value is shown as."""
        if self.fingerprints:
            return fingerprint(secret)
        if not self.describe:
            return REDACTED
        digest = hmac.new(_HASH_KEY, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]
        return f"[redacted: {len(secret)} chars, hmac {digest}]"

    def text(self, text: str, *, hex_keys: bool = True) -> str:
        """Hide secret values, credential-shaped substrings and the suite's patterns in text.

        Only the hidden part is replaced; the rest of the text stays as it was, and so does
        a recording's fingerprint (``[redacted sha256:…]``) already in it.
        """
        if FINGERPRINT.search(text) is not None:
            pieces = FINGERPRINT.split(text)
            return "".join(
                self._text(piece, hex_keys) if index % 2 == 0 else piece
                for index, piece in enumerate(pieces)
            )
        return self._text(text, hex_keys)

    def _text(self, text: str, hex_keys: bool) -> str:
        if self.secrets and any(secret in text for secret in self.secrets):
            # One pass, longest first: a fingerprint already written is never searched again.
            alternatives = "|".join(re.escape(secret) for secret in self.secrets)
            text = re.sub(alternatives, lambda m: self.hidden(m.group()), text)
        text = hide_credentials(text, self.hidden, hex_keys=hex_keys)
        for pattern in self.patterns:
            text = pattern.sub(lambda m: self.hidden(m.group()), text)
        return text

    def value(self, name: str, value: str) -> str:
        """A header or query value as evidence may show it."""
        return self.hidden(value) if is_sensitive_name(name) else self.text(value)

    def query_value(self, name: str, value: str) -> str:
        """A query parameter's value as evidence may show it (OAuth ``code``/``state`` too)."""
        if name.lower() in QUERY_CREDENTIALS and _random(value):
            return self.hidden(value)
        return self.value(name, value)

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
        segments = self._aws_segments(parts.path.split("/"))
        path = "/".join(self._segment(segment) for segment in segments)
        netloc = DSN_PASSWORD.sub(
            lambda m: f"{m.group(1)}:{self.hidden(m.group(2))}", f"{parts.scheme}://{parts.netloc}"
        )[len(parts.scheme) + 3 :]
        shown = urlunsplit((parts.scheme, netloc, path, "", ""))
        pairs = [(name, self.query_value(name, value)) for name, value in query]
        return f"{shown}?{urlencode(pairs, safe='[]')}" if pairs else shown

    def _field(self, key: str, item: JSON) -> JSON:
        if not is_sensitive_name(key):
            return self.json(item)
        return self._all_strings(item)

    def _all_strings(self, item: JSON) -> JSON:
        # Under a credential's name every string is hidden; true, 0 and null say nothing
        # secret and stay, so a replayed response still holds the same data.
        if isinstance(item, str):
            return self.hidden(item)
        if isinstance(item, dict):
            return {key: self._all_strings(value) for key, value in item.items()}
        if isinstance(item, list):
            return [self._all_strings(value) for value in item]
        return item

    def _segment(self, segment: str) -> str:
        bot = _BOT_SEGMENT.fullmatch(segment)
        if bot is not None:
            token = bot.group(2)
            if looks_random(token, minimum=16) or self.text(token) != token:
                return bot.group(1) + self.hidden(token)
        if looks_random(segment):
            return self.hidden(segment)
        return self.text(segment, hex_keys=False)

    def _aws_segments(self, segments: list[str]) -> list[str]:
        """Path segments with an AWS secret key that spans several of them hidden."""
        shown: list[str] = []
        index = 0
        while index < len(segments):
            found = self._aws_run(segments, index)
            if found is None:
                shown.append(segments[index])
                index += 1
                continue
            prefix, end, key = found
            shown.append(prefix + self.hidden(key))
            index = end
        return shown

    @staticmethod
    def _aws_run(segments: list[str], start: int) -> tuple[str, int, str] | None:
        """(prefix, end, key) when segments[start:end] spell a key (after a ``bot`` prefix)."""
        first = segments[start]
        for prefix in ("", "bot") if first.lower().startswith("bot") else ("",):
            joined, end = first[len(prefix) :], start + 1
            while len(joined) < AWS_SECRET_LENGTH and end < len(segments):
                joined, end = f"{joined}/{segments[end]}", end + 1
            if is_aws_secret(joined):
                return first[: len(prefix)], end, joined
        return None


def _random(value: str) -> bool:
    # "state=shipped" and "code=US" are data; an OAuth code or state is a token: 8 or more
    # characters mixing letters and digits.
    return len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


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
