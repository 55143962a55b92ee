"""Credential shapes: what a value looks like when it is a key, a token or a password.

Shared by the case definitions (an asserted credential is never stored, shown or
fingerprinted) and by replay evidence (:mod:`assay_agents.replay.redact`), so both hide the same
things. :func:`hide_credentials` replaces each with whatever ``hidden`` makes of it.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

__all__ = [
    "AWS_SECRET_LENGTH",
    "CREDENTIAL",
    "DSN_PASSWORD",
    "FINGERPRINT",
    "PASSWORD_ASSIGNMENT",
    "REDACTED",
    "SECRET_VARIABLE",
    "environment_secrets",
    "fingerprint",
    "fingerprinted_match",
    "hide_credentials",
    "is_aws_secret",
    "is_hex_key",
    "looks_random",
]

#: What a hidden value is replaced with.
REDACTED = "[redacted]"

# A scheme followed by its credential keeps the scheme: "Bearer [redacted]".
_SCHEMED = r"(?i:\b(bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{4,}"
_SHAPES = "|".join(
    (
        r"\bsk-[A-Za-z0-9_-]{8,}",  # OpenAI-style keys
        r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
        r"\bgithub_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained tokens
        r"\bxox[abposre]-[A-Za-z0-9-]{10,}",  # Slack tokens
        r"\bxapp-[A-Za-z0-9-]{10,}",  # Slack app tokens
        r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",  # JWTs
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA)[A-Z0-9]{16}\b",  # AWS key ids
        r"\bAIza[A-Za-z0-9_-]{35}",  # Google API keys
        r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe keys
        r"\bwhsec_[A-Za-z0-9]{16,}",  # Stripe webhook secrets
        r"(?<=/bot)[0-9]{5,}:[A-Za-z0-9_-]{20,}",  # bot tokens in URL paths
        r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b",  # Telegram bot tokens
        r"\bgl(?:pat|ptt|dt)-[A-Za-z0-9_-]{20,}",  # GitLab personal, trigger, deploy
        r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face tokens
        r"\bnpm_[A-Za-z0-9]{36}\b",  # npm tokens
        r"\bSK[0-9a-fA-F]{32}\b",  # Twilio API key sids
    )
)
#: A well-known credential shape; group 1 is the scheme of ``Bearer …``-like ones.
CREDENTIAL = re.compile(f"{_SCHEMED}|{_SHAPES}")
#: The password of a URL's user info (``postgres://user:password@host``): group 1 is the
#: user, who stays, group 2 the password. The user info ends at the *last* ``@`` before the
#: host, so a password holding ``@`` is hidden whole.
DSN_PASSWORD = re.compile(
    r"(?<=[A-Za-z0-9+.-]://)([^\s/:@]*):([^\s/]+)(?=@[^\s/@?#]*(?:[\s/?#]|$))"
)
#: A password assigned in free text (``password=…``, ``Pwd=…;``, ``db_pass=…``): group 1 is
#: the name and the ``=``, which stay, group 2 the value. "bypass=" is not one.
PASSWORD_ASSIGNMENT = re.compile(
    r"(?i)((?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-])*(?:password|passwd|passphrase|pass|pwd)\s*=\s*)"
    r"('[^']*'|\"[^\"]*\"|[^\s;&,'\"]+)"
)
#: An AWS secret access key is 40 characters of base64, ``/`` and ``+`` included, so a URL
#: path splits it into segments each too short to look random.
AWS_SECRET_LENGTH = 40
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_TOKEN_SEGMENT = re.compile(r"[A-Za-z0-9_.~:-]+")
#: A run of 32 or more hexadecimal digits: an Azure, OpenWeather or similar key (or a digest).
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])")
#: Environment variable names whose values are secrets, wherever those values would appear.
SECRET_VARIABLE = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|DATABASE_URL", re.IGNORECASE
)
#: Shorter values (``1``, ``on``) and these words are settings, not credentials; masking
#: them would garble every text that holds them.
_SHORTEST_SECRET = 4
_NOT_SECRETS = frozenset({"true", "false", "none", "null", "auto"})
#: How a recording writes a hidden request value: the start of its SHA-256, so a replay can
#: tell whether the live value is the same one without the file holding it.
FINGERPRINT = re.compile(r"(\[redacted sha256:[0-9a-f]{16}\])")


def hide_credentials(
    text: str, hidden: Callable[[str], str] = lambda _: REDACTED, *, hex_keys: bool = True
) -> str:
    """``text`` with every credential shape, URL password and AWS secret key hidden.

    With ``hex_keys``, a run of 32 or more hexadecimal digits mixing letters and digits is
    hidden too (URL paths leave it: a digest is how many resources are named).
    """

    def masked(match: re.Match[str]) -> str:
        scheme = match.group(1)
        if not scheme:
            return hidden(match.group())
        return f"{scheme} {hidden(match.group()[len(scheme) :].lstrip())}"

    text = CREDENTIAL.sub(masked, text)
    text = DSN_PASSWORD.sub(lambda m: f"{m.group(1)}:{hidden(m.group(2))}", text)
    text = PASSWORD_ASSIGNMENT.sub(lambda m: m.group(1) + hidden(m.group(2)), text)
    text = _AWS_SECRET.sub(
        lambda m: hidden(m.group()) if is_aws_secret(m.group()) else m.group(), text
    )
    if not hex_keys:
        return text
    return _HEX_RUN.sub(lambda m: hidden(m.group()) if is_hex_key(m.group()) else m.group(), text)


def is_hex_key(text: str) -> bool:
    """Whether ``text`` is 32 or more hexadecimal digits mixing letters and digits."""
    return (
        _HEX_RUN.fullmatch(text) is not None
        and any(char.isdigit() for char in text)
        and any(char.isalpha() for char in text)
        and _entropy(text.lower()) >= 3.0
    )


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of secret-looking environment variables (and passwords in their URLs).

    A variable counts when its name holds KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL,
    AUTH or DATABASE_URL; values shorter than four characters and words such as ``true``
    are settings, not secrets. Longest first, so a secret holding another is hidden whole.
    """
    found: set[str] = set()
    for name, value in (os.environ if environ is None else environ).items():
        if not SECRET_VARIABLE.search(name):
            continue
        found.add(value)
        password = urlsplit(value).password if "://" in value else None
        if password:
            found.add(password)
    kept = (s for s in found if len(s) >= _SHORTEST_SECRET and s.lower() not in _NOT_SECRETS)
    return sorted(kept, key=len, reverse=True)


def fingerprint(secret: str) -> str:
    """A hidden request value as a recording writes it: ``[redacted sha256:<16 hex>]``."""
    hashed = hashlib.sha256(b"assay-redacted\0" + secret.encode("utf-8")).hexdigest()
    return f"[redacted sha256:{hashed[:16]}]"


def fingerprinted_match(expected: str, actual: str) -> bool | None:
    """Whether ``actual`` is ``expected`` with each fingerprint standing for its value.

    None when ``expected`` holds no fingerprint (compare the strings as they are). The text
    around the fingerprints must be equal, and each hidden part must hash the same.
    """
    parts = FINGERPRINT.split(expected)
    if len(parts) == 1:
        return None
    literals, markers = parts[0::2], parts[1::2]
    pattern = "(.+?)".join(re.escape(literal) for literal in literals)
    found = re.fullmatch(pattern, actual, re.DOTALL)
    if found is None:
        return False
    return all(
        fingerprint(value) == marker for value, marker in zip(found.groups(), markers, strict=True)
    )


def is_aws_secret(text: str) -> bool:
    """Whether ``text`` is shaped like an AWS secret access key and looks random."""
    # Only a random-looking run: a 40-character path of words stays readable.
    return (
        len(text) == AWS_SECRET_LENGTH
        and _AWS_SECRET.fullmatch(text) is not None
        and looks_random(text.replace("/", "_").replace("+", "-"), minimum=AWS_SECRET_LENGTH)
    )


def looks_random(token: str, *, minimum: int = 24) -> bool:
    """Whether a token is long and random enough to be a secret rather than a name or an id.

    It must be at least ``minimum`` characters of ``[A-Za-z0-9_.~:-]`` mixing upper case,
    lower case and digits, at 3.5 bits of entropy per character or more. Slugs, numbers,
    UUIDs and hex digests (one case only) are left alone: they are how resources are named.
    """
    if len(token) < minimum or not _TOKEN_SEGMENT.fullmatch(token):
        return False
    mixed = all(
        any(test(char) for char in token) for test in (str.islower, str.isupper, str.isdigit)
    )
    return mixed and _entropy(token) >= 3.5


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
