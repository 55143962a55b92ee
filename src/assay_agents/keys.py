"""API keys and endpoints of the clients a run makes.

A key is checked before a run starts rather than on every request; an endpoint is named
whole but without its credentials.
"""

from __future__ import annotations


def require_openai_key(who: str, base_url: str | None, api_key: str | None) -> None:
    """Refuse, naming ``OPENAI_API_KEY``, a client of the OpenAI API that has no key.

    An endpoint of one's own (``base_url``, or ``OPENAI_BASE_URL``) may need none.
    """
    import os

    if api_key or base_url or os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return
    from assay_agents.errors import ConfigurationError

    raise ConfigurationError(
        f"{who} calls the OpenAI API and needs a key: set OPENAI_API_KEY "
        "(or pass api_key=, or a base_url for an endpoint of your own)"
    )


#: The port a scheme uses when a URL names none: given or not, it is one endpoint.
_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_url(url: str | None) -> str | None:
    """Where ``url`` sends a request: scheme, host, port and path, and no credential.

    ``HTTP://user:secret@Host:443/v1/?token=x`` is ``http://host:443/v1``: the user, the
    password, the query and the fragment are dropped (they may hold a key), the scheme and
    host are lower-cased, a scheme's default port and a trailing ``/`` are left out. None for
    no URL, or one that names no host.
    """
    if not url:
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    scheme = parts.scheme.lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return f"{scheme}://{host}{parts.path.rstrip('/')}"
