"""Inspect AI samples (``json_dataset``): ``input``, ``target``, ``id`` and ``metadata``.

Inspect's scorers live in the task's Python, not in the dataset, so the target is mapped as
Inspect's ``includes()`` scores it: the answer contains the target, whatever its case (a list
target: any one of them). A single target is also the reference a judge grades against.
"""

from __future__ import annotations

from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load.datasets._common import (
    Draft,
    Keys,
    Unmapped,
    field_at,
    json_params,
    mapping,
    text_of,
)

_UNMAPPED_FIELDS = ("sandbox", "files", "setup")
SCORER_NOTE = Unmapped(
    "",
    "the task's scorer lives in its Python and is not in the dataset: each target was mapped "
    "as includes() scores it (icontains / icontains_any); change the expectation if the "
    "task scores otherwise",
)


def inspect(
    samples: list[tuple[str, object]], location: str, keys: Keys
) -> tuple[list[Draft], list[Unmapped]]:
    """The scenarios of Inspect samples, each given with the path it was read at."""
    drafts: list[Draft] = []
    unmapped: list[Unmapped] = []
    for position, (path, raw) in enumerate(samples, start=1):
        sample = mapping(raw, location, path, "a sample (a mapping with input and target)")
        if sample.get("choices"):
            unmapped.append(
                Unmapped(
                    field_at(path, "choices"),
                    "a multiple-choice sample (its target is a choice's letter): left out",
                )
            )
            continue
        prompt = _prompt(sample.get("input"), location, path)
        if prompt is None:
            unmapped.append(
                Unmapped(
                    field_at(path, "input"),
                    "a conversation of several messages is not mapped: sample left out",
                )
            )
            continue
        draft = Draft(keys.key(sample.get("id"), position), prompt)
        _target(sample.get("target"), draft, location, path)
        draft.params = json_params(sample.get("metadata"))
        for name in _UNMAPPED_FIELDS:
            if sample.get(name):
                unmapped.append(Unmapped(field_at(path, name), "Assay has no field for it"))
        drafts.append(draft)
    if drafts:
        unmapped.append(SCORER_NOTE)
    return drafts, unmapped


def _prompt(value: object, location: str, path: str) -> str | None:
    """The text of the input; ``None`` for a conversation that is more than one user turn."""
    if value is None:
        raise SpecError("is missing", location=location, field=field_at(path, "input"))
    if isinstance(value, str):
        if not value.strip():
            raise SpecError(
                "must be a non-empty text", location=location, field=field_at(path, "input")
            )
        return value
    if not isinstance(value, list) or not value:
        raise SpecError(
            "must be a text or a list of chat messages",
            location=location,
            field=field_at(path, "input"),
        )
    if len(value) == 1 and isinstance(value[0], dict) and value[0].get("role") == "user":
        content: Any = value[0].get("content")
        return content if isinstance(content, str) and content.strip() else None
    return None


def _target(value: object, draft: Draft, location: str, path: str) -> None:
    if value is None or value == "" or value == []:
        return  # a sample without a target: its scorer needs none
    if isinstance(value, str):
        draft.expect["answer"] = value
        draft.add("icontains", value)
        return
    if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
        draft.add("icontains_any", *value)
        return
    raise SpecError(
        f"must be a text or a list of texts (got {text_of(value)[:60]})",
        location=location,
        field=field_at(path, "target"),
    )
