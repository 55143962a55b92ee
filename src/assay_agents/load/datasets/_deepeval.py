"""DeepEval goldens (``EvaluationDataset``'s JSON): input, expected output, context, tools.

``expected_tools`` become the exact calls the agent must make (``expect.actions``) when
each gives its ``input_parameters``; when they name tools only (DeepEval's tool
correctness compares names by default) they become ``expect.tools``, each of which must be
called. When only some give arguments, all become ``expect.tools`` and each set of
arguments dropped is reported as not mapped. An expected action names its group, and
DeepEval's do not: ``--action-group`` names it (the group the agent's adapter records,
``action_groups=``), and a file with exact calls is refused without it. ``context``
becomes the important facts told to the judge.
"""

from __future__ import annotations

from typing import Any

from assay_agents.errors import SpecError
from assay_agents.load.datasets._common import (
    Draft,
    Keys,
    Unmapped,
    json_params,
    mapping,
    required_text,
    text_of,
)

_OUTPUTS = ("actual_output", "tools_called", "retrieval_context")


def deepeval(
    data: object, location: str, keys: Keys, action_group: str | None = None
) -> tuple[list[Draft], list[Unmapped]]:
    """The scenarios of a list of goldens, and what could not be mapped."""
    if not isinstance(data, list):
        raise SpecError(f"must be a list of goldens (got {type(data).__name__})", location=location)
    drafts: list[Draft] = []
    unmapped: list[Unmapped] = []
    for index, raw in enumerate(data):
        path = f"[{index}]"
        golden = mapping(raw, location, path, "a golden (a mapping with input)")
        if "turns" in golden or "scenario" in golden:
            unmapped.append(Unmapped(path, "a conversational golden is not mapped: left out"))
            continue
        draft = Draft(
            keys.key(golden.get("name"), index + 1), required_text(golden, "input", location, path)
        )
        if golden.get("expected_output") is not None:
            draft.expect["answer"] = text_of(golden["expected_output"])
        draft.facts = _texts(golden.get("context"), location, f"{path}.context")
        comments = golden.get("comments")
        draft.notes = comments if isinstance(comments, str) and comments else None
        draft.params = json_params(golden.get("additional_metadata"))
        unmapped += _tools(
            golden.get("expected_tools"), draft, location, f"{path}.expected_tools", action_group
        )
        for name in _OUTPUTS:
            if golden.get(name):
                unmapped.append(Unmapped(f"{path}.{name}", _why(name)))
        drafts.append(draft)
    if any("actions" in draft.expect for draft in drafts) and action_group is None:
        raise SpecError(
            "expected_tools with input_parameters become expected actions, and an expected "
            "action names its group, which DeepEval does not record: give --action-group "
            "GROUP (the group your agent records its calls under)",
            location=location,
        )
    return drafts, unmapped


def _why(name: str) -> str:
    if name == "retrieval_context":
        return "Assay does not grade retrieval"
    return "an earlier run's output, not an expectation"


def _texts(value: object, location: str, path: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SpecError("must be a list of texts", location=location, field=path)
    return [item for item in value if item.strip()]


def _tools(
    value: object, draft: Draft, location: str, path: str, group: str | None
) -> list[Unmapped]:
    """Map the expected calls; when only some give arguments, say which are not checked.

    An expected action matches a call with exactly its arguments, so a list mixing calls
    with and without arguments becomes tool names, and each dropped argument set is named.
    """
    if not value:
        return []
    if not isinstance(value, list):
        raise SpecError("must be a list of tool calls", location=location, field=path)
    calls = [_call(item, location, f"{path}[{index}]") for index, item in enumerate(value)]
    if all(arguments is not None for _, arguments in calls):
        draft.expect["actions"] = [
            {**({"group": group} if group else {}), "name": name, "arguments": arguments}
            for name, arguments in calls
        ]
        return []
    draft.add("tools", *dict.fromkeys(name for name, _ in calls))
    return [
        Unmapped(
            f"{path}[{index}].input_parameters",
            f"{name}'s arguments are not checked: another expected tool gives none, "
            "so only that each tool is called is checked",
        )
        for index, (name, arguments) in enumerate(calls)
        if arguments is not None
    ]


def _call(item: object, location: str, path: str) -> tuple[str, dict[str, Any] | None]:
    """A tool call's name and its arguments (``None`` when it gives none)."""
    if isinstance(item, str) and item:
        return item, None
    call = mapping(item, location, path, "a tool call (a mapping with name)")
    name = required_text(call, "name", location, path)
    arguments = call.get("input_parameters", call.get("inputParameters"))
    if arguments is not None and not isinstance(arguments, dict):
        raise SpecError("must be a mapping", location=location, field=f"{path}.input_parameters")
    return name, arguments
