"""A suite: a named, versioned set of cases plus the defaults they run with."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay_agents.errors import SpecError
from assay_agents.limits import bounded
from assay_agents.spec.case import Case, build_case, present_parts, validate_criteria
from assay_agents.spec.fixtures import ApiFixtures
from assay_agents.spec.gate import Gate
from assay_agents.spec.json_data import portable, shown_text, storable_text
from assay_agents.spec.metrics import CheckDefinition
from assay_agents.spec.plan import SuitePlan, case_metrics, plan_suite
from assay_agents.spec.provenance import validate_provenance, with_default


class Suite:
    """A named set of cases, the agent they run against, and their defaults.

    >>> suite = Suite("Customer support", agent=lambda text, ctx: "30 days")
    >>> case = suite.case("How long do I have to return an item?", expected="30 days")

    ``agent_name`` identifies the agent across revisions (it defaults to the callable's name);
    keep it stable and record revisions in run metadata, because baselines match on it.
    Bump ``version`` when a check's implementation or a rubric changes: callable source is not
    hashed into the fingerprint.

    ``available_tools`` (tool name → description) and ``instructions`` (the agent's system
    prompt) describe what the agent was given; diagnosis and the judge read them to say which
    tool is missing or which instruction to change. They are not fingerprinted.

    ``capture="spans"`` (with the ``otel`` extra) builds each sample's actions, usage and
    model from the OpenTelemetry GenAI spans the agent's framework emits inside it; what the
    agent returns itself wins, and a difference is recorded (see
    :func:`assay_agents.otel.from_spans`). Spans name no group, and expected actions name theirs:
    ``action_groups`` (tool name → group) gives the group of every call recorded without one.

    ``around_sample`` and ``on_result`` are the hooks of every run of the suite (an argument
    of :func:`assay.run` wins); see there.
    """

    def __init__(
        self,
        name: str,
        *,
        agent: Callable[..., Any],
        judge: Any = None,
        version: str | None = None,
        agent_name: str | None = None,
        checks: Sequence[CheckDefinition] | None = None,
        criteria: Sequence[Any] | None = None,
        samples: int = 1,
        concurrency: int | None = None,
        description: str | None = None,
        provenance: Mapping[str, Any] | None = None,
        sample_concurrency: int | None = None,
        votes: int | None = None,
        gate: Gate | None = None,
        available_tools: Mapping[str, str] | None = None,
        instructions: str | None = None,
        capture: str | None = None,
        action_groups: Mapping[str, str] | None = None,
        concurrency_floor: int | None = None,
        concurrency_ceiling: int | None = None,
        rate_limit_retries: int | None = None,
        around_sample: Callable[..., Any] | None = None,
        on_result: Callable[..., Any] | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise SpecError("a suite needs a non-empty name", field="name")
        _storable_settings(
            name=name,
            version=version,
            agent_name=agent_name,
            description=description,
            instructions=instructions,
            available_tools=available_tools,
        )
        if not callable(agent):
            raise SpecError(f"{agent!r} is not callable", location=name, field="agent")
        self.name = name
        self.agent = agent
        self.judge = judge
        self.version = version
        self.agent_name = agent_name or _callable_name(agent)
        self.description = description
        self.samples = _positive(samples, "samples", name)
        self.concurrency = (
            None if concurrency is None else _positive(concurrency, "concurrency", name)
        )
        # Samples of one case (and model) in flight at once; None leaves only `concurrency`.
        self.sample_concurrency = (
            None
            if sample_concurrency is None
            else _positive(sample_concurrency, "sample_concurrency", name)
        )
        self.votes = None if votes is None else _positive(votes, "votes", name)
        # How each model's concurrency adapts to rate limits (None: the run's default).
        self.concurrency_floor = _optional(concurrency_floor, "concurrency_floor", name)
        self.concurrency_ceiling = _optional(concurrency_ceiling, "concurrency_ceiling", name)
        self.rate_limit_retries = _optional(rate_limit_retries, "rate_limit_retries", name, 0)
        if gate is not None and not isinstance(gate, Gate):
            raise SpecError(f"{gate!r} is not an assay.Gate", location=name, field="gate")
        self.gate = gate
        # The agent's roster, for diagnosis and the judge: not part of any fingerprint.
        self.available_tools = _tool_roster(available_tools, name)
        self.instructions = _instructions(instructions, name)
        # Where each sample's actions and usage come from besides the agent's own return.
        self.capture = _capture(capture, name)
        # The group of each tool whose calls come without one (spans name no group).
        self.action_groups = _action_groups(action_groups, name)
        # The run's hooks (see assay.run): not part of any fingerprint.
        self.around_sample = _hook(around_sample, "around_sample", name)
        self.on_result = _hook(on_result, "on_result", name)
        self.checks: tuple[CheckDefinition, ...] = _default_checks(checks, name)
        try:
            self.criteria = validate_criteria(criteria, "criteria")
        except SpecError as error:
            raise error.at(name) from None
        try:
            # The suite-wide default, under each case's own declaration (see add).
            self.provenance = validate_provenance(provenance)
        except SpecError as error:
            raise error.at(name) from None
        self._cases: list[Case] = []
        self._ids: set[str] = set()

    #: The file the suite was opened from (set by :func:`assay_agents.load.open_suite`): a run reads
    #: the revision of the repository that holds it.
    origin: Path | None = None

    #: Set on a selection (:meth:`subset`): how many cases the whole suite has. A run of a
    #: selection is compared with its baseline on the cases it ran.
    selected_from: int | None = None

    @property
    def cases(self) -> tuple[Case, ...]:
        """The cases in definition order."""
        return tuple(self._cases)

    def case(
        self,
        input: Any,
        *,
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
        """Add a case and return it; invalid data fails here, not halfway through a run.

        ``expected`` is the reference answer; ``expected_actions`` the tool calls that must
        happen, in order (it implies the ``actions`` check); ``criteria`` adds judge criteria
        (built-in names or :func:`assay.criterion`), graded only when the suite has a judge;
        ``minimum_scores`` maps metric names to inclusive thresholds and selects the metrics
        of this case. ``api`` declares the HTTP requests the agent must make and their
        canned responses (:func:`assay.api`); they are replayed for this case only.
        ``provenance`` says who wrote each part (``{"setup": "derived"}``; see
        :mod:`assay_agents.spec.provenance`), which decides how comparisons treat a changed part.
        ``observation`` asserts channels the agent's harness reports, exactly and in order
        (``{"commands": ["trip.set_name"]}``; ``[]`` asserts none), and ``forbid`` lists items
        that must not appear in a channel. ``reply`` makes the turn an answer to the pending
        interaction of a named case (``{"case": "trip-1", "option": "confirm"}``) instead of
        an input. ``tags``, ``params``, ``notes`` and ``production_only`` describe the case
        and drive selection (:meth:`subset`).
        """
        try:
            case = build_case(
                input,
                position=len(self._cases),
                expected=expected,
                expected_actions=expected_actions,
                minimum_scores=minimum_scores,
                metadata=metadata,
                checks=checks,
                criteria=criteria,
                setup=setup,
                name=name,
                id=id,
                group=group,
                api=api,
                provenance=provenance,
                observation=observation,
                forbid=forbid,
                tags=tags,
                params=params,
                notes=notes,
                production_only=production_only,
                reply=reply,
            )
        except SpecError as error:
            raise error.at(self.name) from None
        return self.add(case)

    def add(self, case: Case) -> Case:
        """Add an already-built case (file loaders use this) and return it as stored.

        Ids must stay unique. The suite's default provenance applies to the parts the case
        has and did not declare itself.
        """
        if self.provenance:
            merged = with_default(case.provenance, self.provenance, present_parts(case))
            case = replace(case, provenance=merged)
        if case.id in self._ids:
            raise SpecError(
                "duplicate case id; give each case a unique id=",
                location=self.name,
                case=case.id,
                field="id",
            )
        _storable_case(case, self.name)
        # Select its metrics now so a bad minimum_scores name fails at definition time (no
        # fingerprint: the run computes that once for the whole plan).
        case_metrics(case, self.checks, self.criteria, judged=True)
        self._cases.append(case)
        self._ids.add(case.id)
        return case

    def subset(self, keep: Callable[[Case], bool]) -> Suite:
        """The same suite (name, agent, settings) holding only the cases ``keep`` accepts.

        Selection by group, id or production flag uses this; the fingerprint follows the
        cases kept, so a selection is compared only with runs of the same selection.
        """
        chosen = copy.copy(self)
        chosen._cases = [case for case in self._cases if keep(case)]
        chosen._ids = {case.id for case in chosen._cases}
        if len(chosen._cases) < len(self._cases):
            chosen.selected_from = self.selected_from or len(self._cases)
        return chosen

    def with_fixtures(self, fixtures: Mapping[str, ApiFixtures]) -> Suite:
        """The same suite with these cases' replay fixtures (by case id) put in.

        Replaying recorded fixtures uses this; the fingerprint follows the fixtures, so a
        replayed run is compared only with runs that replayed the same ones.
        """
        chosen = copy.copy(self)
        chosen._cases = [
            replace(case, api=fixtures[case.id]) if case.id in fixtures else case
            for case in self._cases
        ]
        return chosen

    def plan(self, *, judged: bool | None = None) -> SuitePlan:
        """Fix the metrics of every case; ``judged`` defaults to whether a judge is set."""
        with_judge = self.judge is not None if judged is None else judged
        return plan_suite(
            self.name,
            self.version,
            self._cases,
            self.checks,
            judged=with_judge,
            default_criteria=self.criteria,
        )

    def fingerprint(self) -> str:
        """The definition fingerprint that compatible baselines share."""
        return self.plan().fingerprint

    def __repr__(self) -> str:
        return f"Suite({self.name!r}, cases={len(self._cases)}, agent={self.agent_name!r})"


def _storable_settings(**settings: Any) -> None:
    """Every text setting a run stores, storable by every backend (no NUL, no surrogate).

    Checked first, before the name is used to locate any other error: a name that cannot be
    stored cannot be printed either.
    """
    for field, value in settings.items():
        if isinstance(value, str):
            storable_text(value, field)
        elif isinstance(value, Mapping):
            portable(dict(value), field)


def _storable_case(case: Case, suite: str) -> None:
    """The case's stored definition holds only text every backend can store."""
    try:
        portable(case.definition(), "")
    except SpecError as error:
        field = (error.field or "").lstrip(".") or None
        raise SpecError(
            error.detail, location=suite, case=shown_text(case.id), field=field
        ) from None


def _callable_name(agent: Callable[..., Any]) -> str:
    name = getattr(agent, "__qualname__", None) or type(agent).__qualname__
    return str(name)


def _hook(value: Any, field: str, suite: str) -> Callable[..., Any] | None:
    if value is not None and not callable(value):
        raise SpecError(f"{value!r} is not callable", location=suite, field=field)
    return value  # type: ignore[no-any-return]


def _tool_roster(tools: Mapping[str, str] | None, suite: str) -> dict[str, str] | None:
    if tools is None:
        return None
    if not isinstance(tools, Mapping) or not all(
        isinstance(key, str) and key and isinstance(value, str) for key, value in tools.items()
    ):
        raise SpecError(
            "must map tool names to their descriptions (strings)",
            location=suite,
            field="available_tools",
        )
    return dict(tools)


def _action_groups(groups: Mapping[str, str] | None, suite: str) -> dict[str, str]:
    if groups is None:
        return {}
    if not isinstance(groups, Mapping) or not all(
        isinstance(key, str) and key and isinstance(value, str) and value.strip()
        for key, value in groups.items()
    ):
        raise SpecError(
            "must map tool names to their groups (non-empty strings)",
            location=suite,
            field="action_groups",
        )
    return dict(groups)


def _instructions(text: str | None, suite: str) -> str | None:
    if text is not None and not isinstance(text, str):
        raise SpecError(
            "must be the agent's instructions as a string", location=suite, field="instructions"
        )
    return text


def _positive(value: Any, field: str, suite: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(f"{value!r} is not a positive whole number", location=suite, field=field)
    return bounded(field, value, location=suite)


def _optional(value: Any, field: str, suite: str, least: int = 1) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        what = "a positive whole number" if least else "a whole number (0 or more)"
        raise SpecError(f"{value!r} is not {what}", location=suite, field=field)
    return bounded(field, value, location=suite)


def _default_checks(
    checks: Sequence[CheckDefinition] | None, suite: str
) -> tuple[CheckDefinition, ...]:
    if checks is None:
        return ()
    names: set[str] = set()
    for index, check in enumerate(checks):
        if not isinstance(check, CheckDefinition):
            raise SpecError(
                f"{check!r} is not a check (use assay_agents.checks)",
                location=suite,
                field=f"checks[{index}]",
            )
        if check.name in names:
            raise SpecError(
                f"two checks are named {check.name!r}", location=suite, field=f"checks[{index}]"
            )
        names.add(check.name)
    return tuple(checks)


#: The sources ``Suite(capture=...)`` accepts.
CAPTURES = ("spans",)


def _capture(value: Any, suite: str) -> str | None:
    if value is None or value in CAPTURES:
        return value  # type: ignore[no-any-return]
    raise SpecError(
        f"{value!r} is not a capture; expected one of {', '.join(CAPTURES)}",
        location=suite,
        field="capture",
    )
