"""Which provider a judge's model is sent to, from the model's name and the credentials set.

* An unpinned judge (no model) takes the first configured provider in the order Anthropic,
  OpenAI, OpenRouter, Ollama, with that provider's default judge model.
* A pinned native name selects its native provider: ``gpt-5-mini`` OpenAI, ``claude-haiku-4-5``
  Anthropic, ``llama3.2:3b`` (``name:tag``) Ollama. Adding an unrelated key never changes it.
* A provider-qualified pin selects that provider and sends the rest as the model:
  ``openai/my-deployment``, ``ollama/llama3.2``, ``openrouter/anthropic/claude-haiku-4.5``.
  A vendor id (``meta-llama/llama-3.3-70b-instruct``) selects OpenRouter.
* Any other bare name goes to the first configured provider.
* A route whose provider is not configured is a :class:`ConfigurationError` naming what to
  set; a judge never falls back to another provider.

A provider is configured by its environment: ``ANTHROPIC_API_KEY``; ``OPENAI_API_KEY`` or
``OPENAI_BASE_URL``; ``OPENROUTER_API_KEY``; ``OLLAMA_HOST``. Each endpoint may be moved with
``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``, ``OPENROUTER_BASE_URL`` or ``OLLAMA_HOST``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay_agents.errors import ConfigurationError


@dataclass(frozen=True, slots=True)
class Provider:
    """How one provider is reached: its variables, its default endpoint and judge model."""

    name: str
    title: str
    key: str | None
    base_variable: str
    default_base: str
    default_model: str

    def configured(self, environ: Mapping[str, str]) -> bool:
        """Whether the environment gives this provider credentials (or, keyless, a host)."""
        variables = [self.key] if self.key else []
        if self.name in {"openai", "ollama"}:
            variables.append(self.base_variable)  # a local endpoint may need no key
        return any(environ.get(name, "").strip() for name in variables if name)

    def base_url(self, environ: Mapping[str, str]) -> str:
        """The OpenAI-compatible endpoint of this provider."""
        base = environ.get(self.base_variable, "").strip() or self.default_base
        if self.name == "ollama" and not base.rstrip("/").endswith("/v1"):
            base = base.rstrip("/") + "/v1"  # OLLAMA_HOST names the server, not its API
        return base


#: The order an unpinned judge tries the providers in.
PROVIDERS = (
    Provider(
        "anthropic",
        "Anthropic",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "https://api.anthropic.com/v1/",
        "claude-haiku-4-5",
    ),
    Provider(
        "openai",
        "OpenAI",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "https://api.openai.com/v1",
        "gpt-4.1-mini",
    ),
    Provider(
        "openrouter",
        "OpenRouter",
        "OPENROUTER_API_KEY",
        "OPENROUTER_BASE_URL",
        "https://openrouter.ai/api/v1",
        "openai/gpt-4.1-mini",
    ),
    Provider("ollama", "Ollama", None, "OLLAMA_HOST", "http://localhost:11434/v1", "llama3.2"),
)
_BY_NAME = {provider.name: provider for provider in PROVIDERS}


@dataclass(frozen=True, slots=True)
class JudgeRoute:
    """Where a judge's calls go: the provider, the model sent, the endpoint and its key."""

    provider: str
    model: str
    base_url: str
    api_key: str | None
    label: str


def configured_providers(environ: Mapping[str, str]) -> list[Provider]:
    """The providers the environment configures, in the unpinned judge's order."""
    return [provider for provider in PROVIDERS if provider.configured(environ)]


def route_judge(model: str | None, environ: Mapping[str, str]) -> JudgeRoute | None:
    """The route of a judge of ``model`` (``None``: unpinned).

    ``None`` when unpinned and no provider is configured: judge criteria are then not
    calculated.
    """
    configured = configured_providers(environ)
    if model is None or not model.strip():
        if not configured:
            return None
        first = configured[0]
        return _route(first, first.default_model, environ, f"{first.name}/{first.default_model}")
    name = model.strip()
    provider, sent = _pinned(name)
    if provider is None:
        if not configured:
            raise ConfigurationError(_nothing_configured(name))
        return _route(configured[0], sent, environ, name)
    chosen = _BY_NAME[provider]
    if not chosen.configured(environ):
        raise ConfigurationError(_missing_route(name, chosen, configured))
    return _route(chosen, sent, environ, name)


def _pinned(name: str) -> tuple[str | None, str]:
    """The provider a pin names or implies (``None``: a bare custom name) and the model sent."""
    head, _, rest = name.partition("/")
    if rest and head.lower() in _BY_NAME:
        return head.lower(), rest
    if rest:
        return "openrouter", name  # a vendor id: OpenRouter's own naming
    lowered = name.lower()
    if lowered.startswith("claude-"):
        return "anthropic", name
    if lowered.startswith(("gpt-", "o1", "o3", "o4", "chatgpt-")):
        return "openai", name
    if ":" in name:
        return "ollama", name
    return None, name


def _route(provider: Provider, model: str, environ: Mapping[str, str], label: str) -> JudgeRoute:
    key = environ.get(provider.key, "").strip() if provider.key else ""
    if provider.name == "ollama":
        key = "ollama"  # Ollama takes no key, but the client needs one to send
    return JudgeRoute(provider.name, model, provider.base_url(environ), key or None, label)


def _missing_route(name: str, provider: Provider, configured: list[Provider]) -> str:
    need = provider.key or provider.base_variable
    others = ", ".join(other.title for other in configured) or "none"
    return (
        f"judge {name!r} routes to {provider.title}, which is not configured (set {need}); "
        f"configured providers: {others}. A judge never falls back to another provider: "
        "set the key, or pin another route (openai/…, anthropic/…, openrouter/…, ollama/…)"
    )


def _nothing_configured(name: str) -> str:
    needed = ", ".join(provider.key or provider.base_variable for provider in PROVIDERS)
    return (
        f"judge {name!r} names no provider and none is configured (set one of {needed}, "
        "or pin a route such as openai/MODEL)"
    )
