"""Markdown for what a run tells a team to change: the verdict, the matrix, What to fix.

Each piece reads exactly as it does inside the whole report, so it can be pasted on its own.
Every user string goes through :mod:`assay_agents.report._escaping`.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_agents.report import _fixing as fixing
from assay_agents.report._escaping import md_cell, md_code, md_quote
from assay_agents.report.view import VerdictSection, written
from assay_agents.results import SampleResult
from assay_agents.results.fixes import FixItem, FixTool

WHAT_TO_FIX = "## What to fix"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(md_cell(value) for value in values) + " |"

    return "\n".join(
        [
            line(headers),
            "| " + " | ".join("---" for _ in headers) + " |",
            *(line(row) for row in rows),
        ]
    )


def verdict_section(section: VerdictSection) -> str:
    """``## Verdict``: the judge's pick with its rationale, and what it rests on per model."""
    parts = [f"## {section.title}"]
    pick = section.pick
    if pick is not None:
        parts += [
            f"**Best model: {md_code(pick.model)}**, picked by the judge ({md_cell(pick.judge)}).",
            md_quote(pick.rationale),
        ]
    else:
        parts.append("_No verdict: a judge picks the best model when the run has one._")
    if section.models.rows:
        rows = [[written(value, "markdown") for value in row] for row in section.models.rows]
        parts.append(_table(section.models.headers, rows))
    if section.judge_usage:
        parts.append(f"_Run-level judge usage: {md_cell(section.judge_usage)}._")
    return "\n\n".join(parts)


def fix_items_markdown(items: Sequence[FixItem]) -> str:
    """``## What to fix``: one heading per item, or a line saying there is nothing to fix."""
    if not items:
        return f"{WHAT_TO_FIX}\n\nNothing to fix: no sample has a diagnosed fault."
    return "\n\n".join([WHAT_TO_FIX, *(fix_item_markdown(item) for item in items)])


def fix_item_markdown(item: FixItem) -> str:
    """One fix item: its heading, whom it speaks for, what to do, the tools and the action."""
    title = fixing.FAULT_TITLES.get(item.fault, item.fault)
    if item.kind == "instruction":
        title = f"Instruction change ({title.lower()})"
    lines = [f"- **Cases:** {md_cell(', '.join(item.case_ids))}", f"- **Samples:** {item.count}"]
    if item.models:
        lines.append(f"- **Models:** {md_cell(', '.join(item.models))}")
    lines.append(f"- **Recommendation:** {md_cell(item.recommendation)}")
    lines += [
        f"- **Also:** {md_cell(text)} ({md_cell(', '.join(cases))})" for text, cases in item.also
    ]
    if item.tools:
        label = (item.tools_label or "tools").capitalize()
        lines.append(f"- **{md_cell(label)}:** " + ", ".join(_tool(tool) for tool in item.tools))
    if item.note:
        lines.append(f"- **Note:** {md_cell(item.note)}")
    if item.action is not None:
        lines.append(f"- **Fix it:** {_action(item)}")
    body = "\n".join(lines)
    if item.quote:
        body += f"\n\nInstruction to add or change:\n\n{md_quote(item.quote)}"
    return f"### {md_cell(title)} ({md_code(item.fault)})\n\n{body}"


def _tool(tool: FixTool) -> str:
    shown = md_code(tool.name)
    extra = []
    if tool.note:
        extra.append(md_cell(tool.note))
    if tool.server:
        extra.append(md_cell(f"{tool.server.get('name')}, {tool.server.get('status')}"))
    return shown + (f" ({'; '.join(extra)})" if extra else "")


def _action(item: FixItem) -> str:
    action = item.action or {}
    text = md_cell(str(action.get("label") or ""))
    if action.get("path"):
        # The hint names the screen the path opens ("Tools ->"); alone it points nowhere.
        where = str(action.get("hint") or "").removesuffix("->").strip()
        text += (
            f" ({md_cell(where)}: {md_code(str(action['path']))})"
            if where
            else f" ({md_code(str(action['path']))})"
        )
    return text


def sample_fault(sample: SampleResult) -> str:
    """A sample's fault and recommendation, with the judge's refinement when there is one."""
    if sample.fault is None:
        return ""
    lines = [f"**Fault:** {md_code(sample.fault)}: {md_cell(sample.recommendation or '')}"]
    refinement = sample.refinement
    if refinement is not None and refinement.tool_name:
        lines.append(
            f"**Suggested tool:** {md_code(refinement.tool_name)}: "
            f"{md_cell(refinement.tool_description or '')}"
        )
    if refinement is not None and refinement.instruction:
        lines.append(f"**Instruction change:**\n\n{md_quote(refinement.instruction)}")
    return "\n\n".join(lines)
