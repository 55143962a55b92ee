"""After the metrics: each failing or errored sample's fault, and a judge's refinement of it.

Diagnosis is pure (:mod:`assay_agents.results.diagnosis`); this step hands it the case's
expectations and the run's roster, and, with a judge, asks for a refinement of the faults a
judge can help with, within a run-wide limit. It happens before the sample reaches the sink:
stored samples never change.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assay_agents.judging import JudgeUsage
from assay_agents.judging.input import question_text
from assay_agents.judging.refine import refine
from assay_agents.results import SampleResult, SampleStatus
from assay_agents.results.diagnosed import Diagnosis
from assay_agents.results.diagnosis import REFINABLE, CaseFacts, Finding, Roster, diagnose
from assay_agents.results.storable import storable
from assay_agents.runner.grading import Judging
from assay_agents.spec import JSON, CasePlan

#: Refinement calls a run makes at most, by default.
DEFAULT_JUDGE_LIMIT = 25
#: Statuses that get a fault.
DIAGNOSED = frozenset({SampleStatus.FAILED, SampleStatus.ERROR})

RefineGate = Callable[[str, "str | None", str], Any]


@dataclass(slots=True)
class RefineLimit:
    """At most ``limit`` refinement calls per run, each first allowed by ``gate`` (if any).

    ``gate(case_id, model, fault)`` may be sync or async and return a bool; several processes
    can share one limit through it (a counter in a database, say). A gate that refuses or
    raises skips the call, which is then not counted against ``limit``.
    """

    limit: int = DEFAULT_JUDGE_LIMIT
    gate: RefineGate | None = None
    used: int = 0

    async def take(self, case_id: str, model: str | None, fault: str) -> bool:
        """Reserve one call; ``False`` when the limit is reached or the gate refuses."""
        if self.used >= self.limit:
            return False
        self.used += 1  # reserved before any await, so concurrent samples never overshoot
        if self.gate is None:
            return True
        try:
            allowed = self.gate(case_id, model, fault)
            if inspect.isawaitable(allowed):
                allowed = await allowed
        except Exception:
            allowed = False
        if allowed is not True:
            self.used -= 1
        return allowed is True


@dataclass(frozen=True, slots=True)
class Diagnosing:
    """The run's roster (tools and instructions), computed once, and its refinement limit."""

    roster: Roster = field(default_factory=Roster)
    refine: RefineLimit | None = None


def case_facts(plan: CasePlan) -> CaseFacts:
    """The case's expectations as values: question, expected tools, check settings."""
    case = plan.case
    expected = [action.name for action in case.expected_actions or ()]
    settings: dict[str, dict[str, JSON]] = {}
    for metric in plan.metrics:
        if metric.check is not None:
            described = dict(metric.check.settings())
            settings[metric.name] = described
            names = described.get("names")
            if described.get("type") == "ToolsCalled" and isinstance(names, list):
                expected += [name for name in names if isinstance(name, str)]
    reference = case.reference
    return CaseFacts(
        question=question_text(case.input),
        expected_tools=tuple(dict.fromkeys(expected)),
        expected_actions=tuple(case.expected_actions or ()),
        settings=settings,
        reference=reference if isinstance(reference, str) else None,
    )


async def conclude(
    result: SampleResult, plan: CasePlan, diagnosing: Diagnosing | None, judging: Judging | None
) -> SampleResult:
    """``result`` with its fault and recommendation (refined by the judge when allowed)."""
    diagnosing = diagnosing or Diagnosing()
    facts = case_facts(plan)
    finding = diagnose(result, facts, diagnosing.roster)
    if finding is None:
        return result
    result = dataclasses.replace(
        result,
        fault=finding.fault,
        recommendation=finding.recommendation,
        diagnosis=_diagnosis(finding),
    )
    limit = diagnosing.refine
    if (
        judging is not None
        and limit is not None
        and finding.fault in REFINABLE
        and await limit.take(result.case_id, result.model, finding.fault.value)
    ):
        result = await _refined(result, facts, finding, diagnosing.roster, judging)
    # Last, as for every sample: a judge's text is held to what any store can keep.
    return storable(result)


def _diagnosis(finding: Finding) -> Diagnosis | None:
    """The tools a finding involves, kept with the sample; ``None`` when it names none."""
    if not finding.tools and not finding.missing:
        return None
    return Diagnosis(finding.tools, finding.tools_label, missing_tools=finding.missing)


async def _refined(
    result: SampleResult, facts: CaseFacts, finding: Finding, roster: Roster, judging: Judging
) -> SampleResult:
    usage = JudgeUsage()
    refinement = await refine(judging.judge, facts.question, result.answer, finding, roster, usage)
    counted = usage.counted()
    merged = counted if result.judge_usage is None else result.judge_usage.combined(counted)
    # refine() already discarded a refinement that would add a tool the agent has.
    if refinement is None:
        return dataclasses.replace(result, judge_usage=merged)
    return dataclasses.replace(
        result,
        judge_usage=merged,
        recommendation=refinement.recommendation,
        diagnosis=dataclasses.replace(
            result.diagnosis or Diagnosis(tools_label=finding.tools_label), refinement=refinement
        ),
    )
