"""Which model a sample runs on: ``provider/model`` or a bare name with the provider inferred."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from assay.errors import SpecError

# Prefixes that name a route rather than a vendor: "google/gemma-3" is an OpenRouter model
# id, while "anthropic/claude-haiku-4-5" pins Anthropic itself.
_PROVIDERS = frozenset({"openai", "anthropic", "ollama", "openrouter", "azure"})
_OPENAI_REASONING = re.compile(r"^o[134](-|$)")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A provider and model, plus the label results are reported under."""

    provider: str
    model: str
    label: str

    @classmethod
    def parse(cls, text: str, *, label: str | None = None,
              default_provider: str = "openai") -> ModelSpec:
        """Parse ``provider/model``, or infer the provider of a bare name.

        ``claude-*`` is Anthropic, ``gpt-*`` and ``o1``/``o3``/``o4`` models are OpenAI,
        ``name:tag`` is Ollama and ``vendor/model`` is OpenRouter.
        """
        name = text.strip() if isinstance(text, str) else ""
        if not name or name.startswith("/") or name.endswith("/"):
            raise SpecError(f"{text!r} is not a model: use provider/model or a model name",
                            field="models")
        provider, model = _split(name, default_provider)
        return cls(provider=provider, model=model, label=label or name)


def _split(name: str, default_provider: str) -> tuple[str, str]:
    head, _, rest = name.partition("/")
    if rest and head.lower() in _PROVIDERS:
        return head.lower(), rest
    if rest:
        return "openrouter", name
    lowered = name.lower()
    if lowered.startswith("claude-"):
        return "anthropic", name
    if lowered.startswith("gpt-") or _OPENAI_REASONING.match(lowered):
        return "openai", name
    if ":" in name:
        return "ollama", name
    return default_provider, name


def parse_models(values: Iterable[str | ModelSpec] | None) -> tuple[ModelSpec, ...]:
    """Parse a model selection; naming one (provider, model) twice is refused."""
    if values is None:
        return ()
    if isinstance(values, str | ModelSpec):
        values = [values]
    specs = tuple(v if isinstance(v, ModelSpec) else ModelSpec.parse(v) for v in values)
    seen: dict[tuple[str, str], str] = {}
    for spec in specs:
        key = (spec.provider, spec.model)
        if key in seen:
            raise SpecError(f"{spec.label!r} and {seen[key]!r} name the same model "
                            f"{spec.provider}/{spec.model}", field="models")
        seen[key] = spec.label
    labels = [spec.label for spec in specs]
    if len(set(labels)) != len(labels):
        raise SpecError("two models share a label", field="models")
    return specs
