"""The CI job summary: what a run decided and why, in Markdown a CI page shows after the job.

``assay run`` appends it to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions sets that variable,
and to the file ``--summary`` names on any CI. It reads, in order: the verdict with the counts
it rests on, the gate's decision and every figure it read, the baseline and what changed, the
headline figures, then What to fix. Every user string goes through
:mod:`assay.report._escaping`, as in the Markdown report.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.evaluation.verdict import Verdict
from assay.report import _markdown_fixes as fixes
from assay.report import format as fmt
from assay.report._escaping import md_cell, md_code
from assay.report.prose import verdict_lines
from assay.report.view import ComparisonSection, ReportView, SummarySection, written
from assay.spec.gate import GateFinding

__all__ = ["ci_summary"]

#: Headline figures the summary repeats from the report's Summary section.
_FIGURES = ("Samples", "Pass rate", "Cases passed", "Cost", "Latency")


def ci_summary(view: ReportView, verdict: Verdict) -> str:
    """The job summary of one run as Markdown, ending with a newline."""
    run = view.run
    result = "passed" if verdict.passed else "failed"
    parts = [
        f"## Assay: {md_cell(run.suite)} · {md_cell(run.agent)} — {result}",
        _verdict(view, verdict),
        *_gate(verdict.findings),
        *_comparison(view),
        *_figures(view),
        _fixes(view),
    ]
    if view.estimated:
        parts.append(f"_{md_cell(fmt.ESTIMATED_LEGEND)}_")
    return "\n\n".join(part for part in parts if part) + "\n"


def _fixes(view: ReportView) -> str:
    """What to fix, a level below the summary's own title."""
    if not view.fix_items:
        return "### What to fix\n\nNothing to fix: no sample has a diagnosed fault."
    # Each item's heading is a level-3 one in the report; here it sits under a level-3 title.
    items = [f"#{fixes.fix_item_markdown(item)}" for item in view.fix_items]
    return "\n\n".join(["### What to fix", *items])


def _verdict(view: ReportView, verdict: Verdict) -> str:
    line = f"Run {md_code(view.run.id)} · exit code {int(verdict.exit_code)}"
    if verdict.passed:
        return f"**Passed.** {line}"
    if not verdict.reasons:
        return f"**Failed.** {line}"
    return f"**Failed: {md_cell(', '.join(verdict.reasons))}.** {line}"


def _gate(findings: Sequence[GateFinding]) -> list[str]:
    lines = verdict_lines(findings)
    if not lines:
        return []
    # The gate's block indents its figures under its decision: a nested list keeps that.
    return [
        "\n".join(
            f"  - {md_cell(line.strip())}" if line.startswith(" ") else f"- {md_cell(line)}"
            for line in lines
        )
    ]


def _comparison(view: ReportView) -> list[str]:
    section = view.section(ComparisonSection)
    if section is None:
        return []
    said = [section.baseline or ""]
    if section.comparison is not None:
        said += [written(section.headline, "markdown"), section.counts]
    return [" ".join(md_cell(line) for line in said if line)]


def _figures(view: ReportView) -> list[str]:
    summary = view.section(SummarySection)
    if summary is None:
        return []
    rows = [
        f"| {md_cell(label)} | {md_cell(written(value, 'markdown'))} |"
        for label, value in summary.fields
        if label in _FIGURES
    ]
    return ["\n".join(["| Figure | Value |", "| --- | --- |", *rows])] if rows else []
