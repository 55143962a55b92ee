"""Which model a sample runs on: ``provider/model`` or a bare name with the provider inferred."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assay_agents.errors import SpecError

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
    def parse(
        cls, text: str, *, label: str | None = None, default_provider: str = "openai"
    ) -> ModelSpec:
        """Parse ``provider/model``, or infer the provider of a bare name.

        ``claude-*`` is Anthropic, ``gpt-*`` and ``o1``/``o3``/``o4`` models are OpenAI,
        ``name:tag`` is Ollama and ``vendor/model`` is OpenRouter.
        """
        name = text.strip() if isinstance(text, str) else ""
        if not name or name.startswith("/") or name.endswith("/"):
            raise SpecError(
                f"{text!r} is not a model: use provider/model or a model name", field="models"
            )
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


ModelLike = str | ModelSpec | Mapping[str, Any]


def parse_models(values: Iterable[ModelLike] | ModelLike | None) -> tuple[ModelSpec, ...]:
    """Parse a model selection: names, specs, or their ``{label, provider, model}`` form.

    A string may list several names separated by commas, as a command line or an environment
    variable gives them: ``" gpt-5-mini , ,gpt-5-mini, qwen3:8b"`` is gpt-5-mini and
    qwen3:8b. Blanks are dropped and exact repeats collapsed; one (provider, model) under two
    labels is refused.
    """
    if values is None:
        return ()
    if isinstance(values, str | ModelSpec | Mapping):
        values = [values]
    specs: list[ModelSpec] = []
    for value in values:
        for spec in _specs(value):
            if spec not in specs:
                specs.append(spec)
    seen: dict[tuple[str, str], str] = {}
    for spec in specs:
        key = (spec.provider, spec.model)
        if key in seen:
            raise SpecError(
                f"{spec.label!r} and {seen[key]!r} name the same model "
                f"{spec.provider}/{spec.model}",
                field="models",
            )
        seen[key] = spec.label
    labels = [spec.label for spec in specs]
    if len(set(labels)) != len(labels):
        raise SpecError("two models share a label", field="models")
    return tuple(specs)


def _specs(value: ModelLike) -> list[ModelSpec]:
    if isinstance(value, ModelSpec):
        return [value]
    if isinstance(value, Mapping):
        return [_from_mapping(value)]
    if not isinstance(value, str):
        raise SpecError(
            f"{value!r} is not a model: use provider/model or a model name", field="models"
        )
    return [ModelSpec.parse(name) for name in value.split(",") if name.strip()]


def _from_mapping(data: Mapping[str, Any]) -> ModelSpec:
    """A spec given as ``{label, provider, model}``: ``provider`` and ``model`` as given."""
    fields = ("label", "provider", "model")
    for name in data:
        if name not in fields:
            close = difflib.get_close_matches(str(name), fields, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SpecError(
                f"unknown field {name!r}{hint}; a model is {{label, provider, model}}",
                field="models",
            )
    values: dict[str, str] = {}
    for name in fields:
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            raise SpecError(
                f"a model's {name} must be a non-empty string, not {value!r}", field="models"
            )
        values[name] = value
    return ModelSpec(provider=values["provider"], model=values["model"], label=values["label"])
