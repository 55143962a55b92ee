"""The plain-text report: aligned columns, no colour codes, readable in a CI log.

Control and bidirectional characters in anything a user, an agent or a remote endpoint wrote
are shown as escapes (:func:`assay_agents.text.visible`), never written raw.

Lines stay within :data:`WIDTH` columns where they can: the last column of a table (a reason,
a detail) wraps under itself instead of running on.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from assay_agents.compare import Comparison, ModelComparison
from assay_agents.report import _comparing as comparing
from assay_agents.report import _reading as reading
from assay_agents.report import _text_fixes as fixes
from assay_agents.report import format as fmt
from assay_agents.report.view import (
    CasesSection,
    ComparisonSection,
    Fields,
    FixesSection,
    HeaderSection,
    ModelsSection,
    ReportView,
    SampleView,
    Section,
    SummarySection,
    Table,
    VerdictSection,
    cases_section,
    compared_section,
    view_of,
    written,
)
from assay_agents.results import Run
from assay_agents.results.fixes import FixItem
from assay_agents.text import lines_of, visible

#: The width the report keeps to where it can.
WIDTH = 100

_GAP = "  "
_MIN_LAST_COLUMN = 40
_BELOW_INDENT = 4


def render_text(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
) -> str:
    """Render the whole report as plain text, ending with a newline."""
    return text_of(view_of(run, comparison, models, items))


def text_of(view: ReportView) -> str:
    """The plain-text report of a view, ending with a newline."""
    lines = _header(view.header)
    for section in view.sections:
        lines += _section_lines(section)
    if view.estimated:
        lines += ["", fmt.ESTIMATED_LEGEND]
    # The last gate: whatever a section forgot, no control character leaves the report.
    return visible("\n".join(lines), lines=True) + "\n"


def _section_lines(section: Section) -> list[str]:
    if isinstance(section, SummarySection):
        return _summary(section)
    if isinstance(section, VerdictSection):
        return fixes.verdict_lines(section)
    if isinstance(section, ModelsSection):
        return _models(section)
    if isinstance(section, ComparisonSection):
        return _comparison(section)
    if isinstance(section, FixesSection):
        return fixes.fix_lines(section.items)
    if isinstance(section, CasesSection):
        return _cases(section)
    return []  # the case × model matrix is Markdown's: the cases below say the same here


def render_case_text(run: Run, case_id: str) -> str:
    """Every sample of one case in full: metrics, answer, actions, error and traceback."""
    case = cases_section(run).case(case_id)
    lines = [f"{reading.title(run)} · run {run.id}", case.heading]
    lines += [line for sample in case.samples for line in _sample(sample)] or ["   no samples yet"]
    return visible("\n".join(lines), lines=True) + "\n"


def table(
    rows: Sequence[Sequence[str]],
    headers: Sequence[str] | None = None,
    indent: int = 2,
    prose: bool = False,
) -> list[str]:
    """Lay rows out in aligned columns, keeping within :data:`WIDTH` where the text allows.

    With ``prose`` the last column (a reason, a detail) wraps under itself, or, when the
    other columns leave it too little room, moves to its own lines below each row.
    """
    everything = [list(row) for row in ([headers] if headers else []) + list(rows)]
    if not everything:
        return []
    widths = [max(len(row[i]) for row in everything) for i in range(len(everything[0]) - 1)]
    lead = indent + sum(width + len(_GAP) for width in widths)
    lines: list[str] = []
    for number, row in enumerate(everything):
        cells = " " * indent + "".join(c.ljust(w) + _GAP for c, w in zip(row, widths, strict=False))
        if not prose:
            lines.append((cells + row[-1]).rstrip())
        elif WIDTH - lead >= _MIN_LAST_COLUMN:
            lines += _wrapped_under(cells, row[-1], lead)
        else:
            # The header of a detail that moves below its row would label nothing.
            lines += _wrapped_below(cells, "" if headers and number == 0 else row[-1], indent)
    return lines


def _wrapped_under(cells: str, text: str, lead: int) -> list[str]:
    wrapped = _wrap(text, WIDTH - lead) or [""]
    return [(cells + wrapped[0]).rstrip(), *(" " * lead + rest for rest in wrapped[1:])]


def _wrapped_below(cells: str, text: str, indent: int) -> list[str]:
    under = indent + _BELOW_INDENT
    return [cells.rstrip(), *(" " * under + part for part in _wrap(text, WIDTH - under))]


def _wrap(text: str, room: int) -> list[str]:
    # Long tokens (JSON, paths) stay whole: a line that runs over beats a token cut in two.
    return textwrap.wrap(text, room, break_long_words=False, break_on_hyphens=False)


def _section(name: str) -> list[str]:
    return ["", name, "-" * len(name)]


def _cells(table_: Table) -> tuple[list[list[str]], list[str]]:
    return [[written(cell) for cell in row] for row in table_.rows], list(table_.headers)


def _grid(table_: Table, *, indent: int = 2, prose: bool = False) -> list[str]:
    rows, headers = _cells(table_)
    return table(rows, headers, indent=indent, prose=prose)


def _labelled(fields: Fields, indent: int = 0) -> list[str]:
    rows = [[f"{label}:", written(value)] for label, value in fields]
    return table(rows, indent=indent, prose=True)


def _header(header: HeaderSection) -> list[str]:
    heading = f"Assay report: {header.title}"
    return [heading, "=" * len(heading), *_labelled(header.fields)]


def _summary(summary: SummarySection) -> list[str]:
    lines = _section(summary.title)
    if summary.note is not None:
        lines += [*textwrap.wrap(summary.note, WIDTH), ""]
    lines += _labelled(summary.fields)
    if summary.criteria is not None:
        lines += [
            "",
            "Judge criteria (reported apart from the checks, never averaged with them):",
            *_grid(summary.criteria),
        ]
        if summary.judge_usage is not None:
            lines += ["", f"Judge usage: {summary.judge_usage}"]
    if summary.by_model is not None:
        # The run's average latency is in the summary above; per model the percentiles tell
        # more and the table stays within the width.
        lines += ["", "By model:", *_grid(summary.by_model.without("avg"))]
        if summary.model_costs is not None:
            lines += ["", "By model, cost (the judge's apart, never in a ranking):"]
            lines += _grid(summary.model_costs)
        if summary.model_criteria is not None:
            lines += ["", "By model, judge criteria (means):", *_grid(summary.model_criteria)]
    if summary.rate_limits:
        lines += ["", "Rate limits:", *(f"  {line}" for line in summary.rate_limits)]
    return lines


def _models(models: ModelsSection) -> list[str]:
    lines = _section(models.title)
    lines += _grid(models.intervals)
    if models.pairs is not None:
        lines += ["", *_grid(models.pairs)]
    lines += ["", *textwrap.wrap(models.conclusion, WIDTH)]
    lines += textwrap.wrap(f"Method: {models.method}.", WIDTH)
    return lines


def render_comparison_text(comparison: Comparison) -> str:
    """The comparison on its own (``assay-agents compare``): the pairing is the first line."""
    return comparison_text(compared_section(comparison))


def comparison_text(section: ComparisonSection) -> str:
    """A comparison section on its own, ending with a newline."""
    return visible("\n".join(comparison_lines(section)), lines=True) + "\n"


def _comparison(section: ComparisonSection) -> list[str]:
    lines = _section(section.title)
    said = section.baseline
    lines += textwrap.wrap(said, WIDTH, subsequent_indent="  ") if said else []
    if section.comparison is None:
        return lines if said else [*lines, comparing.NO_BASELINE]
    return [*lines, *comparison_lines(section)]


def comparison_lines(section: ComparisonSection) -> list[str]:
    """Pairing, defects, headline and rules, then excluded items and each kind of change."""
    lines: list[str] = []
    for line in section.intro:
        lines += textwrap.wrap(written(line), WIDTH, subsequent_indent="  ")
    for group in section.pairings:
        count = len(group.table.rows)
        lines += ["", f"{group.name} ({count}):", *_grid(group.table, prose=True)]
    if not section.changes:
        return [*lines, "", "No metric moved beyond the tolerance."]
    for group in section.changes:
        count = len(group.table.rows)
        lines += ["", f"{group.name} ({count}):", *_grid(group.table, prose=True)]
    return lines


def _cases(section: CasesSection) -> list[str]:
    lines = _section(section.title)
    if not section.cases:
        return [*lines, "No cases."]
    for case in section.cases:
        lines += [""] * (case.number > 1) + [f"{case.number}. {case.heading}"]
        lines += [f"   {written(line)}" for line in case.behaviours]
        lines += [line for s in case.samples for line in _sample(s)] or ["   no samples yet"]
    return lines


def _sample(view: SampleView) -> list[str]:
    sample = view.sample
    lines = [f"   {view.heading}"]
    if view.metrics is not None:
        lines += _grid(view.metrics, indent=5, prose=True)
    else:
        lines.append("     no metric calculated")
    lines += fixes.sample_fault_lines(sample)
    lines += _block("answer", _answer(sample.answer))
    lines += _block("actions", list(view.actions))
    if sample.error is not None:
        lines += _block("error", lines_of(sample.error) or [""])
    if view.trace is not None:
        lines += _block("trace", lines_of(view.trace))
    if view.traces is not None:
        lines += _block("traces", [view.traces])
    if view.metadata is not None:
        lines += _block("metadata", [reading.preview(view.metadata)])
    return lines


def _answer(answer: str | None) -> list[str]:
    if answer is None:
        return ["none"]
    return lines_of(reading.preview(answer)) or ['""']


def _block(label: str, values: list[str], indent: int = 5) -> list[str]:
    # A label column wide enough for "metadata:" keeps the values of one sample aligned.
    lead = " " * indent + f"{label}:".ljust(10)
    room = max(WIDTH - len(lead), _MIN_LAST_COLUMN)
    # Escaped before wrapping, so an escape is never cut and lines keep to the width.
    wrapped = [part for value in values for part in (_wrap(visible(value), room) or [""])]
    return [(lead if i == 0 else " " * len(lead)) + part for i, part in enumerate(wrapped)]
