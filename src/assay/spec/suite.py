"""A suite: a named, versioned set of cases plus the defaults they run with."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from assay.errors import SpecError
from assay.spec.case import Case, build_case
from assay.spec.metrics import CheckDefinition
from assay.spec.plan import SuitePlan, plan_suite


class Suite:
    """A named set of cases, the agent they run against, and their defaults.

    >>> suite = Suite("Customer support", agent=lambda text, ctx: "30 days")
    >>> case = suite.case("How long do I have to return an item?", expected="30 days")

    ``agent_name`` identifies the agent across revisions (it defaults to the callable's name);
    keep it stable and record revisions in run metadata, because baselines match on it.
    Bump ``version`` when a check's implementation or a rubric changes: callable source is not
    hashed into the fingerprint.
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
        samples: int = 1,
        concurrency: int | None = None,
        description: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise SpecError("a suite needs a non-empty name", field="name")
        if not callable(agent):
            raise SpecError(f"{agent!r} is not callable", location=name, field="agent")
        self.name = name
        self.agent = agent
        self.judge = judge
        self.version = version
        self.agent_name = agent_name or _callable_name(agent)
        self.description = description
        self.samples = _positive(samples, "samples", name)
        self.concurrency = None if concurrency is None else _positive(
            concurrency, "concurrency", name)
        self.checks: tuple[CheckDefinition, ...] = _default_checks(checks, name)
        self._cases: list[Case] = []
        self._ids: set[str] = set()

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
        setup: Any = None,
        name: str | None = None,
        id: str | None = None,
        group: str | None = None,
    ) -> Case:
        """Add a case and return it; invalid data fails here, not halfway through a run.

        ``expected`` is the reference answer; ``expected_actions`` the tool calls that must
        happen, in order (it implies the ``actions`` check); ``minimum_scores`` maps metric
        names to inclusive thresholds and selects the metrics of this case.
        """
        try:
            case = build_case(
                input, position=len(self._cases), expected=expected,
                expected_actions=expected_actions, minimum_scores=minimum_scores,
                metadata=metadata, checks=checks, setup=setup, name=name, id=id, group=group,
            )
        except SpecError as error:
            raise error.at(self.name) from None
        self.add(case)
        return case

    def add(self, case: Case) -> None:
        """Add an already-built case (file loaders use this); ids must stay unique."""
        if case.id in self._ids:
            raise SpecError("duplicate case id; give each case a unique id=",
                            location=self.name, case=case.id, field="id")
        # Plan it now so a bad minimum_scores name fails at definition time.
        plan_suite(self.name, self.version, [case], self.checks, judged=True)
        self._cases.append(case)
        self._ids.add(case.id)

    def plan(self, *, judged: bool | None = None) -> SuitePlan:
        """Fix the metrics of every case; ``judged`` defaults to whether a judge is set."""
        with_judge = self.judge is not None if judged is None else judged
        return plan_suite(self.name, self.version, self._cases, self.checks, judged=with_judge)

    def fingerprint(self) -> str:
        """The definition fingerprint that compatible baselines share."""
        return self.plan().fingerprint

    def __repr__(self) -> str:
        return f"Suite({self.name!r}, cases={len(self._cases)}, agent={self.agent_name!r})"


def _callable_name(agent: Callable[..., Any]) -> str:
    name = getattr(agent, "__qualname__", None) or type(agent).__qualname__
    return str(name)


def _positive(value: Any, field: str, suite: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(f"{value!r} is not a positive whole number", location=suite, field=field)
    return value


def _default_checks(checks: Sequence[CheckDefinition] | None, suite: str) -> tuple[
        CheckDefinition, ...]:
    if checks is None:
        return ()
    names: set[str] = set()
    for index, check in enumerate(checks):
        if not isinstance(check, CheckDefinition):
            raise SpecError(f"{check!r} is not a check (use assay.checks)", location=suite,
                            field=f"checks[{index}]")
        if check.name in names:
            raise SpecError(f"two checks are named {check.name!r}", location=suite,
                            field=f"checks[{index}]")
        names.add(check.name)
    return tuple(checks)
