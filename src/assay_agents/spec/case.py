"""A case: one task for the agent and what must be true afterwards."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.spec.fixtures import ApiFixtures, PendingRequest
from assay_agents.spec.json_data import JSON, copy_json, portable
from assay_agents.spec.metrics import JUDGE_CRITERIA, CheckDefinition, metric_kind
from assay_agents.spec.observation import Channels, refuse_contradictions, validate_channels
from assay_agents.spec.parts import (
    Reply,
    validate_notes,
    validate_params,
    validate_reply,
    validate_tags,
)
from assay_agents.spec.provenance import resolve_parts, validate_provenance

_ACTION_KEYS = frozenset({"name", "arguments", "group"})


@dataclass(frozen=True, slots=True)
class ExpectedAction:
    """One tool call the agent must make: group, name and arguments must match exactly."""

    name: str
    arguments: dict[str, JSON] = field(default_factory=dict)
    group: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The portable form stored with the run and hashed into fingerprints."""
        return {"group": self.group, "name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True, slots=True)
class Case:
    """One task: the input sent to the agent and the expectations its outcome is held to.

    Build cases with :meth:`assay.Suite.case` (or a file loader), which validates them; the
    fields are JSON-portable copies, so nothing the agent does can change the suite.
    """

    id: str
    name: str
    input: JSON
    reference: JSON = None
    expected_actions: tuple[ExpectedAction, ...] | None = None
    minimum_scores: dict[str, float] | None = None
    metadata: dict[str, JSON] = field(default_factory=dict)
    checks: tuple[CheckDefinition, ...] = ()
    criteria: tuple[str | CheckDefinition, ...] = ()
    setup: JSON = None
    group: str | None = None
    api: ApiFixtures | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    #: Observation channels asserted exactly, in order (absent channel: not asserted).
    observation: Channels | None = None
    #: Items that must not appear in a channel.
    forbid: Channels | None = None
    tags: tuple[str, ...] = ()
    params: dict[str, JSON] = field(default_factory=dict)
    notes: str | None = None
    production_only: bool = False
    #: Set when the turn answers a pending interaction; the input is then ``{"reply": ...}``.
    reply: Reply | None = None

    def copy(self) -> Case:
        """A copy whose JSON parts are fresh, to hand to an agent that may mutate them."""
        return replace(
            self,
            input=copy_json(self.input),
            reference=copy_json(self.reference),
            metadata=copy_json(self.metadata),  # type: ignore[arg-type]
            setup=copy_json(self.setup),
            minimum_scores=None if self.minimum_scores is None else dict(self.minimum_scores),
            params=copy_json(self.params),  # type: ignore[arg-type]
            observation=copy_json(self.observation),  # type: ignore[arg-type]
            forbid=copy_json(self.forbid),  # type: ignore[arg-type]
        )

    def definition(self) -> dict[str, JSON]:
        """The case's own portable definition; absent optional parts are left out.

        Leaving absent parts out keeps fingerprints stable when new optional parts appear.
        """
        described: dict[str, JSON] = {"id": self.id, "name": self.name, "input": self.input}
        optional: dict[str, JSON] = {
            "reference": self.reference,
            "expected_actions": (
                None
                if self.expected_actions is None
                else [action.to_json() for action in self.expected_actions]
            ),
            "minimum_scores": dict(self.minimum_scores) if self.minimum_scores else None,
            "metadata": dict(self.metadata) or None,
            "setup": self.setup,
            "group": self.group,
            "api": None if self.api is None else self.api.definition(),
            "observation": copy_json(self.observation),  # type: ignore[arg-type]
            "forbid": copy_json(self.forbid),  # type: ignore[arg-type]
            "tags": list(self.tags) or None,
            "params": dict(self.params) or None,
            "notes": self.notes,
            "production_only": True if self.production_only else None,
        }
        described.update({key: value for key, value in optional.items() if value is not None})
        return described


def build_case(
    input: Any,
    *,
    position: int,
    expected: Any = None,
    expected_actions: Iterable[Any] | None = None,
    minimum_scores: Mapping[str, float] | None = None,
    metadata: Mapping[str, Any] | None = None,
    checks: Sequence[Any] | None = None,
    criteria: Sequence[Any] | None = None,
    setup: Any = None,
    name: str | None = None,
    id: str | None = None,
    group: str | None = None,
    api: Any = None,
    provenance: Mapping[str, Any] | None = None,
    observation: Mapping[str, Any] | None = None,
    forbid: Mapping[str, Any] | None = None,
    tags: Sequence[str] | None = None,
    params: Mapping[str, Any] | None = None,
    notes: str | None = None,
    production_only: bool = False,
    reply: Any = None,
) -> Case:
    """Validate the parts of a case and return it; raise :class:`SpecError` naming the field."""
    case_reply = validate_reply(reply)
    case_input = _validate_input(input) if case_reply is None else _reply_input(input, case_reply)
    case_name = name if name is not None else _default_name(case_input, position)
    # A default id is the name on one line: ids appear in tables, URLs and file names.
    case_id = (
        id
        if id is not None
        else "".join(char for char in " ".join(str(case_name).split()) if char.isprintable())
    )
    if not isinstance(case_name, str) or not case_name.strip():
        raise SpecError("must be a non-empty string", field="name")
    if not isinstance(case_id, str) or not case_id.strip():
        raise SpecError("must be a non-empty string", field="id")
    if any(ord(char) < 32 or 127 <= ord(char) < 160 for char in case_id):
        raise SpecError("must not contain control characters (line breaks, escapes)", field="id")
    try:
        case = Case(
            id=case_id,
            name=case_name,
            input=case_input,
            reference=portable(expected, "expected"),
            expected_actions=_expected_actions(expected_actions),
            minimum_scores=_minimum_scores(minimum_scores),
            metadata=_metadata(metadata),
            checks=_checks(checks),
            criteria=validate_criteria(criteria, "criteria"),
            setup=portable(setup, "setup"),
            group=group,
            api=_api(api),
            reply=case_reply,
            **_described(observation, forbid, tags, params, notes, production_only),
        )
        return _provenance(case, provenance)
    except SpecError as error:
        raise SpecError(error.detail, case=case_id, field=error.field) from None


def present_parts(case: Case) -> set[str]:
    """The parts a case has, as provenance names them (its own checks are ``checks``)."""
    present = set(case.definition())
    if case.checks or case.criteria:
        present.add("checks")
    return present


def _provenance(case: Case, value: Mapping[str, Any] | None) -> Case:
    declared = validate_provenance(value)
    if not declared:  # nothing to check, and no definition built to check it against
        return case
    # Checked against the definition: declaring a part the case does not have is an error.
    resolved = resolve_parts(declared, present_parts(case))
    return replace(case, provenance=resolved) if resolved else case


def _reply_input(value: Any, reply: Reply) -> JSON:
    if value is not None:
        raise SpecError(
            "a turn is either an input or a reply to a pending interaction, not both", field="reply"
        )
    return {"reply": reply.to_json()}


def _described(
    observation: Mapping[str, Any] | None,
    forbid: Mapping[str, Any] | None,
    tags: Sequence[str] | None,
    params: Mapping[str, Any] | None,
    notes: Any,
    production_only: Any,
) -> dict[str, Any]:
    """The optional parts file suites use: channel expectations, labels, selection flags."""
    expected = validate_channels(observation, "observation")
    banned = validate_channels(forbid, "forbid")
    refuse_contradictions(expected, banned)
    if not isinstance(production_only, bool):
        raise SpecError("must be true or false", field="production_only")
    return {
        "observation": expected,
        "forbid": banned,
        "tags": validate_tags(tags),
        "params": validate_params(params),
        "notes": validate_notes(notes),
        "production_only": production_only,
    }


def _validate_input(value: Any) -> JSON:
    if (
        value is None
        or isinstance(value, bool | int | float)
        or (
            isinstance(value, str | list | tuple | dict)
            and not (value.strip() if isinstance(value, str) else value)
        )
    ):
        raise SpecError(
            "a case needs an input: a non-empty message, a list of messages or a mapping",
            field="input",
        )
    return portable(value, "input")


def _default_name(case_input: JSON, position: int) -> str:
    if isinstance(case_input, str) and case_input.strip():
        return case_input
    return f"case {position + 1}"


def _metadata(value: Mapping[str, Any] | None) -> dict[str, JSON]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError("must be a mapping", field="metadata")
    converted = portable(value, "metadata")
    assert isinstance(converted, dict)
    return converted


def _expected_actions(values: Iterable[Any] | None) -> tuple[ExpectedAction, ...] | None:
    if values is None:
        return None
    if isinstance(values, str | bytes | Mapping):
        raise SpecError("must be a list of actions", field="expected_actions")
    return tuple(
        _expected_action(value, f"expected_actions[{index}]") for index, value in enumerate(values)
    )


def _expected_action(value: Any, field_path: str) -> ExpectedAction:
    if isinstance(value, Mapping):
        unknown = set(value) - _ACTION_KEYS
        if unknown:
            raise SpecError(
                f"unknown key(s) {sorted(unknown)}; an expected action has "
                "group, name and arguments",
                field=field_path,
            )
        parts = dict(value)
    elif hasattr(value, "name"):
        # Any Action-like object: only what an expectation asserts is read.
        parts = {key: getattr(value, key, None) for key in _ACTION_KEYS}
    else:
        raise SpecError(
            "must be an Action or a mapping with group, name and arguments", field=field_path
        )
    name, group, arguments = parts.get("name"), parts.get("group"), parts.get("arguments")
    if not isinstance(name, str) or not name:
        raise SpecError("needs a non-empty name", field=f"{field_path}.name")
    if not isinstance(group, str) or not group.strip():
        # Group, name and arguments are compared together, so an expectation without its
        # group could never be met by an observed call that has one.
        raise SpecError(
            f"needs its group (a non-empty string, got {group!r}): expected actions name "
            'the group of the call, as in {"group": "orders", "name": ...}',
            field=f"{field_path}.group",
        )
    converted = portable(arguments if arguments is not None else {}, f"{field_path}.arguments")
    if not isinstance(converted, dict):
        raise SpecError("must be a mapping", field=f"{field_path}.arguments")
    return ExpectedAction(name=name, arguments=converted, group=group)


def _minimum_scores(value: Mapping[str, float] | None) -> dict[str, float] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SpecError("must map metric names to thresholds", field="minimum_scores")
    scores: dict[str, float] = {}
    for metric, threshold in value.items():
        path = f"minimum_scores.{metric}"
        if not isinstance(metric, str) or not metric:
            raise SpecError("metric names must be non-empty strings", field="minimum_scores")
        scores[metric] = validate_threshold(threshold, path)
    return scores


def validate_threshold(value: Any, field_path: str) -> float:
    """A threshold is a finite number in [0, 1]; inclusive when compared."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(f"{value!r} is not a number", field=field_path)
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise SpecError(f"{value!r} is outside [0, 1]", field=field_path)
    return float(value)


def validate_criteria(
    values: Sequence[Any] | None, field_path: str
) -> tuple[str | CheckDefinition, ...]:
    """Judge criteria: built-in names or criterion objects (``assay.criterion``)."""
    if values is None:
        return ()
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise SpecError("must be a list of criteria", field=field_path)
    for index, value in enumerate(values):
        if isinstance(value, str):
            if value not in JUDGE_CRITERIA:
                raise SpecError(
                    f"unknown judge criterion {value!r} (built-in: "
                    f"{', '.join(sorted(JUDGE_CRITERIA))}; or use assay.criterion)",
                    field=f"{field_path}[{index}]",
                )
        elif not (isinstance(value, CheckDefinition) and metric_kind(value) == "judge"):
            raise SpecError(
                f"{value!r} is not a judge criterion (use assay.criterion)",
                field=f"{field_path}[{index}]",
            )
    return tuple(values)


def _checks(values: Sequence[Any] | None) -> tuple[CheckDefinition, ...]:
    if values is None:
        return ()
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise SpecError("must be a list of checks", field="checks")
    for index, value in enumerate(values):
        if not isinstance(value, CheckDefinition):
            raise SpecError(
                f"{value!r} is not a check (use assay_agents.checks)", field=f"checks[{index}]"
            )
    return tuple(values)


def _api(value: Any) -> ApiFixtures | None:
    if value is None or isinstance(value, ApiFixtures):
        return value
    if isinstance(value, PendingRequest):
        raise SpecError(
            "the last expect_request(...) has no response; finish it with .respond_with(...)",
            field="api",
        )
    raise SpecError(f"{value!r} is not API fixtures (use assay.api(...))", field="api")
