"""Credential shapes: what a value looks like when it is a key, a token or a password.

Shared by the case definitions (an asserted credential is never stored, shown or
fingerprinted) and by replay evidence (:mod:`assay.replay.redact`), so both hide the same
things. :func:`hide_credentials` replaces each with whatever ``hidden`` makes of it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

__all__ = [
    "AWS_SECRET_LENGTH",
    "CREDENTIAL",
    "DSN_PASSWORD",
    "PASSWORD_ASSIGNMENT",
    "REDACTED",
    "hide_credentials",
    "is_aws_secret",
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


def hide_credentials(text: str, hidden: Callable[[str], str] = lambda _: REDACTED) -> str:
    """``text`` with every credential shape, URL password and AWS secret key hidden."""

    def masked(match: re.Match[str]) -> str:
        scheme = match.group(1)
        if not scheme:
            return hidden(match.group())
        return f"{scheme} {hidden(match.group()[len(scheme) :].lstrip())}"

    text = CREDENTIAL.sub(masked, text)
    text = DSN_PASSWORD.sub(lambda m: f"{m.group(1)}:{hidden(m.group(2))}", text)
    text = PASSWORD_ASSIGNMENT.sub(lambda m: m.group(1) + hidden(m.group(2)), text)
    return _AWS_SECRET.sub(
        lambda m: hidden(m.group()) if is_aws_secret(m.group()) else m.group(), text
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
