"""Warnings about a suite that would run but measure nothing."""

from __future__ import annotations

import sys
from typing import Any

#: How many case ids a warning names before it counts the rest.
_NAMED = 5
#: ``assay_agents.otel.DIFFERENCES_KEY``, named here so that no run loads OpenTelemetry to read it.
_DIFFERENCES_KEY = "capture_differences"


def unchecked_lines(suite: Any, *, judged: bool, judge_hint: str) -> list[str]:
    """Say which cases check nothing (their samples would all be ``not_evaluated``) and why.

    A case checks nothing when it has no deterministic check and either no judge criteria or
    no judge to grade them; ``judge_hint`` says how to give the run a judge.
    """
    from assay_agents.spec.plan import metrics_of_cases

    # The metrics alone: fingerprinting every case is the run's to do, once.
    cases = suite.cases
    selected = metrics_of_cases(cases, suite.checks, suite.criteria, judged=judged)
    empty = [case for case, metrics in zip(cases, selected, strict=True) if not metrics]
    if not empty:
        return []
    # Criteria the case or the suite names itself; any case gets default ones with a judge.
    waiting = [case.id for case in empty if not judged and (case.criteria or suite.criteria)]
    bare = [case.id for case in empty if case.id not in waiting]
    lines = [f"warning: {_which(len(empty), len(cases))} would be not_evaluated (never passed):"]
    if bare:
        lines.append(
            f"  no check ({_names(bare)}): give the case or the suite checks=, "
            "expected_actions= or an observation to assert"
            + ("" if judged else f", or grade its answer with a judge ({judge_hint})")
        )
    if waiting:
        lines.append(f"  judge criteria but no judge ({_names(waiting)}): {judge_hint}")
    return lines


def _which(empty: int, cases: int) -> str:
    """``every case checks nothing, so its samples``, with the verb agreeing with the count."""
    if empty == cases:
        return "every case checks nothing, so its samples"
    if empty == 1:
        return f"1 of {cases} cases checks nothing, so its samples"
    return f"{empty} of {cases} cases check nothing, so their samples"


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:_NAMED])
    return shown + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")


def unverified_line(run: Any) -> str | None:
    """Say, per model, how many samples no response named a model for, and why; else ``None``.

    Such samples still count (an agent may call its provider through any client), but their
    figures are not proof that the model they are filed under produced them.
    """
    from collections import Counter

    from assay_agents.agent.answered import UNVERIFIED_KEY, UNVERIFIED_REASON

    unverified = Counter(
        sample.model
        for sample in run.samples
        if sample.model is not None and UNVERIFIED_KEY in sample.metadata
    )
    if not unverified:
        return None
    # Counted only when there is something to say: each pass over a large run unpacks it.
    asked = Counter(sample.model for sample in run.samples if sample.model is not None)
    counts = ", ".join(
        f"{model} {unverified[model]} of {asked[model]}" for model in asked if unverified[model]
    )
    return f"warning: model unverified for {counts} sample(s): {UNVERIFIED_REASON}"


def print_unchecked(suite: Any, *, judged: bool, judge_hint: str) -> None:
    """Before a run: print :func:`unchecked_lines` to standard error, if there are any."""
    from assay_agents.text import visible

    lines = unchecked_lines(suite, judged=judged, judge_hint=judge_hint)
    if lines:
        print(visible("\n".join(lines), lines=True), file=sys.stderr)


def unpriced_line(run: Any) -> str | None:
    """Say once when samples recorded tokens but no model, so nothing could price them.

    Assay prices tokens by the model that answered: the one the agent recorded in its
    outcome's ``metadata["model"]``, else the sample's (``--model``). With neither, the cost
    column would show a bare ``—`` with no reason; this names the two fixes.
    """
    blind = [sample for sample in run.samples if _tokens_without_model(sample)]
    if not blind:
        return None
    count = f"{len(blind)} sample(s)" if len(blind) < len(run.samples) else "every sample"
    return (
        f"warning: {count} recorded tokens but no model, so their cost is unknown: run with "
        '--model, or have the agent name the model it called in its outcome\'s metadata["model"]'
    )


def _tokens_without_model(sample: Any) -> bool:
    usage = sample.usage
    if usage is None or usage.cost_usd is not None or not usage.total_tokens:
        return False
    # Loaded here: the command list and --help import this module and must stay light.
    from assay_agents.agent.usage_by_model import usage_by_model

    named = sample.metadata.get("model")
    if usage_by_model(sample.metadata) is not None:
        return False  # several models answered, each named with its tokens
    return sample.model is None and not (isinstance(named, str) and named)


def contradicted_line(run: Any) -> str | None:
    """Say once which samples returned actions that their captured spans contradict.

    With ``capture="spans"`` what the agent returns is what is stored and checked; a tool
    call the spans show and the agent's actions omit (or the reverse) would otherwise be
    seen only in the sample's ``metadata["capture_differences"]``.
    """
    contradicted = [
        sample.case_id
        for sample in run.samples
        if isinstance(differences := sample.metadata.get(_DIFFERENCES_KEY), dict)
        and "actions" in differences
    ]
    if not contradicted:
        return None
    return (
        f"warning: {len(contradicted)} of {len(run.samples)} samples returned actions their "
        f"spans contradict ({_names(list(dict.fromkeys(contradicted)))}); the returned ones "
        'were checked, see metadata["capture_differences"]'
    )
