"""pydantic-evals datasets (``Dataset.from_file``): ``cases`` and their ``evaluators``.

Evaluators are written as pydantic-evals writes them: ``EqualsExpected`` alone, ``{Contains:
"text"}`` with one argument, ``{Contains: {value: ..., case_sensitive: false}}`` with
keywords, or ``{name: ..., arguments: ...}``. Dataset-level evaluators apply to every case.
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
    milliseconds,
    text_of,
)


def pydantic_evals(data: object, location: str, keys: Keys) -> tuple[list[Draft], list[Unmapped]]:
    """The scenarios of a pydantic-evals dataset's cases, and what could not be mapped."""
    dataset = mapping(data, location, "", "a pydantic-evals dataset (a mapping with cases)")
    cases = dataset.get("cases")
    if not isinstance(cases, list):
        raise SpecError("is missing or not a list of cases", location=location, field="cases")
    shared = _evaluators(dataset.get("evaluators"), location, "evaluators")
    unmapped: list[Unmapped] = []
    if dataset.get("report_evaluators"):
        unmapped.append(Unmapped("report_evaluators", "they grade a whole report"))
    drafts = []
    for index, raw in enumerate(cases):
        path = f"cases[{index}]"
        case = mapping(raw, location, path, "a case (a mapping with inputs)")
        if "inputs" not in case:
            raise SpecError("is missing", location=location, field=f"{path}.inputs")
        draft = Draft(
            keys.key(case.get("name"), index + 1), _prompt(case["inputs"], path, unmapped)
        )
        if not draft.prompt.strip():
            raise SpecError("must not be empty", location=location, field=f"{path}.inputs")
        draft.params = json_params(case.get("metadata"))
        own = _evaluators(case.get("evaluators"), location, f"{path}.evaluators")
        expected = case.get("expected_output")
        for at, name, arguments in [*shared, *own]:
            why = _mapped(name, arguments, expected, draft)
            if why is not None:
                unmapped.append(Unmapped(at, f"{name}: {why}"))
        if expected is not None and "equals" not in draft.expect:
            draft.expect["answer"] = text_of(expected)
        drafts.append(draft)
    return drafts, unmapped


def _prompt(inputs: object, path: str, unmapped: list[Unmapped]) -> str:
    """The inputs as a prompt: a text as is, a mapping of one text by that text, else JSON."""
    if isinstance(inputs, str):
        return inputs
    if isinstance(inputs, dict) and len(inputs) == 1:
        (only,) = inputs.values()
        if isinstance(only, str):
            return only
    unmapped.append(
        Unmapped(f"{path}.inputs", "structured inputs are given to the agent as JSON text")
    )
    return text_of(inputs)


def _evaluators(value: object, location: str, path: str) -> list[tuple[str, str, Any]]:
    """Each evaluator as (path, name, arguments), read in pydantic-evals' three forms."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError("must be a list of evaluators", location=location, field=path)
    read = []
    for index, spec in enumerate(value):
        at = f"{path}[{index}]"
        if isinstance(spec, str):
            read.append((at, spec, None))
        elif isinstance(spec, dict) and set(spec) <= {"name", "arguments"} and "name" in spec:
            read.append((at, str(spec["name"]), spec.get("arguments")))
        elif isinstance(spec, dict) and len(spec) == 1:
            ((name, arguments),) = spec.items()
            read.append((at, str(name), arguments))
        else:
            raise SpecError(
                "must be a name, or a mapping of one name to its arguments",
                location=location,
                field=at,
            )
    return read


def _argument(arguments: Any, name: str) -> Any:
    """The evaluator's first argument: given alone, or by its keyword."""
    if isinstance(arguments, dict):
        return arguments.get(name)
    if isinstance(arguments, list | tuple):
        return arguments[0] if arguments else None
    return arguments


def _mapped(name: str, arguments: Any, expected: Any, draft: Draft) -> str | None:
    """Put the evaluator on ``draft``; ``None`` when mapped, else why it is not."""
    if name == "EqualsExpected":
        if expected is None:
            return "the case has no expected_output (pydantic-evals skips it too)"
        return _equals(expected, draft)
    if name == "Equals":
        return _equals(_argument(arguments, "value"), draft)
    if name == "Contains":
        return _contains(arguments, draft)
    if name == "MaxDuration":
        seconds = _argument(arguments, "seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0.001:
            return "seconds must be a number of at least 0.001"
        draft.expect["max_latency_ms"] = milliseconds(seconds)
        return None
    if name == "LLMJudge":
        return _judge(arguments, draft)
    return "Assay has no check for it (a custom check can do what it does)"


def _equals(value: Any, draft: Draft) -> str | None:
    if not isinstance(value, str):
        return "Assay compares answers as text, and this value is not text"
    if draft.expect.get("equals", value) != value:
        return "the case already equals another text"
    draft.expect["equals"] = value
    return None


def _contains(arguments: Any, draft: Draft) -> str | None:
    value = _argument(arguments, "value")
    if not isinstance(value, str) or not value:
        return "Assay checks contained text, and this value is not text"
    sensitive = arguments.get("case_sensitive", True) if isinstance(arguments, dict) else True
    draft.add("contains" if sensitive is not False else "icontains", value)
    return None


def _judge(arguments: Any, draft: Draft) -> str | None:
    rubric = _argument(arguments, "rubric")
    if not isinstance(rubric, str) or not rubric.strip():
        return "its rubric is not text"
    draft.rubrics.append(rubric)
    return None
