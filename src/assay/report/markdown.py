"""The Markdown report: GitHub-flavoured, for pull-request comments, job summaries and wikis.

Everything a user, an agent or a remote endpoint wrote (names, answers, reasons, errors)
reaches the Markdown only through :mod:`assay.report._escaping`: as escaped text (:func:`cell`,
a quote) or in a code fence it cannot close. Nothing in it renders as HTML, a link, an image
or a heading, and a ``|`` or a line break cannot break a table.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.compare import Comparison, ModelComparison
from assay.report import _comparing as comparing
from assay.report import _markdown_fixes as fixes
from assay.report import _reading as reading
from assay.report import format as fmt
from assay.report import prose
from assay.report._escaping import md_cell, md_code, md_fence, md_quote
from assay.results import Run, SampleResult, Tally
from assay.results.fixes import FixItem, fix_items
from assay.results.tracebacks import metadata_without_traceback, traceback_of


def render_markdown(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
) -> str:
    """Render the whole report as GitHub-flavoured Markdown, ending with a newline.

    ``items`` are the fix items to show (by default, the run's own, with no servers or
    routes resolved).
    """
    shown = fix_items(run.samples) if items is None else items
    parts = [
        _header(run),
        _summary(run),
        verdict_markdown(run, models),
        _comparison(run, comparison),
        fixes.matrix_markdown(run),
        fixes.fix_items_markdown(shown),
        _cases(run),
    ]
    if reading.estimated(run.samples):
        parts.append(f"_{cell(fmt.ESTIMATED_LEGEND)}_")
    return "\n\n".join(part for part in parts if part) + "\n"


def cell(text: str) -> str:
    """Make text safe for one table cell: escaped as text, line breaks folded to a space.

    ``|`` is escaped, and so are ``~`` (GitHub reads two of them, ``~$0.02 … ~$0.01``, as
    strikethrough), ``$`` (math), HTML and link syntax: see :func:`md_cell`.
    """
    return md_cell(text)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Lay rows out as a GitHub table; every cell goes through :func:`cell`."""
    lines = [_row(headers), "| " + " | ".join("---" for _ in headers) + " |"]
    lines += [_row(row) for row in rows]
    return "\n".join(lines)


def _row(values: Sequence[str]) -> str:
    return "| " + " | ".join(cell(value) for value in values) + " |"


def _labelled(rows: reading.Rows) -> str:
    # Values go through cell(): the same escaping makes a list item safe as a table cell.
    return "\n".join(f"- **{label}:** {value}" for label, value in rows)


def _header(run: Run) -> str:
    rows = [
        (label, md_code(value) if label == "Fingerprint" else cell(value))
        for label, value in reading.header_rows(run)
    ]
    return f"# Assay report: {cell(reading.title(run))}\n\n{_labelled(rows)}"


def _summary(run: Run) -> str:
    summary, note = reading.summary_of(run)
    parts = ["## Summary"]
    if note is not None:
        parts.append(f"> {note}")
    rows = reading.summary_rows(summary, reading.estimated(run.samples), fmt.fraction_md)
    parts += [_labelled([(label, cell(value)) for label, value in rows]), _judge(summary)]
    if summary.by_model:
        model_rows = reading.model_rows(run, summary, fmt.fraction_md)
        parts += [
            "### By model",
            table(reading.MODEL_HEADERS, model_rows),
            "### By model: cost (the judge's apart, never in a ranking)",
            table(reading.MODEL_COST_HEADERS, reading.model_cost_rows(run, summary)),
        ]
        judge_headers, judge_rows = reading.model_judge_table(summary)
        if judge_rows:
            parts += ["### By model: judge criteria (means)", table(judge_headers, judge_rows)]
    return "\n\n".join(part for part in parts if part)


def _judge(tally: Tally) -> str:
    if not tally.judge:
        return ""
    headers, rows = reading.criterion_table(tally, fmt.fraction_md)
    return (
        "### Judge criteria\n\nJudged prose, reported apart from the deterministic checks "
        f"and never averaged with them.\n\n{table(headers, rows)}"
        + (f"\n\nJudge usage: {cell(reading.judge_usage(tally))}" if tally.judge_calls else "")
    )


def verdict_markdown(run: Run, models: ModelComparison | None) -> str:
    """The verdict (the judge's pick and what it rests on) and the model comparison."""
    return "\n\n".join(part for part in (fixes.verdict_section(run), _models(models)) if part)


def _models(models: ModelComparison | None) -> str:
    if models is None:
        return ""
    parts = [
        "## Model comparison",
        table(comparing.model_interval_headers(models), comparing.model_interval_rows(models)),
    ]
    if models.pairs:
        parts.append(table(comparing.pair_headers(models), comparing.pair_rows(models)))
    parts += [f"**{cell(prose.conclusion(models))}**", f"_Method: {cell(prose.method(models))}._"]
    return "\n\n".join(parts)


def render_comparison_markdown(comparison: Comparison) -> str:
    """The comparison on its own (``assay compare``), for a pull-request comment."""
    title = (
        f"# Assay comparison: {md_code(comparison.baseline_id)} → {md_code(comparison.current_id)}"
    )
    return f"{title}\n\n{comparison_body(comparison)}\n"


def _comparison(run: Run, comparison: Comparison | None) -> str:
    said = comparing.baseline_line(run, comparison)
    parts = ["## Comparison", *([cell(said)] if said else [])]
    if comparison is None:
        return "\n\n".join(parts if said else [*parts, comparing.NO_BASELINE])
    return "\n\n".join([*parts, comparison_body(comparison)])


def comparison_body(comparison: Comparison) -> str:
    """The pairing first and loud, defects before figures, then each kind of change apart."""
    # The pairing, any defect and the headline (or why it is withheld) are set in bold: they
    # are what a reader must not miss.
    parts = [
        f"**{cell(line)}**"
        for line in (
            prose.pairing_line(comparison),
            *prose.defect_lines(comparison),
            comparing.headline_line(comparison, fmt.fraction_md),
        )
    ]
    baseline = comparison.baseline_id
    counts = cell(comparing.counts_line(comparison))
    parts += [
        counts.replace(cell(baseline), md_code(baseline), 1),
        cell(comparing.rules_line(comparison)),
    ]
    for name, items in (
        ("Excluded", comparison.excluded),
        ("Intended changes", comparison.intended_changes),
    ):
        if items:
            rows = [comparing.pairing_row(item) for item in items]
            parts += [f"### {name} ({len(items)})", table(comparing.PAIRING_HEADERS, rows)]
    if not comparison.changes:
        parts.append("No metric moved beyond the tolerance.")
    for kind, name in comparing.CHANGE_SECTIONS:
        changes = comparison.of_kind(kind)
        if changes:
            rows = [comparing.change_row(change) for change in changes]
            parts += [f"### {name} ({len(changes)})", table(comparing.CHANGE_HEADERS, rows)]
    return "\n\n".join(parts)


def _cases(run: Run) -> str:
    parts = ["## Cases"]
    blocks = reading.case_blocks(run)
    if not blocks:
        parts.append("No cases.")
    parts += [_case(number, block) for number, block in enumerate(blocks, start=1)]
    return "\n\n".join(parts)


def case_markdown(run: Run, case_id: str) -> str:
    """One case with every model's result, as the whole report shows it."""
    for number, block in enumerate(reading.case_blocks(run), start=1):
        if block.case_id == case_id:
            return _case(number, block)
    raise KeyError(case_id)


def _case(number: int, block: reading.CaseBlock) -> str:
    parts = [f"### {number}. {cell(block.heading)}"]
    behaviours = reading.behaviour_lines(block, fmt.fraction_md)
    parts += ["\n".join(f"- {cell(line)}" for line in behaviours)] if behaviours else []
    parts += [_sample(sample) for sample in block.samples] or ["_No samples yet._"]
    return "\n\n".join(parts)


def _sample(sample: SampleResult) -> str:
    parts = [f"**{cell(reading.sample_heading(sample))}**"]
    if sample.metrics:
        rows = [reading.metric_row(metric) for metric in sample.metrics]
        parts.append(table(reading.METRIC_HEADERS, rows))
    else:
        parts.append("_No metric calculated._")
    if sample.fault is not None:
        parts.append(fixes.sample_fault(sample))
    parts += [_answer(sample.answer), _actions(sample)]
    if sample.error is not None:
        parts.append(f"**Agent error:**\n\n{md_fence(sample.error)}")
    trace = traceback_of(sample)
    if trace is not None:
        parts.append(_details("Traceback", md_fence(trace)))
    metadata = metadata_without_traceback(sample)
    if metadata:
        parts.append(_details("Sample metadata", md_fence(reading.compact_json(metadata), "json")))
    return "\n\n".join(parts)


def _answer(answer: str | None) -> str:
    if answer is None:
        return "**Answer:** _none_"
    if not answer.strip():
        return "**Answer:** _empty_"
    return f"**Answer:**\n\n{md_quote(answer)}"


def _actions(sample: SampleResult) -> str:
    if not sample.actions:
        return f"**Actions:** _{reading.action_lines(sample.actions)[0]}_"
    return f"**Actions:**\n\n{md_fence(chr(10).join(reading.action_lines(sample.actions)))}"


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"
