"""API keys a client needs, checked before a run starts rather than on every request."""

from __future__ import annotations


def require_openai_key(who: str, base_url: str | None, api_key: str | None) -> None:
    """Refuse, naming ``OPENAI_API_KEY``, a client of the OpenAI API that has no key.

    An endpoint of one's own (``base_url``, or ``OPENAI_BASE_URL``) may need none.
    """
    import os

    if api_key or base_url or os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return
    from assay.errors import ConfigurationError

    raise ConfigurationError(
        f"{who} calls the OpenAI API and needs a key: set OPENAI_API_KEY "
        "(or pass api_key=, or a base_url for an endpoint of your own)"
    )
