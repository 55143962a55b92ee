"""Terminal rendering of a finished run: a per-case table, a summary, the regressions."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay.compare import Change, RunComparison
from assay.report.format import duration_ms, fraction, money, score
from assay.results import Run, SampleResult, SampleStatus

_STYLE = {
    SampleStatus.PASSED: "green",
    SampleStatus.FAILED: "red",
    SampleStatus.ERROR: "yellow",
    SampleStatus.NOT_EVALUATED: "dim",
}


def make_console() -> Console:
    """A console for standard output; in logs (not a terminal) lines are not hard-wrapped."""
    import sys

    if sys.stdout.isatty():
        return Console(soft_wrap=True)
    return Console(soft_wrap=True, width=120)


def render_run(console: Console, run: Run, comparison: RunComparison | None) -> None:
    """Print the case table, the summary line and the comparison with the baseline."""
    console.print(_case_table(run))
    _summary(console, run)
    _comparison(console, run, comparison)


def _case_table(run: Run) -> Table:
    table = Table(title=escape(f"{run.suite} · {run.agent}"), title_justify="left", expand=False)
    for column in ("case", "model", "sample", "status", "checks", "why"):
        table.add_column(column, overflow="fold")
    for sample in run.samples:
        table.add_row(
            escape(sample.case_id), escape(sample.model or "—"), str(sample.sample),
            f"[{_STYLE[sample.status]}]{sample.status.value}[/]",
            score(sample.check_score), escape(_why(sample)),
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
        f"{money(summary.cost_usd)}"
    )
    console.print(f"Run {run.id} ({run.status.value}) · fingerprint {run.fingerprint[:12]}")


def _comparison(console: Console, run: Run, comparison: RunComparison | None) -> None:
    if comparison is None:
        console.print("No compatible baseline: this run is the first of its definition.")
        return
    regressions = comparison.regressions
    console.print(f"Baseline {comparison.baseline_id}: {comparison.items_compared} item(s) "
                  f"compared, {len(regressions)} regression(s), "
                  f"{len(comparison.improvements)} improvement(s)")
    _changes(console, "Regression", regressions, "red")
    _changes(console, "Improvement", comparison.improvements, "green")


def _changes(console: Console, label: str, changes: Sequence[Change], style: str) -> None:
    for change in changes:
        model = f" ({change.model})" if change.model else ""
        what = f"{change.case_id}{model} · {change.metric} · " \
               f"{change.kind.value.replace('_', ' ')}: {change.detail}"
        console.print(f"  [{style}]{label}[/] {escape(what)}", highlight=False)
