"""Which model answered a sample, and whether it is the model the sample asked for.

A provider names the model that produced a response (the ``model`` field of an OpenAI-style
completion). Assay keeps that name with the sample, under :data:`ANSWERED_MODEL_KEY` in its
metadata, and a sample whose answering model is not the one it asked for is an error: a model
matrix must measure every model it names.

The rule for "the same model", so versioned names are not mismatches:

- names compare without case and without a routing prefix (``openai/gpt-4.1-mini`` is
  ``gpt-4.1-mini``);
- a release suffix added to the asked name is the same model: a date (``-2025-04-14``,
  ``-20241022``), a four- or three-digit snapshot (``-0613``, ``-001``), or Ollama's
  ``:latest``. ``gpt-4.1-mini-2025-04-14`` answers for ``gpt-4.1-mini``;
  ``gpt-4.1-mini`` does not answer for ``gpt-4.1``, nor ``support-v1`` for ``support-v2``;
- an alias on the asked name stands for its base name: ``-latest``, ``:latest`` and the bare
  major-version alias ``-0`` are dropped, and the base name or a release of it answers
  (``claude-3-7-sonnet-20250219`` for ``claude-3-7-sonnet-latest``,
  ``claude-sonnet-4-20250514`` for ``claude-sonnet-4-0``). Any other ``-N`` is a minor version,
  answered only by its own releases: ``claude-opus-4-1`` is not ``claude-opus-4-20250514``;
- a model the request cannot pin is not checked: an Azure deployment (its response names the
  underlying model) and a router's ``auto``.

A sample is answered by its model when at least one response named it: an agent may also call
a helper model, but one that never reached the asked model measured nothing of it. A sample
on a checkable model whose responses named no model at all (the agent called its provider
through a client Assay does not watch, or called none) is kept as it scored, but marked
unverified under :data:`UNVERIFIED_KEY`: its figures are not proof that the asked model
produced them. An agent with a client of its own can say which model answered by putting
``answered_model`` in its outcome's metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay_agents.agent.model import ModelSpec

#: The sample metadata key holding the model the provider said answered.
ANSWERED_MODEL_KEY = "answered_model"
#: The metadata key marking a sample another model answered: ``{"asked", "answered"}``. Such
#: a sample says nothing about the model it asked for, so no model comparison counts it.
MISMATCH_KEY = "assay.model_mismatch"
#: The metadata key marking a sample no response named a model for; it holds the reason.
UNVERIFIED_KEY = "assay.model_unverified"
#: Why a sample's answering model could not be observed.
UNVERIFIED_REASON = (
    "no response named a model: the agent's HTTP client is not one Assay "
    "watches (httpx, requests, openai)"
)

_RELEASE = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{3,4}|:latest)$")
# Providers whose requests name something other than a model (a deployment, a router).
# What a provider's alias adds to a base name; "-0" is "major version N, point zero".
_ALIAS = re.compile(r"(-latest|:latest|-0)$")
_UNPINNED_PROVIDERS = frozenset({"azure"})
_UNPINNED_MODELS = frozenset({"auto"})
_SHOWN = 120


def same_model(asked: str, answered: str) -> bool:
    """Whether ``answered`` (a provider's name for its model) is the ``asked`` model."""
    want, got = _bare(asked), _bare(answered)
    if not want or not got:
        return False
    alias = _ALIAS.search(want)
    bases = [want] if alias is None else [want, want[: alias.start()]]
    return any(_release_of(base, got) for base in bases if base)


def _release_of(base: str, got: str) -> bool:
    if got == base:
        return True
    return got.startswith(base) and _RELEASE.fullmatch(got[len(base) :]) is not None


def verifiable(spec: ModelSpec) -> bool:
    """Whether a response can tell if ``spec`` answered (not an Azure deployment or a router)."""
    return spec.provider not in _UNPINNED_PROVIDERS and _bare(spec.model) not in _UNPINNED_MODELS


def mismatch(spec: ModelSpec, answered: Iterable[str]) -> str | None:
    """The error for a sample on ``spec`` that another model answered, or ``None``.

    ``answered`` holds every model the sample's responses named. When none of them is
    ``spec``'s model, the sample is an error naming both; an agent that also calls a helper
    model besides the asked one is not.
    """
    names = list(answered)
    if not verifiable(spec) or not names or any(same_model(spec.model, n) for n in names):
        return None
    return f"asked for {spec.label}, the response came from {_shown(names[0])}"


def _shown(name: str) -> str:
    # A provider's name is untrusted text: a long one is cut, never carried whole.
    return name if len(name) <= _SHOWN else f"{name[:_SHOWN]}…"


def _bare(name: str) -> str:
    return name.strip().rsplit("/", 1)[-1].lower()
