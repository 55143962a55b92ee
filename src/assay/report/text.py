"""The plain-text report: aligned columns, no colour codes, readable in a CI log.

Control and bidirectional characters in anything a user, an agent or a remote endpoint wrote
are shown as escapes (:func:`assay._text.visible`), never written raw.

Lines stay within :data:`WIDTH` columns where they can: the last column of a table (a reason,
a detail) wraps under itself instead of running on.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from assay._text import visible
from assay.compare import Comparison, ModelComparison
from assay.report import _comparing as comparing
from assay.report import _reading as reading
from assay.report import _text_fixes as fixes
from assay.report import format as fmt
from assay.report import prose
from assay.results import Run, RunSummary, SampleResult, Tally
from assay.results.fixes import FixItem, fix_items
from assay.results.tracebacks import metadata_without_traceback, traceback_of

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
    shown = fix_items(run.samples) if items is None else items
    lines = [
        *_header(run),
        *_summary(run),
        *fixes.verdict_lines(run),
        *_models(models),
        *_comparison(run, comparison),
        *fixes.fix_lines(shown),
        *_cases(run),
    ]
    if reading.estimated(run.samples):
        lines += ["", fmt.ESTIMATED_LEGEND]
    # The last gate: whatever a section forgot, no control character leaves the report.
    return visible("\n".join(lines), lines=True) + "\n"


def render_case_text(run: Run, case_id: str) -> str:
    """Every sample of one case in full: metrics, answer, actions, error and traceback."""
    block = next((b for b in reading.case_blocks(run) if b.case_id == case_id), None)
    if block is None:
        raise KeyError(case_id)
    lines = [f"{reading.title(run)} · run {run.id}", block.heading]
    lines += [line for sample in block.samples for line in _sample(sample)] or ["   no samples yet"]
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


def _labelled(rows: reading.Rows, indent: int = 0) -> list[str]:
    return table([[f"{label}:", value] for label, value in rows], indent=indent, prose=True)


def _header(run: Run) -> list[str]:
    heading = f"Assay report: {reading.title(run)}"
    return [heading, "=" * len(heading), *_labelled(reading.header_rows(run))]


def _summary(run: Run) -> list[str]:
    summary, note = reading.summary_of(run)
    lines = _section("Summary")
    if note is not None:
        lines += [*textwrap.wrap(note, WIDTH), ""]
    lines += _labelled(reading.summary_rows(summary, reading.estimated(run.samples), fmt.fraction))
    lines += _judge(summary)
    if summary.by_model:
        lines += ["", "By model:"]
        lines += _model_table(run, summary)
    return lines


def _model_table(run: Run, summary: RunSummary) -> list[str]:
    # The run's average latency is in the summary above; per model the percentiles tell more
    # and the table stays within the width.
    skip = reading.MODEL_HEADERS.index("avg")
    rows = [row[:skip] + row[skip + 1 :] for row in reading.model_rows(run, summary, fmt.fraction)]
    headers = [h for h in reading.MODEL_HEADERS if h != "avg"]
    lines = table(rows, headers)
    lines += ["", "By model, cost (the judge's apart, never in a ranking):"]
    lines += table(reading.model_cost_rows(run, summary), reading.MODEL_COST_HEADERS)
    judge_headers, judge_rows = reading.model_judge_table(summary)
    if judge_rows:
        lines += ["", "By model, judge criteria (means):", *table(judge_rows, judge_headers)]
    return lines


def _judge(tally: Tally) -> list[str]:
    if not tally.judge:
        return []
    headers, rows = reading.criterion_table(tally, fmt.fraction)
    return [
        "",
        "Judge criteria (reported apart from the checks, never averaged with them):",
        *table(rows, headers),
        *_usage(tally),
    ]


def _usage(tally: Tally) -> list[str]:
    if not tally.judge_calls:
        return []
    return ["", f"Judge usage: {reading.judge_usage(tally)}"]


def _models(models: ModelComparison | None) -> list[str]:
    if models is None:
        return []
    lines = _section("Model comparison")
    lines += table(comparing.model_interval_rows(models), comparing.model_interval_headers(models))
    if models.pairs:
        lines += ["", *table(comparing.pair_rows(models), comparing.pair_headers(models))]
    lines += ["", *textwrap.wrap(prose.conclusion(models), WIDTH)]
    lines += textwrap.wrap(f"Method: {prose.method(models)}.", WIDTH)
    return lines


def render_comparison_text(comparison: Comparison) -> str:
    """The comparison on its own (``assay compare``): the pairing is the first line."""
    return visible("\n".join(comparison_lines(comparison)), lines=True) + "\n"


def _comparison(run: Run, comparison: Comparison | None) -> list[str]:
    lines = _section("Comparison")
    said = comparing.baseline_line(run, comparison)
    lines += textwrap.wrap(said, WIDTH, subsequent_indent="  ") if said else []
    if comparison is None:
        return lines if said else [*lines, comparing.NO_BASELINE]
    return [*lines, *comparison_lines(comparison)]


def comparison_lines(comparison: Comparison) -> list[str]:
    """Pairing, defects, headline and rules, then excluded items and each kind of change."""
    lines: list[str] = []
    for line in comparing.comparison_intro(comparison, fmt.fraction):
        lines += textwrap.wrap(line, WIDTH, subsequent_indent="  ")
    for name, items in (
        ("Excluded", comparison.excluded),
        ("Intended changes", comparison.intended_changes),
    ):
        if items:
            rows = [comparing.pairing_row(item) for item in items]
            lines += [
                "",
                f"{name} ({len(items)}):",
                *table(rows, comparing.PAIRING_HEADERS, prose=True),
            ]
    if not comparison.changes:
        return [*lines, "", "No metric moved beyond the tolerance."]
    for kind, name in comparing.CHANGE_SECTIONS:
        changes = comparison.of_kind(kind)
        if changes:
            rows = [comparing.change_row(change) for change in changes]
            lines += [
                "",
                f"{name} ({len(changes)}):",
                *table(rows, comparing.CHANGE_HEADERS, prose=True),
            ]
    return lines


def _cases(run: Run) -> list[str]:
    lines = _section("Cases")
    blocks = reading.case_blocks(run)
    if not blocks:
        return [*lines, "No cases."]
    for number, block in enumerate(blocks, start=1):
        lines += [""] * (number > 1) + [f"{number}. {block.heading}"]
        lines += [f"   {line}" for line in reading.behaviour_lines(block, fmt.fraction)]
        lines += [line for s in block.samples for line in _sample(s)] or ["   no samples yet"]
    return lines


def _sample(sample: SampleResult) -> list[str]:
    lines = [f"   {reading.sample_heading(sample)}"]
    if sample.metrics:
        rows = [reading.metric_row(metric) for metric in sample.metrics]
        lines += table(rows, reading.METRIC_HEADERS, indent=5, prose=True)
    else:
        lines.append("     no metric calculated")
    lines += fixes.sample_fault_lines(sample)
    lines += _block("answer", _answer(sample.answer))
    lines += _block("actions", reading.action_lines(sample.actions))
    if sample.error is not None:
        lines += _block("error", sample.error.splitlines() or [""])
    trace = traceback_of(sample)
    if trace is not None:
        lines += _block("trace", trace.splitlines())
    metadata = metadata_without_traceback(sample)
    if metadata:
        lines += _block("metadata", [reading.preview(reading.compact_json(metadata))])
    return lines


def _answer(answer: str | None) -> list[str]:
    if answer is None:
        return ["none"]
    return reading.preview(answer).splitlines() or ['""']


def _block(label: str, values: list[str], indent: int = 5) -> list[str]:
    # A label column wide enough for "metadata:" keeps the values of one sample aligned.
    lead = " " * indent + f"{label}:".ljust(10)
    room = max(WIDTH - len(lead), _MIN_LAST_COLUMN)
    # Escaped before wrapping, so an escape is never cut and lines keep to the width.
    wrapped = [part for value in values for part in (_wrap(visible(value), room) or [""])]
    return [(lead if i == 0 else " " * len(lead)) + part for i, part in enumerate(wrapped)]
