"""Terminal rendering of a finished run: a per-case table, a summary, the regressions.

Every string that came from a user, an agent, a judge or a remote endpoint goes through
:func:`shown`: control and bidirectional characters become visible escapes (they would
otherwise retitle the window or clear the screen), and Rich markup in it is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay._text import visible
from assay.compare import Change, Comparison, ModelComparison
from assay.report import _comparing as comparing
from assay.report._reading import judge_calls
from assay.report.format import duration_ms, fraction, money, percent, score
from assay.results import Run, RunSummary, SampleResult, SampleStatus, Tally

_STYLE = {
    SampleStatus.PASSED: "green",
    SampleStatus.FAILED: "red",
    SampleStatus.ERROR: "yellow",
    SampleStatus.NOT_EVALUATED: "dim",
}


def shown(text: str, *, lines: bool = False) -> str:
    """Untrusted text as the terminal may print it: controls visible, Rich markup escaped."""
    return escape(visible(text, lines=lines))


def make_console() -> Console:
    """A console for standard output; in logs (not a terminal) lines are not hard-wrapped."""
    import sys

    if sys.stdout.isatty():
        return Console(soft_wrap=True)
    return Console(soft_wrap=True, width=120)


def render_run(console: Console, run: Run, comparison: Comparison | None,
               models: ModelComparison | None = None) -> None:
    """Print the case table, the summary, the model comparison and the baseline comparison."""
    console.print(_case_table(run))
    _summary(console, run)
    render_models(console, models)
    if comparison is None:
        console.print("No compatible baseline: this run is the first of its definition.")
        return
    render_comparison(console, comparison)


def _case_table(run: Run) -> Table:
    table = Table(title=shown(f"{run.suite} · {run.agent}"), title_justify="left", expand=False)
    for column in ("case", "model", "sample", "status", "checks", "why"):
        table.add_column(column, overflow="fold")
    for sample in run.samples:
        table.add_row(
            shown(sample.case_id), shown(sample.model or "—"), str(sample.sample),
            f"[{_STYLE[sample.status]}]{sample.status.value}[/]",
            score(sample.check_score), shown(_why(sample), lines=True),
        )
    return table


def _why(sample: SampleResult) -> str:
    if sample.error is not None:
        return f"agent error: {sample.error}"
    problems = [
        f"{metric.name}: {metric.error or metric.reason or 'failed'}"
        for metric in sample.metrics if not metric.passed
    ]
    if sample.status is SampleStatus.NOT_EVALUATED:
        return "no metric calculated"
    return "\n".join(problems)


def _summary(console: Console, run: Run) -> None:
    summary = run.summary
    if summary is None:
        console.print(f"Run {run.id} is {run.status.value}.")
        return
    console.print(
        f"[bold]Passed {fraction(summary.passed, summary.evaluated)}[/] of evaluated samples · "
        f"cases {summary.cases_passed} of {summary.cases} · check score "
        f"{score(summary.check_score)} · failed {summary.failed} · errors {summary.errors} · "
        f"not evaluated {summary.not_evaluated}"
    )
    console.print(
        f"Latency avg {duration_ms(summary.latency_avg_ms)} · p50 "
        f"{duration_ms(summary.latency_p50_ms)} · p95 {duration_ms(summary.latency_p95_ms)} · "
        f"tokens {summary.input_tokens:,} in / {summary.output_tokens:,} out · cost "
        f"{money(summary.cost_usd, estimated=summary.estimated > 0)}"
    )
    _judged(console, summary)
    _models(console, summary)
    console.print(f"Run {run.id} ({run.status.value}) · fingerprint {run.fingerprint[:12]}")


def _judged(console: Console, summary: Tally) -> None:
    """Judge criteria on a line of their own: never averaged with the checks."""
    if not summary.judge:
        return
    criteria = " · ".join(
        f"{name} {score(item.mean)} (scored {item.scored} of {item.samples}, "
        f"{item.errors} errored"
        + ("" if item.mean_vote_spread is None else f", vote spread {item.mean_vote_spread:g}")
        + ")" for name, item in summary.judge.items())
    console.print(f"Judge: {shown(criteria)} · {judge_calls(summary)}, "
                  f"cost {money(summary.judge_cost_usd, estimated=summary.judge_cost_estimated)} "
                  "(not the agent's)", highlight=False)


def _models(console: Console, summary: RunSummary) -> None:
    if not summary.by_model:
        return
    table = Table(title="By model", title_justify="left")
    for column in ("model", "passed", "checks pass", "p50", "p95", "tokens", "cost",
                   "cost / 1,000", "judge calls"):
        table.add_column(column, no_wrap=True)
    for label, tally in summary.by_model.items():
        table.add_row(shown(label), fraction(tally.passed, tally.evaluated),
                      percent(tally.check_pass_rate), duration_ms(tally.latency_p50_ms),
                      duration_ms(tally.latency_p95_ms),
                      f"{tally.input_tokens + tally.output_tokens:,}",
                      money(tally.cost_usd, estimated=tally.estimated > 0),
                      money(tally.cost_per_1000_usd, estimated=tally.estimated > 0),
                      judge_calls(tally, noun=False))
    console.print(table)


def render_models(console: Console, models: ModelComparison | None) -> None:
    """Print each model's pass rate with its interval, the pairs, and the conclusion."""
    if models is None:
        return
    console.print(_table("Model comparison", comparing.model_interval_headers(models),
                         comparing.model_interval_rows(models)))
    if models.pairs:
        console.print(_table(None, comparing.pair_headers(models), comparing.pair_rows(models)))
    console.print(shown(models.conclusion), highlight=False)


def render_comparison(console: Console, comparison: Comparison) -> None:
    """Print the pairing first, defects before any figure, then each kind of change apart."""
    intro = comparing.comparison_intro(comparison, fraction)
    loud = 1 + len(comparison.defect_lines())
    for index, line in enumerate(intro):
        style = "bold red" if 0 < index < loud else "bold" if index <= loud else ""
        console.print(f"[{style}]{shown(line)}[/]" if style else shown(line), highlight=False)
    for label, items in (("Excluded", comparison.excluded),
                         ("Intended change", comparison.intended_changes)):
        for item in items:
            row = comparing.pairing_row(item)
            console.print(f"  [yellow]{label}[/] {shown(row[0])} · {shown(row[1])}: "
                          f"{shown(row[2])}", highlight=False)
    for kind, name in comparing.CHANGE_SECTIONS:
        _changes(console, name, comparison.of_kind(kind))


def _changes(console: Console, name: str, changes: Sequence[Change]) -> None:
    if not changes:
        return
    console.print(f"{name} ({len(changes)}):", highlight=False)
    for change in changes:
        style = "green" if not change.is_regression else "red" if change.is_signal else "dim"
        item, metric, category, moved, noise, detail = comparing.change_row(change)
        # The agent's own pseudo-metric needs no category beside it.
        what = metric if category in {"agent", metric} else f"{metric} ({category})"
        console.print(f"  [{style}]{shown(item)} · {shown(what)} · "
                      f"{moved} · {noise}[/]: {shown(detail)}", highlight=False)


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    table = Table(title=None if title is None else shown(title), title_justify="left",
                  expand=False)
    for header in headers:
        table.add_column(shown(header), overflow="fold")
    for row in rows:
        table.add_row(*(shown(cell) for cell in row))
    return table
