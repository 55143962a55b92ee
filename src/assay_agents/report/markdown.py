"""The Markdown report: GitHub-flavoured, for pull-request comments, job summaries and wikis.

Everything a user, an agent or a remote endpoint wrote (names, answers, reasons, errors)
reaches the Markdown only through :mod:`assay_agents.report._escaping`: as escaped text
(:func:`cell`, a quote) or in a code fence it cannot close. Nothing in it renders as HTML, a link,
an image or a heading, and a ``|`` or a line break cannot break a table.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_agents.compare import Comparison, ModelComparison
from assay_agents.report import _comparing as comparing
from assay_agents.report import _markdown_fixes as fixes
from assay_agents.report import format as fmt
from assay_agents.report._escaping import md_cell, md_code, md_fence, md_quote
from assay_agents.report.view import (
    CasesSection,
    CaseView,
    ComparisonSection,
    FixesSection,
    HeaderSection,
    MatrixSection,
    ModelsSection,
    ReportView,
    SampleView,
    Section,
    SummarySection,
    Table,
    VerdictSection,
    cases_section,
    compared_section,
    models_section,
    verdict_section,
    view_of,
    written,
)
from assay_agents.results import Run
from assay_agents.results.fixes import FixItem


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
    return markdown_of(view_of(run, comparison, models, items))


def markdown_of(view: ReportView) -> str:
    """The Markdown report of a view, ending with a newline."""
    parts = [_header(view.header), *(_section(section) for section in view.sections)]
    if view.estimated:
        parts.append(f"_{cell(fmt.ESTIMATED_LEGEND)}_")
    return "\n\n".join(part for part in parts if part) + "\n"


def _section(section: Section) -> str:
    if isinstance(section, SummarySection):
        return _summary(section)
    if isinstance(section, VerdictSection):
        return fixes.verdict_section(section)
    if isinstance(section, ModelsSection):
        return _models(section)
    if isinstance(section, ComparisonSection):
        return _comparison(section)
    if isinstance(section, MatrixSection):
        return f"## {section.title}\n\n{table(section.table.headers, _rows(section.table))}"
    if isinstance(section, FixesSection):
        return fixes.fix_items_markdown(section.items)
    return _cases(section)


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


def _rows(table_: Table) -> list[list[str]]:
    return [[written(value, "markdown") for value in row] for row in table_.rows]


def _grid(table_: Table) -> str:
    return table(table_.headers, _rows(table_))


def _labelled(rows: Sequence[tuple[str, str]]) -> str:
    # Values go through cell(): the same escaping makes a list item safe as a table cell.
    return "\n".join(f"- **{label}:** {value}" for label, value in rows)


def _header(header: HeaderSection) -> str:
    rows = [
        (label, md_code(value) if label == "Fingerprint" else cell(value))
        for label, value in header.fields
    ]
    return f"# Assay report: {cell(header.title)}\n\n{_labelled(rows)}"


def _summary(summary: SummarySection) -> str:
    parts = [f"## {summary.title}"]
    if summary.note is not None:
        parts.append(f"> {summary.note}")
    rows = [(label, cell(written(value, "markdown"))) for label, value in summary.fields]
    parts += [_labelled(rows), _judge(summary)]
    if summary.by_model is not None:
        parts += ["### By model", _grid(summary.by_model)]
        if summary.model_costs is not None:
            parts += [
                "### By model: cost (the judge's apart, never in a ranking)",
                _grid(summary.model_costs),
            ]
        if summary.model_criteria is not None:
            parts += ["### By model: judge criteria (means)", _grid(summary.model_criteria)]
    if summary.rate_limits:
        listed = "\n".join(f"- {cell(line)}" for line in summary.rate_limits)
        parts += ["### Rate limits", listed]
    return "\n\n".join(part for part in parts if part)


def _judge(summary: SummarySection) -> str:
    if summary.criteria is None:
        return ""
    usage = summary.judge_usage
    return (
        "### Judge criteria\n\nJudged prose, reported apart from the deterministic checks "
        f"and never averaged with them.\n\n{_grid(summary.criteria)}"
        + (f"\n\nJudge usage: {cell(usage)}" if usage is not None else "")
    )


def verdict_markdown(run: Run, models: ModelComparison | None) -> str:
    """The verdict (the judge's pick and what it rests on) and the model comparison."""
    verdict = verdict_section(run)
    parts = (
        "" if verdict is None else fixes.verdict_section(verdict),
        "" if models is None else _models(models_section(models)),
    )
    return "\n\n".join(part for part in parts if part)


def _models(models: ModelsSection) -> str:
    parts = [f"## {models.title}", _grid(models.intervals)]
    if models.pairs is not None:
        parts.append(_grid(models.pairs))
    parts += [f"**{cell(models.conclusion)}**", f"_Method: {cell(models.method)}._"]
    return "\n\n".join(parts)


def render_comparison_markdown(comparison: Comparison) -> str:
    """The comparison on its own (``assay-agents compare``), for a pull-request comment."""
    return comparison_markdown(compared_section(comparison))


def comparison_markdown(section: ComparisonSection) -> str:
    """A comparison section on its own, under a title naming both runs."""
    assert section.comparison is not None
    compared = section.comparison
    title = f"# Assay comparison: {md_code(compared.baseline_id)} → {md_code(compared.current_id)}"
    return f"{title}\n\n{comparison_body(section)}\n"


def _comparison(section: ComparisonSection) -> str:
    said = section.baseline
    parts = [f"## {section.title}", *([cell(said)] if said else [])]
    if section.comparison is None:
        return "\n\n".join(parts if said else [*parts, comparing.NO_BASELINE])
    return "\n\n".join([*parts, comparison_body(section)])


def comparison_body(section: ComparisonSection) -> str:
    """The pairing first and loud, defects before figures, then each kind of change apart."""
    assert section.comparison is not None
    # The pairing, any defect and the headline (or why it is withheld) are set in bold: they
    # are what a reader must not miss.
    loud = (section.pairing, *section.defects, section.headline)
    parts = [f"**{cell(written(line, 'markdown'))}**" for line in loud]
    baseline = section.comparison.baseline_id
    counts = cell(section.counts)
    parts += [counts.replace(cell(baseline), md_code(baseline), 1), cell(section.rules)]
    for group in section.pairings:
        parts += [f"### {group.name} ({len(group.table.rows)})", _grid(group.table)]
    if not section.changes:
        parts.append("No metric moved beyond the tolerance.")
    for group in section.changes:
        parts += [f"### {group.name} ({len(group.table.rows)})", _grid(group.table)]
    return "\n\n".join(parts)


def _cases(section: CasesSection) -> str:
    parts = [f"## {section.title}"]
    if not section.cases:
        parts.append("No cases.")
    parts += [_case(case) for case in section.cases]
    return "\n\n".join(parts)


def case_markdown(run: Run, case_id: str) -> str:
    """One case with every model's result, as the whole report shows it."""
    return _case(cases_section(run).case(case_id))


def _case(case: CaseView) -> str:
    parts = [f"### {case.number}. {cell(case.heading)}"]
    behaviours = [written(line, "markdown") for line in case.behaviours]
    parts += ["\n".join(f"- {cell(line)}" for line in behaviours)] if behaviours else []
    parts += [_sample(sample) for sample in case.samples] or ["_No samples yet._"]
    return "\n\n".join(parts)


def _sample(view: SampleView) -> str:
    sample = view.sample
    parts = [f"**{cell(view.heading)}**"]
    if view.metrics is not None:
        parts.append(_grid(view.metrics))
    else:
        parts.append("_No metric calculated._")
    if sample.fault is not None:
        parts.append(fixes.sample_fault(sample))
    parts += [_answer(sample.answer), _actions(view)]
    if sample.error is not None:
        parts.append(f"**Agent error:**\n\n{md_fence(sample.error)}")
    if view.trace is not None:
        parts.append(_details("Traceback", md_fence(view.trace)))
    if view.traces is not None:
        parts.append(f"**Traces:** {cell(view.traces)}")
    if view.metadata is not None:
        parts.append(_details("Sample metadata", md_fence(view.metadata, "json")))
    return "\n\n".join(parts)


def _answer(answer: str | None) -> str:
    if answer is None:
        return "**Answer:** _none_"
    if not answer.strip():
        return "**Answer:** _empty_"
    return f"**Answer:**\n\n{md_quote(answer)}"


def _actions(view: SampleView) -> str:
    if not view.sample.actions:
        return f"**Actions:** _{view.actions[0]}_"
    return f"**Actions:**\n\n{md_fence(chr(10).join(view.actions))}"


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"
