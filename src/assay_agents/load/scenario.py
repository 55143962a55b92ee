"""A scenario of a YAML suite, a catalog set or a paste, and how it becomes a case."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_agents import checks
from assay_agents.errors import SpecError
from assay_agents.load.formats import DEFAULT_RUBRIC_THRESHOLD, ActionModel, ScenarioModel
from assay_agents.spec import JSON, Case, portable
from assay_agents.spec.case import build_case
from assay_agents.spec.fixtures import ApiFixtures


@dataclass(frozen=True, slots=True)
class Expectations:
    """What a scenario expects: tools called or not, content present or absent, an answer.

    ``forbid_tools`` are tools the agent must not call (``forbid_actions``); no observation
    channel is needed to forbid a call.
    """

    tools: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    answer: str | None = None
    forbid_tools: tuple[str, ...] = ()
    equals: str | None = None
    icontains: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()
    icontains_any: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    max_latency_ms: float | None = None
    #: Exact calls in order, each ``{"group"?, "name", "arguments"}``; ``None``: not asserted.
    actions: tuple[dict[str, JSON], ...] | None = None

    def to_json(self) -> dict[str, JSON]:
        """The canonical form: fixed key order, empty values dropped."""
        described: dict[str, JSON] = {
            "tools": list(self.tools),
            "forbid_tools": list(self.forbid_tools),
            "contains": list(self.contains),
            "not_contains": list(self.not_contains),
            "answer": self.answer,
            "equals": self.equals,
            "icontains": list(self.icontains),
            "contains_any": list(self.contains_any),
            "icontains_any": list(self.icontains_any),
            "regex": list(self.regex),
            "max_latency_ms": self.max_latency_ms,
            "actions": None if self.actions is None else list(self.actions),
        }
        return {key: value for key, value in described.items() if value not in (None, [])}

    @property
    def reference(self) -> str | None:
        """The reference answer: ``answer``, or the text ``equals`` checks exactly."""
        return self.answer if self.equals is None else self.equals

    def both_expected_and_forbidden(self) -> list[str]:
        """Tools these expectations both require and forbid (a case no agent could pass)."""
        return [name for name in dict.fromkeys(self.forbid_tools) if name in self.tools]

    def checks(self) -> list[Any]:
        """The deterministic checks these expectations mean."""
        made: list[Any] = []
        if self.tools:
            made.append(checks.tools_called(self.tools))
        if self.forbid_tools:
            made.append(checks.forbid_actions(self.forbid_tools))
        made += numbered(checks.contains, "contains", self.contains)
        made += numbered(checks.not_contains, "not_contains", self.not_contains)
        return made + self._more_checks()

    def _more_checks(self) -> list[Any]:
        """The checks of the expectations other tools' datasets bring (exact, any-of, ...)."""
        made: list[Any] = []
        if self.equals is not None:
            made.append(checks.exact_match(name="equals"))
        made += numbered(_ignoring_case, "icontains", self.icontains)
        if self.contains_any:
            made.append(checks.regex(any_of(self.contains_any), name="contains_any"))
        if self.icontains_any:
            pattern = any_of(self.icontains_any)
            made.append(checks.regex(pattern, ignore_case=True, name="icontains_any"))
        made += numbered(checks.regex, "regex", self.regex)
        if self.max_latency_ms is not None:
            made.append(checks.max_latency_ms(self.max_latency_ms))
        return made


def _ignoring_case(text: str, *, name: str) -> Any:
    return checks.contains(text, ignore_case=True, name=name)


def any_of(texts: Sequence[str]) -> str:
    """A pattern that finds any of ``texts`` as written (none of them read as a pattern)."""
    return "|".join(re.escape(text) for text in texts)


#: A case's fields a scenario names otherwise: its key is the case's id, its prompt the input.
_FIELD_OF_CASE = {"id": "key", "input": "prompt"}


@dataclass(frozen=True, slots=True)
class Scenario:
    """One task: a key, a prompt, its group, expectations, notes, flags, tags and params."""

    key: str
    prompt: str
    group: str | None = None
    expect: Expectations = field(default_factory=Expectations)
    notes: str | None = None
    production_only: bool = False
    tags: tuple[str, ...] = ()
    params: dict[str, JSON] = field(default_factory=dict)
    api: JSON = None
    #: Judge rubrics, each with the score it must reach (0–1).
    rubrics: tuple[tuple[str, float], ...] = ()
    #: Important facts, told to the judge.
    facts: tuple[str, ...] = ()
    #: Where it was declared (file, field path), for errors and relative ``body_file`` paths.
    origin: Origin | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, JSON]:
        """The canonical form: keys in a fixed order, empty values dropped."""
        described: dict[str, JSON] = {
            "key": self.key,
            "prompt": self.prompt,
            "expect": self.expect.to_json(),
            "notes": self.notes,
            "production_only": self.production_only or None,
            "tags": list(self.tags),
            "params": sorted_json(self.params),
            "api": self.api,
            "rubrics": [_rubric_json(text, threshold) for text, threshold in self.rubrics],
            "facts": list(self.facts),
        }
        return {key: value for key, value in described.items() if value not in (None, [], {}, "")}

    def case(self, position: int, criteria: Sequence[str] = ()) -> Case:
        """The case this scenario becomes (id = key, group = its group or set).

        ``criteria`` are judge criteria of its own (its set's, in a product's suite).
        """
        origin = self.origin or Origin("<memory>", "")
        try:
            fixtures = None if self.api is None else api_fixtures(self.api, origin.folder)
            return build_case(
                self.prompt,
                position=position,
                id=self.key,
                group=self.group,
                expected=self.expect.reference,
                expected_actions=self.expect.actions,
                checks=self.expect.checks() or None,
                criteria=[*criteria, *self._criteria()] or None,
                metadata={"important_facts": list(self.facts)} if self.facts else None,
                api=fixtures,
                notes=self.notes,
                production_only=self.production_only,
                tags=self.tags,
                params=self.params,
            )
        except SpecError as error:
            if error.field in _FIELD_OF_CASE:  # named as the scenario spells it
                error = SpecError(error.detail, field=_FIELD_OF_CASE[error.field])
            raise origin.error(error) from None

    def _criteria(self) -> list[Any]:
        """One judge criterion per rubric: ``rubric``, or ``rubric[i]`` when there are several."""
        from assay_agents.judging.criteria import criterion

        if len(self.rubrics) == 1:
            text, threshold = self.rubrics[0]
            return [criterion("rubric", text, threshold=threshold)]
        return [
            criterion(f"rubric[{index}]", text, threshold=threshold)
            for index, (text, threshold) in enumerate(self.rubrics)
        ]


def _rubric_json(text: str, threshold: float) -> JSON:
    """A rubric as a file gives it: its text alone at the default threshold."""
    return (
        text if threshold == DEFAULT_RUBRIC_THRESHOLD else {"rubric": text, "threshold": threshold}
    )


@dataclass(frozen=True, slots=True)
class Origin:
    """A file and the path of a structure inside it."""

    location: str
    path: str

    @property
    def folder(self) -> Path | None:
        """The declaring file's folder, or ``None`` for text that came from no file."""
        path = Path(self.location)
        return path.parent if path.suffix else None

    def error(self, error: SpecError) -> SpecError:
        """The error located at this origin."""
        inner = error.field or ""
        field = (
            f"{self.path}.{inner}"
            if self.path and inner and not inner.startswith("[")
            else f"{self.path}{inner}"
        )
        return SpecError(error.detail, location=self.location, field=field or None)


def scenario_from(
    model: ScenarioModel, group: str | None, origin: Origin, key: str | None = None
) -> Scenario:
    """A scenario from its validated model (``key`` overrides one the parser generated)."""
    expect = model.expect
    expectations = (
        Expectations()
        if expect is None
        else Expectations(
            tuple(expect.tools or ()),
            tuple(expect.contains or ()),
            tuple(expect.not_contains or ()),
            expect.answer,
            tuple(expect.forbid_tools or ()),
            equals=expect.equals,
            icontains=tuple(expect.icontains or ()),
            contains_any=tuple(expect.contains_any or ()),
            icontains_any=tuple(expect.icontains_any or ()),
            regex=tuple(expect.regex or ()),
            max_latency_ms=expect.max_latency_ms,
            actions=None if expect.actions is None else _actions(expect.actions),
        )
    )
    try:
        params = portable(model.params or {}, "params")
        api = portable(model.api, "api")
        refuse_contradiction(expectations, "expect.forbid_tools")
    except SpecError as error:
        raise origin.error(error) from None
    assert isinstance(params, dict)
    return Scenario(
        key=key or model.key,
        prompt=model.prompt,
        group=group,
        expect=expectations,
        notes=model.notes,
        production_only=model.production_only,
        tags=tuple(model.tags or ()),
        params=params,
        api=api,
        rubrics=tuple((item.rubric, item.threshold) for item in model.rubrics or ()),
        facts=tuple(model.facts or ()),
        origin=origin,
    )


def _actions(models: Sequence[ActionModel]) -> tuple[dict[str, JSON], ...]:
    """Expected calls as plain data; a group is given only when the file names one."""
    return tuple(
        {
            **({} if action.group is None else {"group": action.group}),
            "name": action.name,
            "arguments": dict(action.arguments),
        }
        for action in models
    )


def refuse_contradiction(expect: Expectations, field: str) -> None:
    """Refuse a tool both expected and forbidden: no agent could pass such a case."""
    both = expect.both_expected_and_forbidden()
    if both:
        raise SpecError(
            f"{', '.join(both)} is both expected (tools) and forbidden; a case "
            "cannot require and forbid the same call",
            field=field,
        )


def numbered(factory: Callable[..., Any], name: str, texts: Sequence[str]) -> list[Any]:
    """One check per text; numbered names when there are several, so each is its own metric."""
    if len(texts) == 1:
        return [factory(texts[0], name=name)]
    return [factory(text, name=f"{name}[{index}]") for index, text in enumerate(texts)]


def api_fixtures(value: Any, base_dir: Path | None) -> ApiFixtures:
    """Replay fixtures from a file: a list of interactions, or allow_hosts and interactions.

    Built by :meth:`assay_agents.spec.fixtures.ApiFixtures.from_mapping`, the plain-data constructor
    the replay layer provides for file formats; ``body_file`` paths resolve against the
    declaring file's folder.
    """
    data = {"interactions": value} if isinstance(value, list) else value
    if not isinstance(data, dict):
        raise SpecError(
            "must be a list of interactions, or a table with allow_hosts and interactions",
            field="api",
        )
    return ApiFixtures.from_mapping(data, base_dir=base_dir)


def sorted_json(value: JSON) -> JSON:
    """Free-form JSON with every mapping's keys sorted, for a canonical document."""
    if isinstance(value, dict):
        return {key: sorted_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_json(item) for item in value]
    return value
