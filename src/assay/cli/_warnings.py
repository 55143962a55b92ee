"""Warnings about a suite that would run but measure nothing."""

from __future__ import annotations

from typing import Any

#: How many case ids a warning names before it counts the rest.
_NAMED = 5


def unchecked_lines(suite: Any, *, judged: bool, judge_hint: str) -> list[str]:
    """Say which cases check nothing (their samples would all be ``not_evaluated``) and why.

    A case checks nothing when it has no deterministic check and either no judge criteria or
    no judge to grade them; ``judge_hint`` says how to give the run a judge.
    """
    plan = suite.plan(judged=judged)
    empty = [planned.case.id for planned in plan.cases if not planned.metrics]
    if not empty:
        return []
    # Criteria the case or the suite names itself; any case gets default ones with a judge.
    named = {planned.case.id for planned in plan.cases
             if planned.case.criteria or getattr(suite, "criteria", ())}
    waiting = [case_id for case_id in empty if not judged and case_id in named]
    bare = [case_id for case_id in empty if case_id not in waiting]
    whole = "every case" if len(empty) == len(plan.cases) else \
        f"{len(empty)} of {len(plan.cases)} case(s)"
    lines = [f"warning: {whole} checks nothing, so its samples would be not_evaluated "
             "(never passed):"]
    if bare:
        lines.append(f"  no check ({_names(bare)}): give the case or the suite checks=, "
                     "expected_actions= or an observation to assert"
                     + ("" if judged else f", or grade its answer with a judge ({judge_hint})"))
    if waiting:
        lines.append(f"  judge criteria but no judge ({_names(waiting)}): {judge_hint}")
    return lines


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:_NAMED])
    return shown + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")
