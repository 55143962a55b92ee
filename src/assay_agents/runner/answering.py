"""Whether the model a sample asked for is the model that answered it.

A sample on a model is the model's only if that model answered: an agent that calls a model
of its own choosing whatever ``ctx.model`` says would report one model under every label of a
matrix. The answering model is read where it can be: the ``answered_model`` an adapter put in
the outcome's metadata, and the ``model`` named by each completion response the agent's HTTP
clients received, live or replayed (see :mod:`assay_agents.replay.watch`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from assay_agents.agent import ANSWERED_MODEL_KEY, MISMATCH_KEY, ModelSpec, Outcome
from assay_agents.agent.answered import (
    UNVERIFIED_KEY,
    UNVERIFIED_REASON,
    mismatch,
    same_model,
    verifiable,
)
from assay_agents.spec import JSON

if TYPE_CHECKING:
    from assay_agents.replay.watch import ModelWatch


def preload_watch() -> None:
    """Load what :func:`watching` needs, before any sample's clock starts (a run does this)."""
    from assay_agents.replay.watch import preload

    preload()


@contextlib.contextmanager
def watched_run(models: Sequence[ModelSpec]) -> Iterator[None]:
    """Hold the HTTP patches for a run whose samples are watched: installed once, not per sample."""
    if not any(verifiable(model) for model in models):
        yield
        return
    from assay_agents.replay.watch import patched

    with patched():
        yield


@contextlib.contextmanager
def watching(model: ModelSpec | None) -> Iterator[ModelWatch | None]:
    """Read the completions of the agent call inside, when the sample asks for a model."""
    if model is None or not verifiable(model):
        yield None
        return
    from assay_agents.replay.watch import ModelWatch  # only runs that name models read responses

    with ModelWatch().active() as watch:
        yield watch


def answered(
    outcome: Outcome, model: ModelSpec | None, watch: ModelWatch | None
) -> tuple[Outcome, str | None]:
    """The outcome with the answering model recorded, and the error when it was not ``model``.

    Every name counts: the adapter's and each response's. The one recorded is the asked
    model's own name (a dated release, say) when one response gave it, else the first other.
    A watched sample that no name came from is marked unverified, never silently the model's.
    """
    reported = outcome.metadata.get(ANSWERED_MODEL_KEY)
    names = [
        *([reported] if isinstance(reported, str) and reported else []),
        *(watch.models if watch is not None else ()),
    ]
    if model is None:
        return outcome, None
    if not names:
        if watch is None:
            return outcome, None
        return dataclasses.replace(
            outcome, metadata={**outcome.metadata, UNVERIFIED_KEY: UNVERIFIED_REASON}
        ), None
    error = mismatch(model, names)
    shown = next((name for name in names if same_model(model.model, name)), names[0])
    metadata: dict[str, JSON] = {**outcome.metadata, ANSWERED_MODEL_KEY: shown}
    if error is not None:
        metadata[MISMATCH_KEY] = {"asked": model.label, "answered": shown}
    return dataclasses.replace(outcome, metadata=metadata), error
