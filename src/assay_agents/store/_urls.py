"""Database URLs: the default, normalisation, and redaction for messages."""

from __future__ import annotations

import re
from pathlib import Path

# SQLAlchemy is imported where a URL is parsed: redacting one (`assay-agents --version`) needs none.

#: The embedded history database, relative to the current working directory.
DEFAULT_URL = "sqlite:///.assay/assay.db"

_MASK = "***"
#: A query value libpq reads as a secret: ``password``, ``sslpassword`` and the like.
_QUERY_PASSWORD = re.compile(r"([?&][^=&#]*password[^=&#]*=)[^&#]*", re.IGNORECASE)
_POSTGRES_SCHEMES = ("postgres://", "postgresql://")


def normalise(url: str) -> str:
    """Select psycopg 3 for plain PostgreSQL URLs; everything else is kept as given."""
    for scheme in _POSTGRES_SCHEMES:
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


def redact(url: str) -> str:
    """Hide the URL's password, so it can be printed in messages and logs.

    Read without a URL parser, so that a malformed URL (an unescaped ``@``, ``:``, ``?`` or
    ``#`` in the password) hides all of its password too: the user information ends at the
    last ``@`` of the URL, and everything after its first ``:`` is masked (too much, rather
    than too little, when a query holds an ``@``).

    >>> redact("postgresql://ann:secret@db/assay")
    'postgresql://ann:***@db/assay'
    >>> redact("postgresql://ann:p@ss:w@rd@db/assay")
    'postgresql://ann:***@db/assay'
    >>> redact("postgresql://ann@db/assay?sslpassword=key&sslmode=require")
    'postgresql://ann@db/assay?sslpassword=***&sslmode=require'
    """
    # libpq also accepts ?password=... and ?sslpassword=... (a client key's passphrase)
    return _QUERY_PASSWORD.sub(rf"\g<1>{_MASK}", _mask_userinfo(url))


def _mask_userinfo(url: str) -> str:
    found = _userinfo(url)
    if found is None:
        return url
    start, end = found
    user, colon, _password = url[start:end].partition(":")
    if not colon:
        return url
    return f"{url[:start]}{user}:{_MASK}{url[end:]}"


def _userinfo(url: str) -> tuple[int, int] | None:
    """Where the user information (``user:password``) lies, read as :func:`redact` reads it."""
    start = url.find("://")
    if start < 0:
        return None
    start += 3
    end = url.rfind("@", start)
    return None if end < 0 else (start, end)


def ambiguous_password(url: str) -> bool:
    """Whether a URL parser would read a password other than the one the user typed.

    An unescaped ``@``, ``?``, ``#`` or ``/`` in a password moves where the host seems to
    begin, and the driver's own error would then quote the rest of the password as a host.
    """
    from urllib.parse import unquote

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    found = _userinfo(url)
    if found is None:
        return False
    _user, colon, typed = url[found[0] : found[1]].partition(":")
    if not colon:
        return False
    try:
        parsed = make_url(url).password
    except (ArgumentError, ValueError):
        return True
    return parsed != unquote(typed)


def scrub(text: str, url: str) -> str:
    """Remove the URL's passwords from ``text`` (a driver message may quote them)."""
    for password in _passwords(url):
        text = text.replace(password, _MASK)
    return text


def _passwords(url: str) -> list[str]:
    """The URL's password and every query value :func:`redact` masks, longest first."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return []
    found = [parsed.password] if isinstance(parsed.password, str) else []
    for key, value in parsed.query.items():
        if "password" in key.lower():
            found.extend([value] if isinstance(value, str) else value)
    return sorted({value for value in found if value}, key=len, reverse=True)


def refuse_unusable(url: str) -> None:
    """Refuse, with :class:`~assay_agents.errors.ConfigurationError`, a URL the store cannot use.

    A URL that is not one, one whose password a parser would misread, or an in-memory
    database that would keep nothing.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from assay_agents.errors import ConfigurationError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise ConfigurationError(
            f"{redact(url)!r} is not a database URL; use e.g. "
            "sqlite:///path/to/assay.db or "
            "postgresql://user@host/dbname"
        ) from None
    if ambiguous_password(url):
        raise ConfigurationError(
            f"cannot use database {redact(url)}: its password holds a character that must be "
            "percent-encoded in a URL (@ as %40, : as %3A, / as %2F, ? as %3F, # as %23)"
        )
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise ConfigurationError(
            "an in-memory SQLite database keeps no history; give a file, e.g. sqlite:///assay.db"
        )


def sqlite_path(url: str) -> Path | None:
    """Return the file behind a SQLite URL (``None`` for other or in-memory databases)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)
