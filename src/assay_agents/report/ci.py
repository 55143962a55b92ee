"""The CI job summary: what a run decided and why, in Markdown a CI page shows after the job.

``assay-agents run`` appends it to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions sets that variable,
and to the file ``--summary`` names on any CI. It reads, in order: the verdict with the counts
it rests on, the gate's decision and every figure it read, the baseline and what changed, the
headline figures, then What to fix. Every user string goes through
:mod:`assay_agents.report._escaping`, as in the Markdown report.

A CI page drops a summary it finds too long (GitHub: over 1 MiB) without showing any of it,
so this one is kept short whatever the run: each list names its first 20 entries and how many
more there are, a string is cut at 2,000 characters with a marker saying so, and the whole
stays under 512 KiB, ending with a line that names the report that shows everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from assay_agents.evaluation.verdict import Verdict
from assay_agents.report import _markdown_fixes as fixes
from assay_agents.report import format as fmt
from assay_agents.report._escaping import md_cell, md_code
from assay_agents.report.prose import verdict_lines
from assay_agents.report.view import ComparisonSection, ReportView, SummarySection, written
from assay_agents.results.fixes import Also, FixItem
from assay_agents.spec.gate import GateFinding

__all__ = ["ci_summary"]

#: Headline figures the summary repeats from the report's Summary section.
_FIGURES = ("Samples", "Pass rate", "Cases passed", "Cost", "Latency")
#: How many entries of a list (cases, models, fix items, other recommendations) are named.
LIST_LIMIT = 20
#: The characters of one string that are shown.
TEXT_LIMIT = 2_000
#: The size of the whole summary, in bytes of UTF-8.
SIZE_LIMIT = 512 * 1024


def ci_summary(view: ReportView, verdict: Verdict) -> str:
    """The job summary of one run as Markdown, ending with a newline, under 512 KiB."""
    run = view.run
    result = "passed" if verdict.passed else "failed"
    parts = [
        f"## Assay: {md_cell(_clip(run.suite))} · {md_cell(_clip(run.agent))} — {result}",
        _verdict(view, verdict),
        *_gate(verdict.findings),
        *_comparison(view),
        *_figures(view),
        *_fixes(view),
    ]
    if view.estimated:
        parts.append(f"_{md_cell(fmt.ESTIMATED_LEGEND)}_")
    return _within_limit([part for part in parts if part], run.id)


def _within_limit(parts: list[str], run_id: str) -> str:
    """The parts joined, cut at the last line that keeps the summary under :data:`SIZE_LIMIT`."""
    text = "\n\n".join(parts) + "\n"
    if len(text) <= SIZE_LIMIT // 4 or len(text.encode("utf-8")) <= SIZE_LIMIT:
        return text  # at most 4 bytes a character: no need to encode a short one
    marker = (
        f"_The summary stops here, to stay under {SIZE_LIMIT // 1024} KiB: "
        f"{md_code('assay-agents report ' + run_id)} shows the whole run._"
    )
    room = SIZE_LIMIT - len(marker.encode("utf-8")) - 3
    kept: list[str] = []
    for line in text.split("\n"):
        room -= len(line.encode("utf-8")) + 1
        if room < 0:
            break
        kept.append(line)
    return "\n".join(kept).rstrip("\n") + f"\n\n{marker}\n"


def _clip(text: str) -> str:
    """``text``, or its first :data:`TEXT_LIMIT` characters and a marker saying it was cut."""
    if len(text) <= TEXT_LIMIT:
        return text
    return f"{text[:TEXT_LIMIT].rstrip()}… (cut at {fmt.tokens(TEXT_LIMIT)} characters)"


def _first(names: Sequence[str]) -> tuple[str, ...]:
    """The first :data:`LIST_LIMIT` names, each clipped, and how many more there are."""
    shown = tuple(_clip(name) for name in names[:LIST_LIMIT])
    more = len(names) - LIST_LIMIT
    return (*shown, f"… and {more} more") if more > 0 else shown


def _brief(item: FixItem) -> FixItem:
    """A fix item with its lists and strings cut to what the summary has room for."""
    also = tuple(Also(_clip(text), _first(cases)) for text, cases in item.also[:LIST_LIMIT])
    more = len(item.also) - LIST_LIMIT
    if more > 0:
        also += (Also(f"… and {more} more recommendation(s)", ("see the report",)),)
    return replace(
        item,
        case_ids=_first(item.case_ids),
        models=_first(item.models),
        recommendation=_clip(item.recommendation),
        quote=None if item.quote is None else _clip(item.quote),
        also=also,
        note=None if item.note is None else _clip(item.note),
    )


def _fixes(view: ReportView) -> list[str]:
    """What to fix, a level below the summary's own title."""
    if not view.fix_items:
        return ["### What to fix\n\nNothing to fix: no sample has a diagnosed fault."]
    # Each item's heading is a level-3 one in the report; here it sits under a level-3 title.
    items = [f"#{fixes.fix_item_markdown(_brief(item))}" for item in view.fix_items]
    more = len(items) - LIST_LIMIT
    tail = [f"_… and {more} more fix item(s) in the report._"] if more > 0 else []
    return ["### What to fix", *items[:LIST_LIMIT], *tail]


def _verdict(view: ReportView, verdict: Verdict) -> str:
    line = f"Run {md_code(view.run.id)} · exit code {int(verdict.exit_code)}"
    if verdict.passed:
        return f"**Passed.** {line}"
    if not verdict.reasons:
        return f"**Failed.** {line}"
    return f"**Failed: {md_cell(_clip(', '.join(verdict.reasons)))}.** {line}"


def _gate(findings: Sequence[GateFinding]) -> list[str]:
    lines = verdict_lines(findings)
    if not lines:
        return []
    # The gate's block indents its figures under its decision: a nested list keeps that.
    return [
        "\n".join(
            f"  - {md_cell(_clip(line.strip()))}"
            if line.startswith(" ")
            else f"- {md_cell(_clip(line))}"
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
    return [" ".join(md_cell(_clip(line)) for line in said if line)]


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
