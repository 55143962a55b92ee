"""Pricing tokens: a reported cost is used as is; otherwise tokens × catalogue rates.

Rates come from ``genai-prices`` (a snapshot shipped with the package: no network). A figure
computed here is *estimated* and carries the rate it used. A model the catalogue does not know
exactly is priced at the rate of its family, guessed from its name (``gpt-4.1-mini-2099-11-30``
is priced as ``gpt-4.1-mini``: a date or version suffix dropped, then trailing name parts, down
to two), and the rate says so (``fallback``); a model with no family there stays unpriced.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, replace

from assay_agents.spec import JSON


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimated cost in USD and the per-million-token rates behind it."""

    cost_usd: float
    input_rate: float
    output_rate: float
    #: The catalogue model whose rate was used when the model itself is not in it.
    fallback: str | None = None

    def rate(self) -> dict[str, JSON]:
        """The working, as stored in sample metadata (``cost_rate``)."""
        working: dict[str, JSON] = {
            "input": self.input_rate,
            "output": self.output_rate,
            "source": "catalog",
        }
        if self.fallback is not None:
            working["fallback"] = self.fallback
        return working


_loading = threading.Lock()
_loaded = False


def catalogue_loaded() -> bool:
    """Whether the price catalogue is in memory (estimates are then cheap)."""
    return _loaded


def load_catalogue() -> None:
    """Import and read the price catalogue once; safe to call from several threads."""
    global _loaded
    with _loading:
        if _loaded:
            return
        # One estimate reads the whole snapshot; its figure is discarded.
        _estimate("openai", "gpt-4o", 1, 1)
        _loaded = True


def estimate_cost(
    provider: str | None, model: str, input_tokens: int | None, output_tokens: int | None
) -> Estimate | None:
    """Tokens × the catalogue's rates for ``model``; ``None`` when the model is unknown."""
    if input_tokens is None and output_tokens is None:
        return None
    exact = _estimate(provider, model, input_tokens or 0, output_tokens or 0)
    if exact is not None:
        return exact
    for family in family_candidates(model):
        guessed = _estimate(provider, family, input_tokens or 0, output_tokens or 0)
        if guessed is not None:
            return replace(guessed, fallback=family)
    return None


# A release date or build suffix: -2099-11-30, -20991130, -0613, @20991130, -latest, -preview.
_SUFFIX = re.compile(r"(?:[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest|preview|exp))+$")


def family_candidates(model: str) -> list[str]:
    """The names ``model``'s family may go by, closest first (never ``model`` itself).

    ``gpt-4.1-mini-2099-11-30`` gives ``gpt-4.1-mini``, then ``gpt-4.1``. A name keeps two
    parts and a version number, so ``gpt-9-mini`` never becomes ``gpt`` nor
    ``claude-haiku-4-5`` ``claude-haiku``: a family without its version is no family.
    """
    found: list[str] = []
    name = _SUFFIX.sub("", model)
    if name and name != model:
        found.append(name)
    parts = name.split("-")
    while len(parts) > 2 and any(char.isdigit() for char in "-".join(parts[:-1])):
        parts.pop()
        found.append("-".join(parts))
    return found


@functools.lru_cache(maxsize=4096)
def _estimate(
    provider: str | None, model: str, input_tokens: int, output_tokens: int
) -> Estimate | None:
    try:
        import genai_prices
    except ImportError:  # pragma: no cover - an installation without the pricing catalogue
        return None
    usage = genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    try:
        found = genai_prices.calc_price(usage, model_ref=model, provider_id=provider)
    except LookupError:
        return None
    except Exception:
        return None
    # Effective rates from the prices actually charged (tiered prices have no single rate).
    return Estimate(
        float(found.total_price),
        _per_million(float(found.input_price), input_tokens),
        _per_million(float(found.output_price), output_tokens),
    )


def _per_million(price: float, tokens: int) -> float:
    return round(price / tokens * 1_000_000, 6) if tokens else 0.0
