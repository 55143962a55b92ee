"""The file formats, as pydantic models: what each document may hold, and nothing else.

Every structure refuses unknown fields (``extra="forbid"``) and coercion (``strict``), except
the catalog, product and set levels of a catalog, whose unknown keys are kept as metadata.
The JSON Schemas ``assay-agents schema`` prints are generated from these models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    RootModel,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticCustomError

from assay_agents.limits import BOUNDS
from assay_agents.spec.metrics import JUDGE_CRITERIA

Text = Annotated[str, StringConstraints(min_length=1)]
Count = Annotated[int, Field(ge=1)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Provenance = Literal["authored", "derived", "recorded"]
# Counts within the bounds of their setting (assay_agents.limits), in the schema too, so that an
# editor flags a count past one.
Samples = Annotated[int, Field(ge=1, le=int(BOUNDS["samples"].high))]
Votes = Annotated[int, Field(ge=1, le=int(BOUNDS["votes"].high))]
Concurrency = Annotated[int, Field(ge=1, le=int(BOUNDS["concurrency"].high))]
#: The score a rubric must reach when its file gives no threshold (custom criteria's default).
DEFAULT_RUBRIC_THRESHOLD = 0.5
SampleConcurrency = Annotated[int, Field(ge=1, le=int(BOUNDS["sample_concurrency"].high))]


def _one_item_list(value: Any) -> Any:
    """A scalar where a list is expected is a list of that one item (``contains: "30"``)."""
    return [value] if isinstance(value, str) else value


def _prompts_as_scenarios(value: Any) -> Any:
    """In a pasted list, a text alone is a scenario with that prompt."""
    if isinstance(value, list):
        return [{"prompt": item} if isinstance(item, str) else item for item in value]
    return value


#: A list of texts; one text alone is a list of one.
Texts = Annotated[
    list[Text], BeforeValidator(_one_item_list, json_schema_input_type=Text | list[Text])
]
if TYPE_CHECKING:
    Criterion = str
else:  # an enum in the JSON Schema, so editors complete the built-in criteria
    Criterion = Literal[tuple(sorted(JUDGE_CRITERIA))]
#: ``module:attribute`` or ``path/to/file.py:attribute``.
EntryPoint = Annotated[str, StringConstraints(pattern=r"^[^:]+:[A-Za-z_][\w.]*$")]


class Strict(BaseModel):
    """Base of the strict structures."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Open(BaseModel):
    """Base of the catalog levels that keep unknown keys as metadata."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


# --- item files (TOML or JSON), one scenario each -------------------------------------------


class ReplyModel(Strict):
    """A reply to the pending interaction of a named case."""

    case: Text = Field(description="The case whose pending interaction this turn answers.")
    option: Text = Field(description="The option chosen, e.g. confirm.")
    workflow: Text | None = None


class InputModel(Strict):
    """The turn a person takes: a text, or a reply to a pending interaction (not both)."""

    text: Text | None = None
    reply: ReplyModel | None = None


class ActionModel(Strict):
    """One expected tool call; group, name and arguments must match exactly."""

    name: Text
    group: Text
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class ExpectModel(Strict):
    """What must be true afterwards.

    Observation channels declared in ``suite.toml`` are also allowed here: absent is not
    asserted, a list is asserted exactly and in order, ``[]`` asserts none.
    """

    answer: str | None = Field(None, description="The reference answer (graded by a judge).")
    contains: list[Text] | None = None
    not_contains: list[Text] | None = None
    tools: list[Text] | None = Field(None, description="Tools that must each be called.")
    actions: list[ActionModel] | None = Field(None, description="The exact tool calls, in order.")
    forbid: dict[str, list[JsonValue]] | None = Field(
        None,
        description="Per channel, items that must not appear; tools lists the tools "
        "that must not be called (no channel needed).",
    )


class ItemModel(Strict):
    """One item file: a named scenario, its starting state, its turn and its expectations."""

    id: Text
    name: Text | None = None
    group: Text | None = None
    tags: list[Text] = Field(default_factory=list)
    judge: list[Criterion] = Field(default_factory=list, description="Judge criteria.")
    notes: str | None = None
    params: dict[str, JsonValue] | None = None
    production_only: bool = False
    input: InputModel
    expect: ExpectModel | None = None
    setup: JsonValue = Field(None, description="Opaque JSON the harness seeds state from.")
    provenance: dict[str, Provenance] | None = Field(
        None, description="Who wrote each part: input, expect, setup, api, params."
    )
    api: JsonValue = Field(
        None,
        description="HTTP replay fixtures: a list of interactions, "
        "or allow_hosts and interactions.",
    )
    committed_effects: list[Text] | None = Field(
        None,
        description="The effects this scenario commits, told to the judge for "
        "operational claim integrity.",
    )
    committed_effects_channel: Text | None = Field(
        None,
        description="An observation channel the committed effects are read from, as "
        "the system recorded them.",
    )


class GateModel(Strict):
    """Gate thresholds."""

    min_pass_rate: Fraction | None = None
    max_side_effect_failures: Annotated[int, Field(ge=0)] = 0
    min_judge_score: Fraction | None = None


class SettingsModel(Strict):
    """``suite.toml``: the settings of a directory of items."""

    name: Text | None = None
    version: str | None = None
    description: str | None = None
    agent: EntryPoint | None = None
    harness: EntryPoint | None = None
    agent_name: Text | None = None
    samples: Samples | None = None
    votes: Votes | None = None
    concurrency: Concurrency | None = None
    sample_concurrency: SampleConcurrency | None = None
    concurrency_floor: Concurrency | None = None
    concurrency_ceiling: Concurrency | None = None
    rate_limit_retries: (
        Annotated[int, Field(ge=0, le=int(BOUNDS["rate_limit_retries"].high))] | None
    ) = None
    max_observed: Count | None = None
    channels: list[Text] = Field(
        default_factory=list, description="Observation channels the harness reports."
    )
    criteria: list[Criterion] | None = None
    gate: GateModel | None = None
    provenance: dict[str, Provenance] | None = None


# --- YAML suites and catalogs ----------------------------------------------------------------


class ScenarioExpectModel(Strict):
    """A scenario's expectations; one text alone stands for a list of one."""

    tools: Texts | None = None
    forbid_tools: Annotated[Texts, Field(min_length=1)] | None = Field(
        None, description="Tools that must not be called."
    )
    contains: Texts | None = None
    not_contains: Texts | None = None
    answer: str | None = None
    equals: str | None = Field(
        None, description="The exact answer (surrounding whitespace aside); the reference too."
    )
    icontains: Texts | None = Field(None, description="Texts the answer contains, any case.")
    contains_any: Texts | None = Field(None, description="The answer contains one of these.")
    icontains_any: Texts | None = Field(
        None, description="The answer contains one of these, any case."
    )
    regex: Texts | None = Field(None, description="Patterns the answer matches (re.search).")
    max_latency_ms: Annotated[float, Field(ge=1)] | None = Field(
        None, description="The longest a sample may take, in milliseconds."
    )
    actions: list[ActionModel] | None = Field(None, description="The exact tool calls, in order.")

    @model_validator(mode="before")
    @classmethod
    def _one_reference(cls, data: Any) -> Any:
        if isinstance(data, dict) and "equals" in data and "answer" in data:
            raise PydanticCustomError(
                "spec", "equals is the reference answer checked exactly; give answer or equals"
            )
        return data


class RubricModel(Strict):
    """A judge rubric of a scenario, with the score it must reach."""

    rubric: Text
    threshold: Fraction = DEFAULT_RUBRIC_THRESHOLD


def _rubric_tables(value: Any) -> Any:
    """A rubric's text alone stands for a rubric at the default threshold."""
    value = _one_item_list(value)
    if isinstance(value, list):
        return [{"rubric": item} if isinstance(item, str) else item for item in value]
    return value


#: Rubrics: texts, or tables with a rubric and its threshold.
Rubrics = Annotated[
    list[RubricModel],
    BeforeValidator(_rubric_tables, json_schema_input_type=Text | list[Text | RubricModel]),
]


class ScenarioModel(Strict):
    """One scenario of a YAML suite or catalog set (``expectations`` is ``expect`` spelt out)."""

    key: Text
    prompt: Text
    expect: ScenarioExpectModel | None = Field(
        None, validation_alias=AliasChoices("expect", "expectations")
    )
    notes: str | None = None
    production_only: bool = False
    tags: Texts | None = None
    params: dict[str, JsonValue] | None = None
    api: JsonValue = None
    rubrics: Rubrics | None = Field(
        None, description="Judge rubrics the answer is graded on (with a judge)."
    )
    facts: Texts | None = Field(None, description="Important facts told to the judge.")

    @model_validator(mode="before")
    @classmethod
    def _one_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "expect" in data and "expectations" in data:
            raise PydanticCustomError(
                "spec", "expect and expectations name the same field; give one"
            )
        return data


class PastedScenarioModel(ScenarioModel):
    """A scenario in a pasted document, whose key may be left for the parser to make."""

    key: Text | None = None  # type: ignore[assignment]


#: A pasted group's scenarios: tables, or prompts alone.
PastedScenarios = Annotated[list[PastedScenarioModel], BeforeValidator(_prompts_as_scenarios)]


class PastedListedScenarioModel(PastedScenarioModel):
    """A scenario of a pasted list, which names its own group (key and display name).

    Its expectations may also sit beside its prompt (``"tools": [...]``), as in pasted JSON.
    """

    group: Text | None = None
    group_name: Text | None = None
    tools: Texts | None = None
    forbid_tools: Annotated[Texts, Field(min_length=1)] | None = None
    contains: Texts | None = None
    not_contains: Texts | None = None


class PastedListModel(
    RootModel[Annotated[list[PastedListedScenarioModel], BeforeValidator(_prompts_as_scenarios)]]
):
    """A pasted JSON or YAML list: prompts and scenario tables, each naming its own group."""


class GroupModel(Strict):
    """A group of a YAML suite."""

    key: Text
    name: str | None = None
    scenarios: list[ScenarioModel] = Field(default_factory=list)


class PastedGroupModel(GroupModel):
    """A group in a pasted document; a text alone among its scenarios is a prompt."""

    key: Text | None = None  # type: ignore[assignment]
    scenarios: PastedScenarios = Field(default_factory=list)  # type: ignore[assignment]


class SuiteDocModel(Strict):
    """A YAML suite: groups of scenarios. ``agent``, ``agent_name`` and ``version`` are Assay's.

    ``agent_name`` is the identity runs are stored under (default: the agent's module and
    attribute).
    """

    suite: Text
    description: str | None = None
    version: str | None = None
    agent: EntryPoint | None = None
    agent_name: Text | None = None
    groups: list[GroupModel] = Field(default_factory=list)


class PastedDocModel(Strict):
    """A pasted YAML or JSON document: a suite (its agent and version unused), or its groups."""

    suite: Text | None = None
    description: str | None = None
    version: str | None = None
    agent: EntryPoint | None = None
    groups: list[PastedGroupModel] = Field(default_factory=list)


class SetJudgeModel(Strict):
    """The judge a set names."""

    kind: Text
    model: Text | None = None


class SetModel(Open):
    """A set of scenarios one product must answer."""

    key: Text
    name: str | None = None
    judge: SetJudgeModel | None = None
    criteria: list[Criterion] | None = None
    scenarios: list[ScenarioModel] = Field(default_factory=list)


class ProductModel(Open):
    """One agent a team ships, and its sets."""

    key: Text
    name: str | None = None
    agent: str | None = None
    description: str | None = None
    sets: list[SetModel] = Field(default_factory=list)


class CatalogModel(Open):
    """Every agent a team ships: products, each with its sets of scenarios."""

    catalog: Text
    name: str | None = None
    description: str | None = None
    products: list[ProductModel] = Field(default_factory=list)


def extras(model: BaseModel) -> dict[str, Any]:
    """The unknown keys an open structure kept, in document order."""
    return dict(model.model_extra or {})
