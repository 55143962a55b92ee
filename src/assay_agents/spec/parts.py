"""Smaller optional parts of a case: a reply to a pending interaction, tags, params, notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON, portable

_REPLY_KEYS = frozenset({"case", "option", "workflow"})


@dataclass(frozen=True, slots=True)
class Reply:
    """A turn that answers the pending interaction (a card) of a named case.

    An interaction id is minted while the suite runs, so a reply names the *case* whose
    blocking interaction it answers and the option chosen; the harness finds the card.
    The case's input is then the structured turn ``{"reply": {...}}``.
    """

    case: str
    option: str
    workflow: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The portable form, which is also the case's input."""
        described: dict[str, JSON] = {"case": self.case, "option": self.option}
        if self.workflow is not None:
            described["workflow"] = self.workflow
        return described


def validate_reply(value: Reply | Mapping[str, Any] | None) -> Reply | None:
    """A :class:`Reply`, from itself or a mapping of ``case``, ``option`` and ``workflow``."""
    if value is None:
        return None
    if isinstance(value, Reply):
        parts: dict[str, Any] = {
            "case": value.case,
            "option": value.option,
            "workflow": value.workflow,
        }
    elif isinstance(value, Mapping):
        unknown = set(value) - _REPLY_KEYS
        if unknown:
            raise SpecError(
                f"unknown key(s) {sorted(map(str, unknown))}; a reply has case, "
                "option and workflow",
                field="reply",
            )
        parts = dict(value)
    else:
        raise SpecError("must be an assay.Reply or a mapping with case and option", field="reply")
    return Reply(
        _text(parts.get("case"), "reply.case"),
        _text(parts.get("option"), "reply.option"),
        None if parts.get("workflow") is None else _text(parts["workflow"], "reply.workflow"),
    )


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError("must be a non-empty string", field=field)
    return value


def validate_tags(value: Sequence[str] | None) -> tuple[str, ...]:
    """Free-form labels carried to the results; duplicates are dropped, order kept."""
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise SpecError("must be a list of strings", field="tags")
    for index, tag in enumerate(value):
        if not isinstance(tag, str) or not tag.strip():
            raise SpecError("must be a non-empty string", field=f"tags[{index}]")
    return tuple(dict.fromkeys(value))


def validate_params(value: Mapping[str, Any] | None) -> dict[str, JSON]:
    """Free-form parameters the agent may read (``ctx.case.params``); JSON-portable."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError("must be a mapping", field="params")
    converted = portable(value, "params")
    assert isinstance(converted, dict)
    return converted


def validate_notes(value: Any) -> str | None:
    """What a reader should know about the case; never shown to a judge as instructions."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise SpecError("must be a string", field="notes")
    return value.strip() or None
