"""Turning pydantic's validation errors into spec errors a person can act on.

Every message names the file, the path of the offending field and, for a misspelt name, the
near one: ``trip/set_name.toml: expect.forbidd: unknown field (did you mean 'forbid'?)``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import AliasChoices, BaseModel, JsonValue, RootModel, ValidationError

from assay_agents.errors import SpecError
from assay_agents.text import suggestion

M = TypeVar("M", bound=BaseModel)
Loc = tuple[int | str, ...]

# Tags pydantic adds to the location inside a JsonValue (which member of the union failed).
_JSON_TAGS = frozenset({"dict", "list", "str", "int", "float", "bool", "none"})


def validate(
    model: type[M],
    data: Any,
    location: str,
    *,
    prefix: str = "",
    extra_names: Mapping[str, Iterable[str]] | None = None,
) -> M:
    """Validate ``data`` against ``model`` or raise a :class:`SpecError` for the first problem.

    ``prefix`` is the path of ``data`` inside its document; ``extra_names`` adds names that
    are valid at a path although the model does not declare them (observation channels).
    """
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise spec_error(error, model, location, prefix, extra_names or {}) from None
    except RecursionError:
        raise SpecError(
            "is nested too deeply (a recursive YAML alias?)",
            location=location,
            field=prefix or None,
        ) from None


def near_miss(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``name`` is most likely a misspelling of, or ``None``.

    Near means one edit (an insertion, deletion, substitution or swap of neighbours) from a
    name of up to five letters and two from a longer one, ignoring case: ``scenario`` for
    ``scenarios`` and ``agnet`` for ``agent``, but not ``owner_team`` for ``name``.
    """
    near = [
        (edits, known)
        for known in candidates
        if known != name and (edits := _edits(name, known)) <= (1 if len(known) <= 5 else 2)
    ]
    return min(near)[1] if near else None


def _edits(first: str, second: str) -> int:
    """Optimal string alignment distance between two names, case ignored."""
    a, b = first.casefold(), second.casefold()
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def join_path(prefix: str, part: int | str) -> str:
    """``expect`` + ``forbid`` → ``expect.forbid``; ``groups`` + 0 → ``groups[0]``."""
    if isinstance(part, int):
        return f"{prefix}[{part}]"
    return f"{prefix}.{part}" if prefix else str(part)


def render(loc: Loc, prefix: str = "") -> str:
    """A location as a field path: ``expect.actions[0].name``."""
    path = prefix
    for part in loc:
        path = join_path(path, part)
    return path


def spec_error(
    error: ValidationError,
    model: type[BaseModel],
    location: str,
    prefix: str,
    extra_names: Mapping[str, Iterable[str]],
) -> SpecError:
    """Every problem, located and explained: the first in the error's field, one line each.

    A file with three mistakes says all three, so that one round of fixes is enough.
    """
    # A misspelt name shows up as an unknown field and a missing one: the first says more.
    problems = sorted(
        error.errors(include_url=False), key=lambda problem: problem["type"] != "extra_forbidden"
    )
    located = []
    for problem in problems:
        loc = _without_tags(model, tuple(problem["loc"]))
        located.append((render(loc, prefix) or None, _detail(problem, model, loc, extra_names)))
    field, detail = located[0]
    if len(located) > 1:
        detail += f"\n  and {len(located) - 1} more in this file:" + "".join(
            f"\n  {other or '(top level)'}: {what}" for other, what in located[1:]
        )
    return SpecError(detail, location=location, field=field)


def _detail(
    problem: Mapping[str, Any],
    model: type[BaseModel],
    loc: Loc,
    extra_names: Mapping[str, Iterable[str]],
) -> str:
    kind = problem["type"]
    if kind == "extra_forbidden":
        names = [*_field_names(model, loc[:-1]), *extra_names.get(render(loc[:-1]), ())]
        return "unknown field" + suggestion(loc[-1] if loc else None, names)
    if kind == "missing":
        return "required field is missing"
    if kind == "spec":  # raised by a format's own rule, already worded for a person
        return str(problem["msg"])
    if kind == "literal_error":
        expected = problem.get("ctx", {}).get("expected", "")
        choices = [part.strip(" '") for part in expected.replace(" or ", ", ").split(",")]
        return f"{_shown(problem['input'])} is not allowed; expected {expected}" + suggestion(
            problem["input"], choices
        )
    if kind in {"model_type", "dict_type"}:
        return f"must be a table (mapping), not {_kind(problem['input'])}"
    if kind == "invalid-json-value":
        return "is not a JSON value (quote dates and times)"
    return f"{problem['msg']} (got {_shown(problem['input'])})"


def _without_tags(model: type[BaseModel], loc: Loc) -> Loc:
    """Drop the member tags pydantic puts in locations inside a JsonValue."""
    kept: list[int | str] = []
    current: Any = model
    expect_tag = True
    for part in loc:
        if current is JsonValue:
            if expect_tag and isinstance(part, str) and part in _JSON_TAGS:
                expect_tag = False
                continue
            expect_tag = True
        kept.append(part)
        current = _step(current, part)
    return tuple(kept)


def _field_names(model: type[BaseModel], loc: Loc) -> list[str]:
    current: Any = model
    for part in loc:
        current = _step(current, part)
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        aliases = [
            name
            for field in current.model_fields.values()
            if isinstance(field.validation_alias, AliasChoices)
            for name in field.validation_alias.choices
            if isinstance(name, str)
        ]
        return [*current.model_fields, *aliases]
    return []


def _step(annotation: Any, part: int | str) -> Any:
    current = _unwrap(annotation)
    if current is JsonValue or current is Any:
        return JsonValue
    if isinstance(current, type) and issubclass(current, RootModel):
        return _step(current.model_fields["root"].annotation, part)
    if isinstance(current, type) and issubclass(current, BaseModel):
        field = current.model_fields.get(str(part)) or _aliased(current, str(part))
        return None if field is None else field.annotation
    origin = typing.get_origin(current)
    args = typing.get_args(current)
    if origin in (list, tuple, Sequence) and isinstance(part, int) and args:
        return args[0]
    if origin in (dict, Mapping) and isinstance(part, str) and len(args) == 2:
        return args[1]
    return None


def _aliased(model: type[BaseModel], name: str) -> Any:
    """The field ``name`` is another name of (``expectations`` for ``expect``), or ``None``."""
    for field in model.model_fields.values():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices) and name in alias.choices:
            return field
    return None


def _unwrap(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return _unwrap(members[0]) if len(members) == 1 else annotation
    return annotation


def _kind(value: Any) -> str:
    names = {
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
