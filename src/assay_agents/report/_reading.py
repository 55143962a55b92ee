"""The reading every report format shares: which figures, labelled how, in which order.

Text and Markdown differ only in layout; deciding what a reader sees once, here, keeps the
formats from drifting apart (and gives the HTML report the same reading later). Strings come
out as they were stored, one-line ones folded by :func:`one_line`: each format escapes them
for its own medium on the way out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from assay_agents.agent import ANSWERED_MODEL_KEY, Action
from assay_agents.record import write_settings
from assay_agents.report import format as fmt
from assay_agents.results import (
    MetricResult,
    Run,
    RunStatus,
    RunSummary,
    SampleResult,
    Tally,
    Traces,
    Vote,
    summarise,
)
from assay_agents.results.reliability import CATEGORIES, INTEGRITY, item_rates
from assay_agents.text import one_line

Fraction = Callable[[int, int], str]
Rows = list[tuple[str, str]]

#: Characters shown of an answer where space is short (the text report).
ANSWER_PREVIEW = 300


#: One encoder for every call: ``json.dumps`` with options builds a new one each time.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def compact_json(value: Any) -> str:
    """JSON on one line, non-ASCII kept readable."""
    return _COMPACT.encode(value)


def title(run: Run) -> str:
    """Name what the report is about: ``suite · agent``."""
    return f"{run.suite} · {run.agent}"


# -- header ---------------------------------------------------------------------------------


def _rescored(original: str) -> str:
    return f"{original} (its recorded behaviour graded again; no agent was called)"


def header_rows(run: Run) -> Rows:
    """Identity, timing and settings of the run, as label/value pairs."""
    where = [] if run.number is None else [run.handle]
    where += [] if run.sequence is None else [f"sequence {run.sequence}"]
    sequence = f" ({', '.join(where)})" if where else ""
    return [
        (
            "Suite",
            run.suite
            if run.suite_version is None
            else f"{run.suite} (version {run.suite_version})",
        ),
        ("Agent", run.agent),
        ("Run", f"{run.id}{sequence}"),
        *(
            []
            if (original := run.rescored_from) is None
            else [("Rescored from", _rescored(original))]
        ),
        *([] if (release := run.settings.release) is None else [("Release", release.line())]),
        ("Status", run.status.value),
        ("Started", timestamp(run.started_at)),
        ("Finished", _finished(run)),
        ("Fingerprint", run.fingerprint[:12]),
        ("Settings", key_values(_set_only(write_settings(run.settings)))),
        ("Metadata", key_values(run.metadata)),
        *([] if (traces := traces_line(run.traces)) is None else [("Traces", traces)]),
    ]


def traces_line(traces: Traces | None) -> str | None:
    """``trace <id> · judge traces <id>, <id>``: what to look up in a tracing backend."""
    if traces is None or traces.empty:
        return None
    parts = [] if traces.trace_id is None else [f"trace {traces.trace_id}"]
    if traces.judge_trace_ids:
        parts.append("judge traces " + ", ".join(traces.judge_trace_ids))
    return " · ".join(parts)


def timestamp(moment: datetime) -> str:
    """Write a moment to the second, with its UTC offset when it has one."""
    return moment.isoformat(sep=" ", timespec="seconds")


def _finished(run: Run) -> str:
    if run.finished_at is None:
        return fmt.MISSING
    took = (run.finished_at - run.started_at).total_seconds() * 1000
    return f"{timestamp(run.finished_at)} (took {fmt.duration_ms(took)})"


def _set_only(settings: dict[str, Any]) -> dict[str, Any]:
    # Unset options (no timeout, no models) would only add noise to the header; the release
    # has a line of its own.
    return {
        key: value
        for key, value in settings.items()
        if value not in (None, [], {}) and key != "release"
    }


def key_values(values: dict[str, Any]) -> str:
    """``key=value`` pairs in stored order; lists joined by commas, objects as JSON."""
    if not values:
        return "none"
    return " · ".join(f"{key}={_setting(value)}" for key, value in values.items())


def _setting(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(item, str | int | float) for item in value):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict | list) or value is None:
        return compact_json(value)
    return one_line(str(value))


# -- summary --------------------------------------------------------------------------------


def summary_of(run: Run) -> tuple[RunSummary, str | None]:
    """Return the run's summary, or one drawn from the samples so far with a note saying so."""
    if run.summary is not None:
        return run.summary, None
    count = len(run.samples)
    state = "is still running" if run.status is RunStatus.RUNNING else f"is {run.status.value}"
    note = (
        f"No stored summary: the run {state}. "
        f"Figures below cover the {count} sample(s) recorded so far."
    )
    return summarise(run.samples, run.judge_usage), note


def summary_rows(
    tally: Tally, estimated: bool, frac: Fraction, limits: Sequence[float] = ()
) -> Rows:
    """List the deterministic headline figures of a tally; judge criteria are kept apart.

    ``limits`` are the gate's minimum pass rates: the rates it read stay on their side of them.
    """
    return [
        (
            "Samples",
            f"{tally.samples} ({tally.passed} passed, {tally.failed} failed, "
            f"{plural(tally.errors, 'error')}, {tally.not_evaluated} not evaluated)",
        ),
        ("Pass rate", frac(tally.passed, tally.evaluated)),
        ("Check score", fmt.score(tally.check_score)),
        ("Cases passed", f"{tally.cases_passed} of {tally.cases}"),
        ("Tokens", f"{fmt.tokens(tally.input_tokens)} in / {fmt.tokens(tally.output_tokens)} out"),
        ("Cost", cost(tally, estimated)),
        (
            "Latency",
            f"avg {fmt.duration_ms(tally.latency_avg_ms)} · "
            f"p50 {fmt.duration_ms(tally.latency_p50_ms)} · "
            f"p95 {fmt.duration_ms(tally.latency_p95_ms)}",
        ),
        *total_cost_rows(tally),
        *reliability_rows(tally, limits),
    ]


def total_cost_rows(tally: Tally) -> Rows:
    """The agent's and the judge's cost together, when a judge spent anything."""
    if tally.judge_cost_usd is None:
        return []
    guessed = tally.cost_basis in ("estimated", "mixed")
    agent = fmt.money(tally.cost_usd, estimated=guessed, partial=partial(tally))
    judge = fmt.money(tally.judge_cost_usd, estimated=tally.judge_cost_estimated)
    either = tally.judge_cost_estimated or guessed
    total = fmt.money(tally.total_cost_usd, estimated=either, partial=partial(tally))
    return [("Total cost", f"{total} (agent {agent} + judge {judge})")]


_CATEGORY_LABELS = {"side_effects": "side effects", "budget": "budgets"}


def reliability_rows(tally: Tally, limits: Sequence[float] = ()) -> Rows:
    """Failing samples per reliability category, and the rates kept apart from failures.

    The deterministic pass rate is read against ``limits``, the gate's minimum pass rates.
    """
    if not tally.failing_by_category:
        return []
    # Reading order is fixed here: a JSONB column does not keep the order it was given.
    order = {name: index for index, name in enumerate(CATEGORIES)}
    ordered = sorted(
        tally.failing_by_category.items(),
        key=lambda item: (order.get(item[0], len(order)), item[0]),
    )
    failing = " · ".join(f"{_CATEGORY_LABELS.get(name, name)} {count}" for name, count in ordered)
    rates = (
        f"deterministic pass {deterministic_rate(tally, limits)} · agent errors "
        f"{fmt.percent(tally.agent_error_rate)} · provider failures "
        f"{fmt.percent(tally.provider_failure_rate)} · not evaluated "
        f"{fmt.percent(tally.not_evaluated_rate)}"
    )
    return [("Failing", failing), *integrity_rows(tally), ("Rates", rates), *outcome_rows(tally)]


def integrity_rows(tally: Tally) -> Rows:
    """Failing samples per integrity category; judge scores are in none of them."""
    if not tally.integrity:
        return []
    counts = " · ".join(
        f"{name.replace('_', ' ').replace('side effect', 'side-effect')} "
        f"{tally.integrity.get(name, 0)}"
        for name in INTEGRITY
    )
    return [("Integrity", counts)]


def outcome_rows(tally: Tally) -> Rows:
    """Declared clarifications and abandonments, and the judge's own failures, when known."""
    parts = []
    if tally.clarification_rate is not None or tally.abandonment_rate is not None:
        parts += [
            f"clarification {fmt.percent(tally.clarification_rate)}",
            f"abandonment {fmt.percent(tally.abandonment_rate)}",
        ]
    if tally.judge_failure_rate is not None:
        # A judge outage is the evaluation's failure, never the agent's provider's.
        parts.append(
            f"judge failures {fmt.percent(tally.judge_failure_rate)} "
            "(the judge's, not the agent's provider)"
        )
    return [("Outcomes", " · ".join(parts))] if parts else []


def deterministic_rate(tally: Tally, limits: Sequence[float] = ()) -> str:
    """The deterministic pass rate (against a gate's ``limits``), or ``not measured``."""
    if tally.check_pass_rate is None and tally.evaluated > 0:
        return "not measured"
    return fmt.score_against(tally.check_pass_rate, *limits)


def plural(count: int, noun: str) -> str:
    """Write ``1 error`` or ``2 errors``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def cost(tally: Tally, estimated: bool) -> str:
    """Write the agent's cost, saying how many samples it covers when some went unpriced."""
    figure = fmt.money(tally.cost_usd, estimated=estimated, partial=partial(tally))
    if tally.model_cached:
        figure += f" ({plural(tally.model_cached, 'model call')} cached)"
    if tally.priced == tally.samples:
        return figure
    missing = f"; {tally.no_usage} reported no usage" if tally.no_usage and tally.unpriced else ""
    if tally.priced == 0:
        return f"{figure} (no sample priced{missing})"
    return f"{figure} ({tally.priced} of {tally.samples} samples priced{missing})"


def partial(tally: Tally) -> bool:
    """Whether a tally's cost covers only some of its samples: its money then reads ``~``."""
    return 0 < tally.priced < tally.samples


def marked(summary: RunSummary, samples: Iterable[SampleResult]) -> bool:
    """Whether a report of ``summary`` writes any money figure with ``~`` (the legend is due)."""
    return marked_if(summary, estimated(samples))


def marked_if(summary: RunSummary, any_estimated: bool) -> bool:
    """:func:`marked`, told whether any sample's cost was estimated."""
    tallies = [summary, *summary.by_model.values()]
    return any_estimated or any(partial(t) or t.judge_cost_estimated for t in tallies)


def estimated(samples: Iterable[SampleResult], model: str | None = None) -> bool:
    """Whether any part of the cost (of one model's samples) was estimated, not reported."""
    return any(
        s.usage is not None and s.usage.cost_source == "estimated"
        for s in samples
        if model is None or s.model == model
    )


def criterion_table(
    tally: Tally, frac: Fraction, limits: Sequence[float] = ()
) -> tuple[list[str], list[list[str]]]:
    """One row per judge criterion: mean, samples scored and errored, passes, vote spread.

    The spread column appears only when some criterion had two verdicts to compare: with one
    vote there is no spread, and none is shown.
    """
    spread = any(c.mean_vote_spread is not None for c in tally.judge.values())
    headers = ["criterion", "mean", "scored", "errored", "passed"] + ["vote spread"] * spread
    rows = [
        [
            name,
            fmt.score_against(c.mean, *limits),
            f"{c.scored} of {c.samples}",
            str(c.errors),
            frac(c.passed, c.samples),
        ]
        + [fmt.number(c.mean_vote_spread)] * spread
        for name, c in tally.judge.items()
    ]
    return headers, rows


def judge_calls(tally: Tally, *, noun: bool = True) -> str:
    """``7 calls (10 attempts)``: the HTTP attempts are named when retries made them differ."""
    calls = plural(tally.judge_calls, "call") if noun else str(tally.judge_calls)
    if tally.judge_attempts > tally.judge_calls:
        calls += f" ({plural(tally.judge_attempts, 'attempt')})"
    if tally.judge_cached:
        calls += f" ({fmt.count(tally.judge_cached)} cached)"
    return calls


def judge_usage(tally: Tally) -> str:
    """What the judge cost the evaluation: calls and attempts, tokens, money.

    A run's figures count its own calls (the model verdict) too, and say how many.
    """
    own = tally.run_judge_usage if isinstance(tally, RunSummary) else None
    part = f", {own.calls} of them the run's own" if own is not None and own.calls else ""
    return (
        f"{judge_calls(tally)}{part} · {fmt.tokens(tally.judge_input_tokens)} tokens in / "
        f"{fmt.tokens(tally.judge_output_tokens)} out · "
        f"{fmt.money(tally.judge_cost_usd, estimated=tally.judge_cost_estimated)} "
        "(not the agent's)"
    )


MODEL_HEADERS = [
    "model",
    "samples",
    "pass rate",
    "checks pass",
    "check score",
    "cases",
    "avg",
    "p50",
    "p95",
]


def model_rows(
    run: Run, summary: RunSummary, frac: Fraction, limits: Sequence[float] = ()
) -> list[list[str]]:
    """One row per model: the deterministic figures and latency side by side."""
    return [
        [
            label,
            str(t.samples),
            frac(t.passed, t.evaluated),
            fmt.score_against(t.check_pass_rate, *limits),
            fmt.score(t.check_score),
            f"{t.cases_passed} of {t.cases}",
            fmt.duration_ms(t.latency_avg_ms),
            fmt.duration_ms(t.latency_p50_ms),
            fmt.duration_ms(t.latency_p95_ms),
        ]
        for label, t in summary.by_model.items()
    ]


MODEL_COST_HEADERS = [
    "model",
    "tokens in/out",
    "cost",
    "per 1,000",
    "priced",
    "judge calls/cost",
]


def model_cost_rows(
    run: Run, summary: RunSummary, guessed_by: Callable[[str], bool] | None = None
) -> list[list[str]]:
    """One row per model: what it cost, on one denominator; the judge's cost apart.

    ``guessed_by`` says whether a model's cost was estimated (read from the samples without).
    """
    rows = []
    for label, t in summary.by_model.items():
        guessed = estimated(run.samples, label) if guessed_by is None else guessed_by(label)
        rows.append(
            [
                label,
                f"{fmt.tokens(t.input_tokens)} / {fmt.tokens(t.output_tokens)}",
                fmt.money(t.cost_usd, estimated=guessed, partial=partial(t)),
                fmt.money(t.cost_per_1000_usd, estimated=guessed, partial=partial(t)),
                f"{t.priced} of {t.samples} ({t.reported} rep., {t.estimated} est.)",
                f"{t.judge_calls} / "
                f"{fmt.money(t.judge_cost_usd, estimated=t.judge_cost_estimated)}",
            ]
        )
    return rows


def model_judge_table(
    summary: RunSummary, limits: Sequence[float] = ()
) -> tuple[list[str], list[list[str]]]:
    """Each judge criterion's mean per model (empty when nothing was judged)."""
    names = sorted({name for t in summary.by_model.values() for name in t.judge})
    rows = [
        [
            label,
            *(
                fmt.score_against(t.judge[name].mean, *limits) if name in t.judge else "—"
                for name in names
            ),
        ]
        for label, t in summary.by_model.items()
    ]
    return ["model", *names], (rows if names else [])


# -- cases ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaseBlock:
    """One case as the report shows it: its heading and its samples in order."""

    case_id: str
    heading: str
    samples: tuple[SampleResult, ...]


def case_blocks(run: Run) -> list[CaseBlock]:
    """Cases in position order, then any sample whose case the run did not snapshot."""
    # One pass over the samples, whatever the number of cases: a large run stays linear.
    by_case: dict[str, list[SampleResult]] = {}
    for sample in run.samples:
        by_case.setdefault(sample.case_id, []).append(sample)
    blocks = [
        CaseBlock(c.case_id, _case_heading(c.case_id, c.name), _ordered(by_case.get(c.case_id)))
        for c in sorted(run.cases, key=lambda c: c.position)
    ]
    known = {c.case_id for c in run.cases}
    blocks += [
        CaseBlock(case_id, case_id, _ordered(found))
        for case_id, found in by_case.items()
        if case_id not in known
    ]
    return blocks


def behaviour_lines(block: CaseBlock, frac: Fraction) -> list[str]:
    """Per model with two or more evaluated samples: distinct behaviours beside the pass rate.

    ``2 behaviours in 4 samples · checks pass 2/4 · 50%``: a behaviour is a sample's
    deterministic signature (its calls, observation channels and check verdicts).
    """
    lines = []
    for rate in item_rates(block.samples):
        if rate.samples < 2:
            continue
        who = "" if rate.model is None else f"{rate.model}: "
        lines.append(
            f"{who}{plural(rate.behaviours, 'behaviour')} in {rate.samples} samples "
            f"· checks pass {frac(rate.passed, rate.samples)}"
        )
    return lines


def _case_heading(case_id: str, name: str) -> str:
    return case_id if not name or name == case_id else f"{case_id} — {one_line(name)}"


def _ordered(found: list[SampleResult] | None) -> tuple[SampleResult, ...]:
    return tuple(sorted(found or (), key=lambda s: (s.model or "", s.sample)))


def sample_heading(sample: SampleResult) -> str:
    """``sample 0 · model · passed · check score 100% · 820 ms · 138 tokens · $0.000243``.

    The model the provider said answered follows the label (``answered by …``) when known.
    """
    parts = [f"sample {sample.sample}"]
    if sample.model is not None:
        parts.append(sample.model)
    answered = sample.metadata.get(ANSWERED_MODEL_KEY)
    if isinstance(answered, str) and answered:
        parts.append(f"answered by {one_line(answered)}")
    parts += [sample.status.value.replace("_", " "), f"check score {fmt.score(sample.check_score)}"]
    if sample.duration_ms is not None:
        parts.append(fmt.duration_ms(sample.duration_ms))
    usage = sample.usage
    if usage is not None and usage.total_tokens is not None:
        parts.append(f"{fmt.tokens(usage.total_tokens)} tokens")
    if usage is not None and usage.cost_usd is not None:
        parts.append(fmt.money(usage.cost_usd, estimated=usage.cost_source == "estimated"))
    return " · ".join(parts)


METRIC_HEADERS = ["metric", "kind", "score", "threshold", "result", "reason / error"]


def metric_row(metric: MetricResult) -> list[str]:
    """Name, kind, score, threshold, result and the reason (or the error) of one metric."""
    result = "error" if metric.error is not None else "passed" if metric.passed else "failed"
    why = metric.error if metric.error is not None else metric.reason
    if metric.votes and len(metric.votes) > 1:
        why = f"{why or ''} {_votes(metric)}".strip()
    return [
        metric.name,
        metric.kind,
        fmt.score_against(metric.score, metric.threshold),
        f"≥ {fmt.limit(metric.threshold)}",
        result,
        fmt.MISSING if not why else one_line(why),
    ]


def _vote(vote: Vote) -> str:
    return "failed" if vote.verdict is None else fmt.number(vote.verdict)


def _votes(metric: MetricResult) -> str:
    """The votes on their own scale and their spread: how sure the judge was."""
    raws = [_vote(v) for v in metric.votes or ()]
    spread = metric.vote_spread
    tail = "" if spread is None else f"; spread {fmt.number(spread)}"
    return f"(votes {', '.join(raws)}{tail})"


def action_lines(actions: Sequence[Action] | None) -> list[str]:
    """``group.name(arguments)`` per call; says so when nothing was instrumented or called."""
    if actions is None:
        return ["not instrumented"]
    if not actions:
        return ["none"]
    return [_action(action) for action in actions]


def _action(action: Action) -> str:
    name = action.name if action.group is None else f"{action.group}.{action.name}"
    call = f"{name}({compact_json(action.arguments)})"
    return f"{call} → error: {one_line(action.error or '')}" if action.failed else call


def preview(text: str, limit: int = ANSWER_PREVIEW) -> str:
    """Cut a long text to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… [{len(text) - limit:,} more characters]"
