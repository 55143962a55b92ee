"""Terminal rendering of a finished run: a per-case table, a summary, the regressions.

Every string that came from a user, an agent, a judge or a remote endpoint goes through
:func:`shown`: control and bidirectional characters become visible escapes (they would
otherwise retitle the window or clear the screen), and Rich markup in it is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table as Table_

from assay_agents.compare import Comparison, ModelComparison
from assay_agents.report import format as fmt
from assay_agents.report import prose
from assay_agents.report.view import (
    ChangeGroup,
    ComparisonSection,
    ModelsSection,
    ReportView,
    Row,
    SummarySection,
    Table,
    compared_section,
    models_section,
    summary_section,
    view_of,
    written,
)
from assay_agents.results import Run, SampleResult, SampleStatus
from assay_agents.results.baseline import BaselineChoice
from assay_agents.results.sample_facts import SampleFacts
from assay_agents.results.tracebacks import traceback_of
from assay_agents.text import lines_of, visible

if TYPE_CHECKING:
    from assay_agents.evaluation import Verdict

_STYLE = {
    SampleStatus.PASSED: "green",
    SampleStatus.FAILED: "red",
    SampleStatus.ERROR: "yellow",
    SampleStatus.NOT_EVALUATED: "dim",
}


def shown(text: str, *, lines: bool = False) -> str:
    """Untrusted text as the terminal may print it: controls visible, Rich markup escaped."""
    return escape(visible(text, lines=lines))


class _Console(Console):
    """Rich's console, except that a closed pipe is the command's to handle.

    Rich exits 1 on a broken pipe, which to ``assay-agents run`` means that the agent failed.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def make_console() -> Console:
    """A console for standard output; in logs (not a terminal) lines are not hard-wrapped."""
    import sys

    if sys.stdout.isatty():
        return _Console(soft_wrap=True)
    return _Console(soft_wrap=True, width=120)


def render_run(
    console: Console,
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    *,
    baseline: BaselineChoice | None = None,
    verbose: bool = False,
    db: str = "",
    facts: SampleFacts | None = None,
) -> None:
    """Print the case table, the summary, the model comparison and the baseline comparison.

    The case table lists the samples that did not pass (every sample with ``verbose``).
    The baseline is always named, with why it was chosen (or why there is none). ``db``
    (`` --db URL``) ends every command printed to paste. ``facts`` are what the figures read
    of the samples (by default, read of ``run.samples`` here).
    """
    view = view_of(run, comparison, models, evidence=False, facts=facts)
    render_view(console, view, baseline=baseline, verbose=verbose, db=db)


def render_view(
    console: Console,
    view: ReportView,
    *,
    baseline: BaselineChoice | None = None,
    verbose: bool = False,
    db: str = "",
) -> None:
    """Print a report view as the terminal summary (see :func:`render_run`)."""
    run = view.run
    _samples(console, run, verbose=verbose, db=db)
    summary = view.section(SummarySection)
    if run.summary is None or summary is None:
        console.print(f"Run {run.id} is {run.status.value}.")
    else:
        _summary(console, summary)
        if view.estimated:
            console.print(fmt.ESTIMATED_LEGEND, highlight=False)
        # The handle holds the suite's name: untrusted text, shown as text.
        numbered = "" if run.number is None else f" · {shown(run.handle)}"
        console.print(
            f"Run {run.id}{numbered} ({run.status.value}) · fingerprint {run.fingerprint[:12]}"
        )
    models = view.section(ModelsSection)
    if models is not None:
        _model_comparison(console, models)
    render_baseline(console, baseline, view.comparison, db=db)
    compared = view.section(ComparisonSection)
    if compared is not None and compared.comparison is not None:
        _comparison(console, compared, run_id=run.id, verbose=verbose, db=db)


def render_baseline(
    console: Console, choice: BaselineChoice | None, comparison: Comparison | None, *, db: str = ""
) -> None:
    """One line: ``Baseline: 428c1f0a (latest passing run) · 3 of 3 unchanged item(s) ...``.

    Without a baseline it says why there is none.
    """
    if choice is None:
        line = (
            prose.baseline_line(comparison)
            if comparison is not None
            else "no baseline: this run is the first of its definition"
        )
    else:
        line = choice.line(db)
        if comparison is not None:
            line += f" · {prose.items_line(comparison)}"
    console.print(f"[bold]{shown(line)}[/]", highlight=False)


#: Without ``--verbose``, every list (samples, changes, moved items) shows at most this many:
#: a screenful; a line after it says how many more and which command shows them.
SHOWN_ITEMS = 20


def capped(items: Sequence[str], *, verbose: bool, more: str) -> list[str]:
    """``items``, at most :data:`SHOWN_ITEMS` of them unless ``verbose``, then how many more.

    ``more`` ends the last line: what the hidden items are and the command that shows them,
    e.g. ``change(s): assay-agents report 1a2b3c4d --format text lists them all``.
    """
    if verbose or len(items) <= SHOWN_ITEMS:
        return list(items)
    return [*items[:SHOWN_ITEMS], f"  … {len(items) - SHOWN_ITEMS} more {more}"]


def closing_line(run: Run, verdict: Verdict, seconds: float) -> str:
    """The run's last line, as pytest ends: ``== 2 failed, 5 passed, 0 errors · … · 3.21 s ==``.

    Counts are samples; the gate, the signal regressions and a run that checked nothing are
    named only when they apply. The result comes last, ``PASSED`` or ``FAILED (why)``: a run
    that exits 1 never ends on a line that reads as green (``gate passed`` beside errors).
    """
    summary = run.summary
    counts = (
        "no summary"
        if summary is None
        else (
            f"{summary.failed} failed, {summary.passed} passed, {summary.errors} errors"
            + (f", {summary.not_evaluated} not evaluated" if summary.not_evaluated else "")
        )
    )
    parts = [counts]
    if verdict.gate is not None:
        parts.append("gate passed" if verdict.gate.passed else "gate failed")
    if verdict.regressions:
        parts.append(
            f"{verdict.regressions} regression" + ("" if verdict.regressions == 1 else "s")
        )
    if verdict.unchecked:
        parts.append("nothing was checked")
    parts.append(_result(verdict))
    parts.append(fmt.duration_ms(seconds * 1000))
    return f"== {' · '.join(parts)} =="


def _result(verdict: Verdict) -> str:
    if verdict.passed:
        return "PASSED"
    # A verdict built without its reasons still says that it failed.
    return f"FAILED ({', '.join(verdict.reasons)})" if verdict.reasons else "FAILED"


_MARK = {
    SampleStatus.PASSED: "✓",
    SampleStatus.FAILED: "✗",
    SampleStatus.ERROR: "!",
    SampleStatus.NOT_EVALUATED: "·",
}


def _samples(console: Console, run: Run, *, verbose: bool, db: str = "") -> None:
    """One line per sample that did not pass (every sample with ``verbose``), then a count.

    Printed as one block of text, not a table: laying out a table costs Rich about a
    millisecond a row, which a run of thousands of samples would pay on every run.
    """
    lines = [f"[bold]{shown(f'{run.suite} · {run.agent}')}[/]"]
    # One pass: each pass over a large run's samples unpacks them again.
    listed: list[SampleResult] = []
    passing = 0
    for sample in run.samples:
        passed = sample.status is SampleStatus.PASSED
        passing += passed
        if verbose or not passed:
            listed.append(sample)
    shown_tracebacks: set[str] = set()
    for sample in listed if verbose else listed[:SHOWN_ITEMS]:
        lines += _sample_lines(sample, shown_tracebacks)
    hidden = len(listed) - SHOWN_ITEMS if not verbose and len(listed) > SHOWN_ITEMS else 0
    if hidden:
        lines.append(
            f"  … {hidden} more sample(s) that did not pass: assay-agents report "
            f"{run.id[:8]}{db} --format text lists them, assay-agents report {run.id[:8]}"
            f"{db} --case ID shows one in full (or --verbose)"
        )
    if passing and not verbose:
        lines.append(
            f"  [green]{passing} passing sample(s)[/] not listed (--verbose lists every sample)"
        )
    console.print("\n".join(lines), highlight=False)


def _sample_lines(sample: SampleResult, tracebacks: set[str]) -> list[str]:
    where = sample.case_id + ("" if sample.model is None else f" · {sample.model}")
    style = _STYLE[sample.status]
    head = (
        f"  [{style}]{_MARK[sample.status]} {sample.status.value}[/] {shown(where)} "
        f"#{sample.sample} · checks {fmt.score(sample.check_score)}"
    )
    why = _why(sample)
    said = lines_of(why)
    lines = [head + (f" · {shown(said[0])}" if said else "")]
    lines += [f"      {shown(line)}" for line in said[1:]]
    trace = traceback_of(sample)
    if trace is not None:
        # The same traceback (a bug hit by every sample) is shown once.
        if trace in tracebacks:
            lines.append("      (traceback as above)")
        else:
            tracebacks.add(trace)
            lines += [f"      [dim]{shown(line)}[/]" for line in lines_of(trace)]
    return lines


def _why(sample: SampleResult) -> str:
    if sample.error is not None:
        return f"agent error: {sample.error}"
    problems = [
        f"{metric.name}: {metric.error or metric.reason or 'failed'}"
        for metric in sample.metrics
        if not metric.passed
    ]
    if sample.status is SampleStatus.NOT_EVALUATED:
        return "no metric calculated"
    return "\n".join(problems)


def _summary(console: Console, summary: SummarySection) -> None:
    f = summary.figures
    console.print(
        f"[bold]Passed {f.pass_rate.text}[/] of evaluated samples · "
        f"cases {f.cases_passed} of {f.cases} · check score "
        f"{f.check_score.text} · failed {f.failed} · errors {f.errors}"
        f"{_other_model(f.other_model)} · not evaluated {f.not_evaluated}"
    )
    console.print(
        f"Latency avg {f.latency_avg.text} · p50 {f.latency_p50.text} · p95 "
        f"{f.latency_p95.text} · tokens {f.input_tokens.text} in / {f.output_tokens.text} out "
        f"· cost {f.cost.text}{_model_cached(f.model_cached)}"
    )
    _judged(console, summary)
    _models(console, summary)


def _model_cached(count: int) -> str:
    # Calls the agents made nothing for: why their tokens and cost are low.
    if not count:
        return ""
    return f" ({fmt.count(count)} model call{'' if count == 1 else 's'} cached)"


def _other_model(count: int) -> str:
    # Errors that were never checked: why they are in no rate above.
    if not count:
        return ""
    return f" ({count} answered by another model, not checked)"


def reliability_lines(
    run: Run, *, verbose: bool = False, db: str = "", facts: SampleFacts | None = None
) -> list[str]:
    """Failing samples per category, the rates, and the flaky cases, for the terminal.

    A line whose every count is 0 (``Integrity: … 0 · 0 · 0 · 0``) says nothing and is left
    out; the flaky cases are capped like every other list. ``facts`` as for :func:`render_run`.
    """
    from assay_agents.results import item_rates

    if run.summary is None:
        return []
    section = summary_section(run, facts)
    lines = [
        f"{label}: {written(value)}"
        for label, value in section.reliability
        if label not in _COUNTS or not _all_zero(written(value))
    ]
    # What rate limits did: the retries and waits, then each concurrency adjustment.
    lines += [f"Rate limits: {line}" for line in section.rate_limits]
    flaky = [
        f"Flaky: {item.case_id}{f' on {item.model}' if item.model else ''} passed "
        f"{item.passed} of {item.samples} samples"
        for item in item_rates(run.samples)
        if item.flaky
    ]
    return lines + capped(
        flaky,
        verbose=verbose,
        more=f"flaky case(s): assay-agents report {run.id[:8]}{db} --format text lists them all",
    )


#: Rows that are counts per category: left out when nothing counted.
_COUNTS = frozenset({"Failing", "Integrity"})


def _all_zero(value: str) -> bool:
    """Whether each ``name N`` part of ``value`` counts 0."""
    return all(part.rsplit(" ", 1)[-1] == "0" for part in value.split(" · "))


def _judged(console: Console, summary: SummarySection) -> None:
    """Judge criteria on a line of their own: never averaged with the checks."""
    if not summary.judged:
        return
    criteria = " · ".join(
        f"{c.name} {c.mean.text} (scored {c.scored} of {c.samples}, {c.errors} errored"
        + ("" if c.vote_spread.value is None else f", vote spread {c.vote_spread.text}")
        + ")"
        for c in summary.judged
    )
    f = summary.figures
    console.print(
        f"Judge: {shown(criteria)} · {f.judge_calls_said}, "
        f"cost {f.judge_cost.text} (not the agent's)",
        highlight=False,
    )


def _models(console: Console, summary: SummarySection) -> None:
    if not summary.models:
        return
    table = Table_(title="By model", title_justify="left")
    for column in (
        "model",
        "passed",
        "checks pass",
        "p50",
        "p95",
        "tokens",
        "cost",
        "cost / 1,000",
        "judge calls",
    ):
        table.add_column(column, no_wrap=True)
    for label, f in summary.models:
        table.add_row(
            shown(label),
            f.pass_rate.text,
            f.check_pass_rate.text,
            f.latency_p50.text,
            f.latency_p95.text,
            f.tokens.text,
            f.cost.text,
            f.cost_per_1000.text,
            f.judge_calls,
        )
    console.print(table)


def render_models(console: Console, models: ModelComparison | None) -> None:
    """Print each model's pass rate with its interval, the pairs, and the conclusion."""
    if models is not None:
        _model_comparison(console, models_section(models))


def _model_comparison(console: Console, models: ModelsSection) -> None:
    console.print(_table(models.title, models.intervals))
    if models.pairs is not None:
        console.print(_table(None, models.pairs))
    console.print(shown(models.conclusion), highlight=False)


def render_comparison(
    console: Console,
    comparison: Comparison,
    *,
    run_id: str | None = None,
    verbose: bool = False,
    db: str = "",
) -> None:
    """Print the pairing first, defects before any figure, then each kind of change apart.

    Each list shows a screenful unless ``verbose``; the rest are counted, with the command
    that lists them (``assay-agents report RUN --format text``).
    """
    _comparison(console, compared_section(comparison), run_id=run_id, verbose=verbose, db=db)


def _comparison(
    console: Console,
    section: ComparisonSection,
    *,
    run_id: str | None = None,
    verbose: bool = False,
    db: str = "",
) -> None:
    every = (
        "lists them all"
        if run_id is None
        else f"assay-agents report {run_id[:8]}{db} --format text lists them all"
    )
    intro = [written(line) for line in section.intro]
    moved = len(section.movements)
    loud = 1 + len(section.defects)
    lines = []
    for index, line in enumerate(intro[: len(intro) - moved]):
        style = "bold red" if 0 < index < loud else "bold" if index <= loud else ""
        lines.append(f"[{style}]{shown(line)}[/]" if style else shown(line))
    lines += capped(
        [shown(line) for line in intro[len(intro) - moved :]],
        verbose=verbose,
        more=f"item(s) moved: {every}",
    )
    for group in section.pairings:
        # One excluded item, one intended change: each row names one.
        label = group.name.removesuffix("s")
        lines += capped(
            [
                f"  [yellow]{label}[/] {shown(item)} · {shown(pairing)}: {shown(parts)}"
                for item, pairing, parts in (_texts(row) for row in group.table.rows)
            ],
            verbose=verbose,
            more=f"{label.lower()} item(s): {every}",
        )
    for group in section.changes:
        lines += _changes(group, verbose=verbose, every=every)
    console.print("\n".join(lines), highlight=False)


def _texts(row: Row) -> list[str]:
    return [written(cell) for cell in row]


def _changes(group: ChangeGroup, *, verbose: bool, every: str) -> list[str]:
    lines = []
    for change, row in zip(group.changes, group.table.rows, strict=True):
        style = "green" if not change.is_regression else "red" if change.is_signal else "dim"
        item, metric, category, moved, noise, detail = _texts(row)
        # The agent's own pseudo-metric needs no category beside it.
        what = metric if category in {"agent", metric} else f"{metric} ({category})"
        lines.append(
            f"  [{style}]{shown(item)} · {shown(what)} · {moved} · {noise}[/]: {shown(detail)}"
        )
    name = group.name
    return [
        f"{name} ({len(group.changes)}):",
        *capped(lines, verbose=verbose, more=f"{name.lower()}: {every}"),
    ]


def _table(title: str | None, table: Table) -> Table_:
    shown_title = None if title is None else shown(title)
    made = Table_(title=shown_title, title_justify="left", expand=False)
    for header in table.headers:
        made.add_column(shown(header), overflow="fold")
    for row in table.rows:
        made.add_row(*(shown(written(cell)) for cell in row))
    return made
